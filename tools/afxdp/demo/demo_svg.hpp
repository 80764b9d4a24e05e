// `afxdp demo --svg FILE`: the matrix as an SVG bar chart, a panel per benchmark and a group of
// bars per cell (ours, then xdpsock and DPDK when they ran), with a legend, the Mpps axis, the
// machine and the date. The installed tool carries no script, so it writes the SVG itself;
// bench/svg_chart.py draws the same chart for scripts/benchmark and docs/benchmarks.md.
#pragma once

#include "demo/demo_matrix.hpp"

#include <string>
#include <vector>

namespace afxdp::tool {

// "rxdrop poll() native 2c 1q": how the chart names a cell (as bench/svg_chart.py does).
std::string chart_cell_name(const DemoCell& cell);
// The chart of the measured cells; `note` says the machine and the date.
std::string demo_svg(const std::vector<DemoCell>& cells, const std::string& note);
// "AMD EPYC, 2 CPUs, kernel 6.18.0, 2026-12-03 02:55 UTC" for this machine, now.
std::string machine_note();

}  // namespace afxdp::tool
