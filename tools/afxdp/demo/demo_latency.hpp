// The demo's latency table: after the throughput matrix, `afxdp latency` sends probes at a fixed
// rate through each reflector (afxdp l2fwd in each wait mode, a kernel UDP socket through
// `afxdp udp-echo`, and xdpsock l2fwd when --reference is given) and the table shows the round
// trip's percentiles, the probes lost and the CPU time each end spent. This half is pure
// (unit-tested); demo_latency_run.cpp runs the rows.
#pragma once

#include "latency/latency.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace afxdp::tool {

inline constexpr double demo_latency_rate = 20000;  // probes per second
inline constexpr double demo_latency_spin_us = 50;  // the "poll() after a spin" row's spin

// What answers the probes: `afxdp l2fwd`, a kernel UDP socket (`afxdp udp-echo`), xdpsock's l2fwd.
enum class LatencyReflector { afxdp, udp, xdpsock };
const char* demo_name(LatencyReflector reflector);

struct LatencyRow {
  LatencyReflector reflector = LatencyReflector::afxdp;
  LatencyWait wait = LatencyWait::spin;  // both ends (udp: ours polls, udp-echo blocks)
  double spin_us = 0;  // poll() after this spin (--spin-before-sleep) at both ends
  bool measured = false;
  double p50_us = 0, p99_us = 0, p99_9_us = 0, max_us = 0;
  std::uint64_t sent = 0, lost = 0;
  double cpu_ours = 0, cpu_reflector = 0;  // CPU seconds over the row
  std::string error;                       // why it was not measured
  // Not measured because the kernel refuses what the row needs (busy polling): `error` names the
  // refusal; the row is skipped, not failed.
  bool refused = false;
};

// The rows, in order; the xdpsock rows only with `xdpsock`.
std::vector<LatencyRow> demo_latency_rows(bool xdpsock);
// "afxdp l2fwd, poll() after a 50 us spin", "kernel UDP socket, poll()"...
std::string latency_row_name(const LatencyRow& row);
// Fills the percentiles, sent, lost and our CPU time from `afxdp latency --json`'s line; false
// when a field is missing.
bool read_latency_line(const std::string& line, LatencyRow& row);
// The table (a heading naming the rate and the seconds per row, one line per row).
std::string demo_latency_table(const std::vector<LatencyRow>& rows, double seconds);
// One row as a JSON object line: {"latency":true,"reflector":...}.
std::string latency_row_json(const LatencyRow& row);

}  // namespace afxdp::tool
