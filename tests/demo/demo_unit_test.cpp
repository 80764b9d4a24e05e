// The demo's matrix, table and JSON reading: no kernel needed.
#include "demo.hpp"

#include <gtest/gtest.h>

#include <sstream>

using afxdp::tool::DemoCell;
using afxdp::tool::DemoOptions;

TEST(DemoMatrix, QuickMeasuresTwoCoresOnlyFullMeasuresBoth) {
  const auto quick = afxdp::tool::demo_matrix({.quick = true});
  const auto full = afxdp::tool::demo_matrix({});
  // benchmarks x (spin, poll) x modes x cores, and the XDP_DROP ceiling x modes x cores
  EXPECT_EQ(full.size(), 3U * 2U * 2U * 2U + 2U * 2U);
  EXPECT_EQ(quick.size(), full.size() / 2);
  for (const DemoCell& cell : quick) EXPECT_EQ(cell.cores, 2);
}

// The kernel's ceiling comes first and never waits (no poll row): there is no application.
TEST(DemoMatrix, TheCeilingRowComesFirstWithoutPoll) {
  const auto full = afxdp::tool::demo_matrix({});
  ASSERT_FALSE(full.empty());
  EXPECT_EQ(full.front().benchmark, "xdp-drop");
  int ceiling = 0;
  for (const DemoCell& cell : full) {
    if (cell.benchmark != "xdp-drop") continue;
    ++ceiling;
    EXPECT_FALSE(cell.poll);
    EXPECT_FALSE(cell.busy_poll);
  }
  EXPECT_EQ(ceiling, 4);  // native and skb, 1 and 2 cores
}

TEST(DemoMatrix, FiltersSelectCellsAndTwoQueuesRunOnTwoCoresOnly) {
  DemoOptions options;
  options.benchmarks = {"rxdrop"};
  options.waits = {"busy-poll"};
  options.queues = {1, 2};
  options.modes = {"skb"};
  const auto cells = afxdp::tool::demo_matrix(options);
  ASSERT_EQ(cells.size(), 3U);  // 1 queue on 1 and 2 cores, 2 queues on 2 cores
  for (const DemoCell& cell : cells) {
    EXPECT_EQ(cell.benchmark, "rxdrop");
    EXPECT_EQ(cell.mode, "skb");
    EXPECT_TRUE(cell.busy_poll);
    EXPECT_FALSE(cell.poll);
    if (cell.queues == 2) {
      EXPECT_EQ(cell.cores, 2);
    }
  }
  options.cores = {1};
  EXPECT_EQ(afxdp::tool::demo_matrix(options).size(), 1U);
}

TEST(DemoTable, RowsAreBenchmarksColumnsAreModes) {
  std::vector<DemoCell> cells(3);
  cells[0] = {"rxdrop", false, "native", 2, true, 8.25, ""};
  cells[1] = {"rxdrop", false, "skb", 2, false, 0, "failed"};
  cells[2] = {"l2fwd", true, "native", 2, true, 0.5, ""};
  const std::string table = afxdp::tool::demo_table(cells);
  std::istringstream lines(table);
  std::string header, rxdrop, l2fwd;
  std::getline(lines, header);
  std::getline(lines, rxdrop);
  std::getline(lines, l2fwd);
  EXPECT_NE(header.find("native, 2 cores"), std::string::npos);
  EXPECT_NE(header.find("skb, 2 cores"), std::string::npos);
  EXPECT_EQ(rxdrop.rfind("rxdrop", 0), 0U);
  EXPECT_NE(rxdrop.find("8.250"), std::string::npos);
  EXPECT_NE(rxdrop.find(" -"), std::string::npos);  // the failed cell
  EXPECT_EQ(l2fwd.rfind("l2fwd poll()", 0), 0U);
  EXPECT_NE(l2fwd.find("0.500"), std::string::npos);
}

TEST(DemoJson, ReadsNumbersByKey) {
  double value = 0;
  EXPECT_TRUE(afxdp::tool::json_number(R"({"summary":true,"rx_pps":1234.5,"tx_pps":0})",
                                       "rx_pps", value));
  EXPECT_DOUBLE_EQ(value, 1234.5);
  EXPECT_TRUE(afxdp::tool::json_number(R"({"a": 7})", "a", value));
  EXPECT_DOUBLE_EQ(value, 7);
  EXPECT_FALSE(afxdp::tool::json_number(R"({"rx_pps":"x"})", "rx_pps", value));
  EXPECT_FALSE(afxdp::tool::json_number(R"({"other":1})", "rx_pps", value));
}

