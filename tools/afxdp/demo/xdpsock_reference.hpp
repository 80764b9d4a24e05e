// The reference tool beside ours: `afxdp demo --reference PATH` runs the xdpsock sample (libxdp's
// AF_XDP-example from xdp-project/bpf-examples, built by the user: docs/benchmarks.md says how) in
// every rxdrop, txpush and l2fwd cell right after our own benchmark, on the same veth pair, CPU
// and traffic, so the two are compared in one run rather than against figures from another day.
//
// xdpsock has no machine-readable output: it prints a block per second,
//
//    sock0@demob:0 rxdrop xdp-drv
//                     pps            pkts           1.00
//   rx                 1,081,574      1,089,995
//   tx                 0              0
//
// and one more at exit with the totals. Its rate is the last block's total over the sum of the
// blocks' intervals: the average over the whole run, as our summary's rx_pps/tx_pps.
#pragma once

#include <string>
#include <vector>

namespace afxdp::tool {

struct DemoCell;

// xdpsock's arguments for one cell: -r/-t/-l, the interface, queue 0, -N -c (native copy) or -S,
// -p for poll(), -B for busy-poll, -d in whole seconds (xdpsock takes no fraction; at least 1).
std::vector<std::string> xdpsock_args(const DemoCell& cell, const std::string& interface,
                                      double seconds);

// The average rate of the `row` ("rx" or "tx") over xdpsock's whole output, frames/s; false when
// the output has no complete block. Thousands separators (its %' formats under a locale) are
// skipped.
bool xdpsock_rate(const std::string& out, const std::string& row, double& pps);

}  // namespace afxdp::tool
