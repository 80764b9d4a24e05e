// The second reference beside ours: `afxdp demo --reference-dpdk[=PATH]` runs DPDK's testpmd
// (Debian's `dpdk` package, 22.11) with its AF_XDP driver, `--vdev net_af_xdp0,iface=...`, in the
// one-queue rxdrop, txpush and l2fwd cells it can play, right after ours and xdpsock's: the same
// veth pair, traffic and CPU. rxdrop is its `rxonly` mode, l2fwd `macswap`, txpush `txonly`.
//
// It runs without hugepages (`--no-huge --no-shconf`: anonymous memory, nothing to mount, reserve
// or release), its forwarding lcore on the application's CPU and its main lcore, which prints the
// statistics and sleeps in between, on the source's. (Both lcores on one CPU, `--lcores
// 0@1,1@1`, 22.11's testpmd never launches the forwarding lcore: no statistics, no packets.)
// With `--stats-period 1` it prints its port's statistics, the first block as forwarding starts,
// then every second or two (its timer rounds a 1 s sleep against a 1 s period), each flushed at
// once:
//
//   ######################## NIC statistics for port 0  ########################
//   RX-packets: 544        RX-missed: 0          RX-bytes:  32640
//   ...
//   TX-packets: 0          TX-errors: 0          TX-bytes:  0
//   ...
//   Tx-pps:            0          Tx-bps:            0
//
// Its rate is the count from its first block to the first block at least the cell's seconds
// later, over the time between their arrivals here. Not its totals at exit: after SIGTERM it
// forwards until its statistics loop's one-second sleep ends (EAL's sleep resumes after a
// signal), and those lines are not flushed before it exits, so that end cannot be timed.
#pragma once

#include "demo/demo_matrix.hpp"

#include <functional>
#include <string>
#include <vector>

namespace afxdp::tool {

// What `--reference-dpdk` alone runs: Debian's testpmd, searched in PATH.
inline constexpr const char* default_testpmd = "dpdk-testpmd";

// `program` as a path to run: a name without '/' searched in PATH. "" with `why` set to one
// line (naming the program, and the package when it is the default) when it cannot be run.
std::string resolve_testpmd(const std::string& program, std::string& why);

// Whether a cell has a testpmd twin: one-queue rxdrop, txpush and l2fwd, spinning or
// busy-polling, in native mode. Not poll(): the driver never sleeps in poll(). Not skb mode: the
// driver attaches its program in the mode the interface offers first (native on veth) and has
// no option to ask for another.
bool has_dpdk_twin(const DemoCell& cell);

// testpmd's command line for one cell: EAL's arguments (the lcores on `cpus` as above, the vdev on
// queue 0 of `interface` in copy mode; busy_budget=0 when spinning, the driver's default, 64, for
// busy-poll), then testpmd's (the forwarding mode, one forwarding core, statistics each second;
// txonly sends to `peer_mac`).
std::vector<std::string> testpmd_args(const DemoCell& cell, const std::string& interface,
                                      DemoCpus cpus, const std::string& peer_mac);

// The port's packet count (`direction` "RX" or "TX") in each statistics block completed in `out`
// after offset `from` (a block ends at its Tx-pps line), in order; `from` moves past them. A block
// without a readable count is skipped.
std::vector<double> testpmd_block_counts(const std::string& out, const std::string& direction,
                                         std::size_t& from);

// Runs testpmd for one cell and fills in the cell's rate or error: waits (up to 30 s) for its
// first statistics block, calls `running` (the program is attached by then), lets it forward
// until a block comes `seconds` or more after the first, then stops it with SIGTERM, which makes
// it close the port and detach its program.
void run_testpmd(DemoCell& cell, const std::string& program, const std::string& interface,
                 double seconds, DemoCpus cpus, const std::string& peer_mac,
                 const std::function<void()>& running);

}  // namespace afxdp::tool
