// What `afxdp demo` measures and how it shows it, with no side effects (unit-tested): the matrix
// of cells its options ask for and the table of their results (the tools' --json lines are read
// with common/json.hpp's json_number). Running the cells is demo.cpp's job.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace afxdp::tool {

// The first row: gen's traffic dropped by an XDP program (afxdp rxq-info -a DROP), the most the
// kernel can receive on this machine in this minute. Figures on a shared machine drift by a
// factor of two over an hour, so the benchmarks are read against this row of the same run.
inline constexpr const char* demo_ceiling = "xdp-drop";

// What a cell measures, in which XDP mode, and with which tool: ours, or a reference beside it.
enum class DemoBenchmark { xdp_drop, rxdrop, txpush, l2fwd };  // xdp_drop: the ceiling
enum class DemoMode { native, skb };
enum class DemoTool { afxdp, xdpsock, dpdk };
// The names the options, the table and the JSON use: "xdp-drop", "skb", "xdpsock".
const char* demo_name(DemoBenchmark benchmark);
const char* demo_name(DemoMode mode);
const char* demo_name(DemoTool tool);

struct DemoOptions {
  bool quick = false;  // 1 s per cell, 2 cores only: about 20 seconds in all
  double seconds = 0;  // per cell; 0: 3 s, or 1 s with --quick
  bool json = false;   // one JSON object per cell instead of the table
  // Filters and extra dimensions (scripts/benchmark): empty means the default set.
  std::vector<std::string> benchmarks{};  // xdp-drop, rxdrop, txpush, l2fwd
  std::vector<std::string> modes{};       // native, skb
  std::vector<int> cores{};               // 1, 2
  std::vector<std::string> waits{};       // spin, poll, busy-poll (default: spin and poll)
  std::vector<int> queues{};              // 1, 2 (default: 1)
  std::vector<std::string> extra{};       // more arguments for every benchmark run (A/B of options)
  std::uint64_t gen_rate = 0;             // gen's --rate per source, frames/s; 0: unpaced
  // An xdpsock binary to run right after each one-queue rxdrop, txpush and l2fwd cell, in the
  // same conditions ("" none): xdpsock_reference.hpp.
  std::string reference{};
  // testpmd (a path; "" none) to run after them in the cells it can play: dpdk_reference.hpp.
  std::string reference_dpdk{};
  // The latency table after the matrix (demo_latency.hpp): by default with the table, not with
  // --json (whose lines scripts read as cells); --latency asks for it, --no-latency skips it.
  bool latency = false;
  bool no_latency = false;
  std::string svg{};  // also draw the matrix into this SVG file (demo_svg.hpp); "" none
  [[nodiscard]] bool wants_latency() const { return !no_latency && (latency || !json); }
};

// One measurement of the matrix.
struct DemoCell {
  DemoBenchmark benchmark = DemoBenchmark::xdp_drop;
  bool poll = false;
  DemoMode mode = DemoMode::native;
  int cores = 2;
  bool measured = false;
  double mpps = 0;
  std::string error;        // why it was not measured
  bool busy_poll = false;   // -B, with the interface's napi_defer_hard_irqs and gro_flush_timeout
  int queues = 1;           // queues, each with its own thread (and, for rx, its own gen)
  double offered_mpps = 0;  // what gen sent in the same run (rxdrop, l2fwd)
  DemoTool tool = DemoTool::afxdp;
};

// Where the demo runs its two sides: the traffic source (gen) and the application (the
// benchmark, the reference). The kernel's receive work goes with one or the other per cell.
struct DemoCpus {
  unsigned source = 0;
  unsigned app = 1;
  // Two-queue cells: veth puts a sender's frames on rx queue (its CPU mod 2), so queue q's
  // traffic source runs on the CPU of that parity and the queue's thread on the other one.
  [[nodiscard]] unsigned sender_of_queue(int queue) const {
    return source % 2 == static_cast<unsigned>(queue) % 2 ? source : app;
  }
  [[nodiscard]] unsigned thread_of_queue(int queue) const {
    return sender_of_queue(queue) == source ? app : source;
  }
};
// From `usable` (the process's affinity, ascending): the first CPU for the source and, for the
// application, the next one of the other parity if there is one (two-queue cells need both
// parities), else the second. Throws std::runtime_error saying so when fewer than two.
DemoCpus demo_cpus(const std::vector<unsigned>& usable);

// The rows and columns the demo measures.
std::vector<DemoCell> demo_matrix(const DemoOptions& options);
// Where a cell is shown: its column ("native, 2 cores") and its row ("rxdrop poll()").
std::string column_name(const DemoCell& cell);
std::string row_name(const DemoCell& cell);
// Did the traffic source bound this cell? The application took at least 90 % of what gen
// offered in the same run: the cell then measures the source, not the application.
bool source_bound(const DemoCell& cell);
// The table: rows are benchmarks (with/without poll), columns are modes x cores, Mpps. A cell
// the source bound reads "1.234 of 1.250" (ours, and gen's offered rate), with a note below.
std::string demo_table(const std::vector<DemoCell>& cells);

}  // namespace afxdp::tool
