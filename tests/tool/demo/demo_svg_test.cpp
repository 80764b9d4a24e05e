// `afxdp demo --svg`: the chart names every measured cell, ours and the references', and carries
// the legend, the axis and the machine note.
#include "demo/demo_svg.hpp"

#include <gtest/gtest.h>

namespace {

using afxdp::tool::DemoCell;

TEST(DemoSvg, NamesEveryMeasuredCell) {
  afxdp::tool::DemoOptions options;
  options.reference = "/usr/bin/xdpsock";
  options.reference_dpdk = "/usr/bin/dpdk-testpmd";
  std::vector<DemoCell> cells = afxdp::tool::demo_matrix(options);
  double mpps = 0.5;
  for (DemoCell& cell : cells) {
    cell.measured = true;
    cell.mpps = mpps += 0.25;
  }
  cells.back().measured = false;  // a failed cell has no bar
  const std::string svg = afxdp::tool::demo_svg(cells, "Test CPU, 2 CPUs, 2026-12-03 02:55 UTC");
  EXPECT_EQ(svg.rfind("<svg ", 0), 0U);
  EXPECT_NE(svg.find("</svg>"), std::string::npos);
  for (const DemoCell& cell : cells) {
    if (cell.tool != afxdp::tool::DemoTool::afxdp) continue;
    EXPECT_NE(svg.find(">" + afxdp::tool::chart_cell_name(cell) + "</text>"), std::string::npos)
        << afxdp::tool::chart_cell_name(cell);
  }
  for (const char* label : {">afxdp<", ">xdpsock<", ">DPDK testpmd<", ">Mpps<", "2026-12-03"}) {
    EXPECT_NE(svg.find(label), std::string::npos) << label;
  }
}

TEST(DemoSvg, TheLegendNamesOnlyTheToolsThatRan) {
  std::vector<DemoCell> cells = afxdp::tool::demo_matrix({});
  for (DemoCell& cell : cells) cell.measured = true;
  const std::string svg = afxdp::tool::demo_svg(cells, "note");
  EXPECT_NE(svg.find(">afxdp<"), std::string::npos);
  EXPECT_EQ(svg.find(">xdpsock<"), std::string::npos);
  EXPECT_EQ(svg.find(">DPDK testpmd<"), std::string::npos);
}

TEST(DemoSvg, CellNamesMatchTheScriptsCharts) {
  DemoCell cell;
  cell.benchmark = afxdp::tool::DemoBenchmark::rxdrop;
  cell.poll = true;
  cell.mode = afxdp::tool::DemoMode::native;
  cell.cores = 1;
  cell.queues = 2;
  EXPECT_EQ(afxdp::tool::chart_cell_name(cell), "rxdrop poll() native 1c 2q");
}

}  // namespace
