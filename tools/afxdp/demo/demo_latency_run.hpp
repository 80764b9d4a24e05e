// Runs the demo's latency rows (demo_latency.hpp) on veth pairs of their own in the demo's
// private namespace: the reflector on the application's CPU, `afxdp latency` on the source's.
#pragma once

#include "demo/demo_latency.hpp"
#include "demo/demo_matrix.hpp"

#include <afxdp/run.hpp>

#include <functional>
#include <string>

namespace afxdp::tool {

struct LatencyRun {
  std::string tool;     // the `afxdp` binary measured
  std::string xdpsock;  // --reference ("" none)
  DemoCpus cpus;
  double seconds = 1;                // per row
  const SignalStop* stop = nullptr;  // rows not yet measured when it is requested are skipped
};

// Measures every row in turn (a failed row says why and the rest still run); returns them.
// With `each`, calls it after every row.
std::vector<LatencyRow> run_demo_latency(const LatencyRun& run,
                                         const std::function<void(const LatencyRow&)>& each = {});

}  // namespace afxdp::tool
