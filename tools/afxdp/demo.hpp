// `afxdp demo`: the whole toolkit on a veth pair of its own. It makes a private network namespace
// and a veth pair, drives traffic with `afxdp gen`, runs rxdrop, txpush and l2fwd in native and
// skb mode, with and without poll(), on 1 core and on 2 cores, prints a table in Mpps, and leaves
// nothing behind (the namespace dies with the process, on every exit path).
#pragma once

#include "command.hpp"

#include <string>
#include <vector>

namespace afxdp::tool {

struct DemoOptions {
  bool quick = false;     // 1 s per cell, 2 cores only: about 20 seconds in all
  double seconds = 0;     // per cell; 0: 3 s, or 1 s with --quick
  bool json = false;      // one JSON object per cell instead of the table
};

// One measurement of the matrix.
struct DemoCell {
  std::string benchmark;  // rxdrop, txpush, l2fwd
  bool poll = false;
  std::string mode;       // native, skb
  int cores = 2;
  bool measured = false;
  double mpps = 0;
  std::string error;      // why it was not measured
};

// The rows and columns the demo measures.
std::vector<DemoCell> demo_matrix(const DemoOptions& options);
// The table: rows are benchmarks (with/without poll), columns are modes x cores, Mpps.
std::string demo_table(const std::vector<DemoCell>& cells);
// A number from a flat JSON object line: "key": 1234.5 (our own --json output only).
bool json_number(const std::string& line, const std::string& key, double& value);

Command add_demo_command(CLI::App& app);

}  // namespace afxdp::tool
