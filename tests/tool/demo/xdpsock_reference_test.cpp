// Reading the reference tool's output and building its command line (xdpsock_reference.hpp).
#include "demo/xdpsock_reference.hpp"
#include "demo/demo.hpp"

#include <gtest/gtest.h>

using afxdp::tool::DemoBenchmark;
using afxdp::tool::DemoCell;
using afxdp::tool::DemoMode;
using afxdp::tool::DemoOptions;
using afxdp::tool::DemoTool;
using afxdp::tool::xdpsock_args;
using afxdp::tool::xdpsock_rate;

namespace {

// Three blocks as xdpsock prints them (two per-second ones, then the one at exit), with its
// thousands separators; rx 2,000,000 frames in 2.5 s in all.
const char* const three_blocks = R"(
 sock0@demob:0 rxdrop xdp-drv
                   pps            pkts           1.00
rx                 1,000,000      1,000,000
tx                 0              0

 sock0@demob:0 rxdrop xdp-drv poll()
                   pps            pkts           1.00
rx                 800,000        1,800,000
tx                 0              0

 sock0@demob:0 rxdrop xdp-drv
                   pps            pkts           0.50
rx                 400,000        2,000,000
tx                 0              0
)";

}  // namespace

TEST(XdpsockRate, TheLastTotalOverTheSumOfTheIntervals) {
  double pps = 0;
  ASSERT_TRUE(xdpsock_rate(three_blocks, "rx", pps));
  EXPECT_DOUBLE_EQ(pps, 2000000 / 2.5);
  ASSERT_TRUE(xdpsock_rate(three_blocks, "tx", pps));
  EXPECT_DOUBLE_EQ(pps, 0);
}

TEST(XdpsockRate, NoCompleteBlockIsNoRate) {
  double pps = 0;
  EXPECT_FALSE(xdpsock_rate("", "rx", pps));
  EXPECT_FALSE(xdpsock_rate("xdpsock: errno 19 \"No such device\"\n", "rx", pps));
  // A row without its block's header, and a header whose row is cut short.
  EXPECT_FALSE(xdpsock_rate("rx  10  10\n", "rx", pps));
  EXPECT_FALSE(xdpsock_rate("   pps   pkts   1.00\nrx   10\n", "rx", pps));
}

TEST(XdpsockArgs, OneCellInXdpsocksFlags) {
  DemoCell cell;
  cell.benchmark = DemoBenchmark::rxdrop;
  cell.mode = DemoMode::native;
  EXPECT_EQ(xdpsock_args(cell, "demob", 3),
            (std::vector<std::string>{"-r", "-i", "demob", "-q", "0", "-N", "-c", "-d", "3"}));
  cell.benchmark = DemoBenchmark::l2fwd;
  cell.mode = DemoMode::skb;
  cell.poll = true;
  EXPECT_EQ(xdpsock_args(cell, "demob", 0.4),  // at least a second: xdpsock takes whole seconds
            (std::vector<std::string>{"-l", "-i", "demob", "-q", "0", "-S", "-p", "-d", "1"}));
  cell.benchmark = DemoBenchmark::txpush;
  cell.poll = false;
  cell.busy_poll = true;
  EXPECT_EQ(xdpsock_args(cell, "demob", 2.6),
            (std::vector<std::string>{"-t", "-i", "demob", "-q", "0", "-S", "-B", "-d", "3"}));
}

// Each one-queue benchmark cell gets its reference twin right after it; the ceiling and the
// two-queue cells (xdpsock runs one queue) get none.
TEST(DemoMatrix, TheReferenceFollowsEachOneQueueBenchmarkCell) {
  DemoOptions options;
  options.queues = {1, 2};
  options.modes = {"native"};
  const auto plain = afxdp::tool::demo_matrix(options);
  options.reference = "/bin/true";
  const auto with = afxdp::tool::demo_matrix(options);
  std::size_t twins = 0;
  for (const DemoCell& cell : plain) {
    if (cell.benchmark != DemoBenchmark::xdp_drop && cell.queues == 1) ++twins;
  }
  ASSERT_GT(twins, 0U);
  ASSERT_EQ(with.size(), plain.size() + twins);
  for (std::size_t i = 0; i < with.size(); ++i) {
    if (with[i].tool != DemoTool::xdpsock) continue;
    ASSERT_GT(i, 0U);
    const DemoCell& ours = with[i - 1];
    EXPECT_EQ(ours.tool, DemoTool::afxdp);
    EXPECT_EQ(ours.benchmark, with[i].benchmark);
    EXPECT_EQ(ours.poll, with[i].poll);
    EXPECT_EQ(ours.mode, with[i].mode);
    EXPECT_EQ(ours.cores, with[i].cores);
    EXPECT_EQ(with[i].queues, 1);
    EXPECT_NE(with[i].benchmark, DemoBenchmark::xdp_drop);
  }
}
