// `afxdp demo`: the whole toolkit on a veth pair of its own. It makes a private network namespace
// and a veth pair, drives traffic with `afxdp gen`, measures what the kernel alone receives (an
// XDP_DROP program, the `xdp-drop` row), runs rxdrop, txpush and l2fwd in native and
// skb mode, with and without poll(), on 1 core and on 2 cores, prints a table in Mpps, and leaves
// nothing behind (the namespace dies with the process, on every exit path).
#pragma once

#include "command.hpp"

#include <cstdint>

#include <string>
#include <vector>

namespace afxdp::tool {

struct DemoOptions {
  bool quick = false;     // 1 s per cell, 2 cores only: about 20 seconds in all
  double seconds = 0;     // per cell; 0: 3 s, or 1 s with --quick
  bool json = false;      // one JSON object per cell instead of the table
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
};

// One measurement of the matrix.
struct DemoCell {
  std::string benchmark;  // xdp-drop, rxdrop, txpush, l2fwd
  bool poll = false;
  std::string mode;       // native, skb
  int cores = 2;
  bool measured = false;
  double mpps = 0;
  std::string error;      // why it was not measured
  bool busy_poll = false;   // -B, with the interface's napi_defer_hard_irqs and gro_flush_timeout
  int queues = 1;           // queues, each with its own thread (and, for rx, its own gen)
  double offered_mpps = 0;  // what gen sent in the same run (rxdrop, l2fwd)
  std::string tool = "afxdp";  // or "xdpsock": the reference tool in the same cell
};

// The rows and columns the demo measures.
std::vector<DemoCell> demo_matrix(const DemoOptions& options);
// The table: rows are benchmarks (with/without poll), columns are modes x cores, Mpps.
std::string demo_table(const std::vector<DemoCell>& cells);
// A number from a flat JSON object line: "key": 1234.5 (our own --json output only).
bool json_number(const std::string& line, const std::string& key, double& value);

Command add_demo_command(CLI::App& app);

}  // namespace afxdp::tool
