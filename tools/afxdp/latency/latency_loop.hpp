// The measuring loop of `afxdp latency`, once, over two ways to send and receive probes: an
// AF_XDP socket (afxdp::Queue) or a connected UDP socket. Throws "no reply ..." when nothing
// came back within the timeout of the first probe.
#pragma once

#include "latency/latency.hpp"
#include "latency/latency_report.hpp"

#include <afxdp/run.hpp>

namespace afxdp::tool {

LatencyResult measure_xsk(const LatencyOptions& options, const SignalStop& signals);
LatencyResult measure_udp(const LatencyOptions& options, const SignalStop& signals);

}  // namespace afxdp::tool
