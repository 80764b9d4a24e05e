// Our cell over a reference's twin in the same run ("vs xdpsock", "vs DPDK"): the one ratio the
// demo's table and JSON show for each reference cell, so that a reader need not divide.
#pragma once

#include "demo/demo_matrix.hpp"

#include <string>
#include <vector>

namespace afxdp::tool {

// Our Mpps over `reference`'s (a cell whose tool is not afxdp), from our cell with the same
// benchmark, wait, mode, cores and queues in `cells`; 0 when either is missing or unmeasured.
double afxdp_over(const std::vector<DemoCell>& cells, const DemoCell& reference);

// The name of the ratio's row for a reference tool: "vs xdpsock", "vs DPDK".
std::string versus_name(const std::string& tool);

// `cells`, each reference cell followed by a row whose tool is the ratio's name ("vs
// DPDK") and whose mpps is the ratio (measured only when both cells were): demo_table shows it
// as "1.27x".
std::vector<DemoCell> with_versus_rows(const std::vector<DemoCell>& cells);

}  // namespace afxdp::tool
