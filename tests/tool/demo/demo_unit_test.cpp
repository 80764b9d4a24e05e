// The demo's matrix, table and JSON reading: no kernel needed.
#include "common/json.hpp"
#include "demo/demo.hpp"

#include "expect_throw.hpp"
#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>
#include <stdexcept>

using afxdp::tool::DemoBenchmark;
using afxdp::tool::DemoCell;
using afxdp::tool::DemoMode;
using afxdp::tool::DemoOptions;
using afxdp::tool::DemoTool;

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
  EXPECT_EQ(full.front().benchmark, DemoBenchmark::xdp_drop);
  int ceiling = 0;
  for (const DemoCell& cell : full) {
    if (cell.benchmark != DemoBenchmark::xdp_drop) continue;
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
    EXPECT_EQ(cell.benchmark, DemoBenchmark::rxdrop);
    EXPECT_EQ(cell.mode, DemoMode::skb);
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
  cells[0] = {DemoBenchmark::rxdrop, false, DemoMode::native, 2, true, 8.25, ""};
  cells[1] = {DemoBenchmark::rxdrop, false, DemoMode::skb, 2, false, 0, "failed"};
  cells[2] = {DemoBenchmark::l2fwd, true, DemoMode::native, 2, true, 0.5, ""};
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

// A cell that took (nearly) all the source offered shows the offered rate beside its own and a
// note; one that took clearly less shows its rate alone.
TEST(DemoTable, MarksTheCellsTheSourceBounds) {
  std::vector<DemoCell> cells(2);
  cells[0] = {DemoBenchmark::rxdrop, false, DemoMode::native, 2, true, 1.2, ""};
  cells[0].offered_mpps = 1.25;
  cells[1] = {DemoBenchmark::rxdrop, false, DemoMode::skb, 2, true, 0.6, ""};
  cells[1].offered_mpps = 1.25;
  EXPECT_TRUE(afxdp::tool::source_bound(cells[0]));
  EXPECT_FALSE(afxdp::tool::source_bound(cells[1]));
  const std::string table = afxdp::tool::demo_table(cells);
  EXPECT_NE(table.find("1.200 of 1.250"), std::string::npos) << table;
  EXPECT_EQ(table.find("0.600 of"), std::string::npos) << table;
  EXPECT_NE(table.find("0.600"), std::string::npos) << table;
  EXPECT_NE(table.find("the cell measures the source"), std::string::npos) << table;
  cells[0].offered_mpps = 2.0;
  EXPECT_EQ(afxdp::tool::demo_table(cells).find("measures the source"), std::string::npos);
}

TEST(DemoJson, ReadsNumbersByKey) {
  double value = 0;
  EXPECT_TRUE(
      afxdp::tool::json_number(R"({"summary":true,"rx_pps":1234.5,"tx_pps":0})", "rx_pps", value));
  EXPECT_DOUBLE_EQ(value, 1234.5);
  EXPECT_TRUE(afxdp::tool::json_number(R"({"a": 7})", "a", value));
  EXPECT_DOUBLE_EQ(value, 7);
  EXPECT_FALSE(afxdp::tool::json_number(R"({"rx_pps":"x"})", "rx_pps", value));
  EXPECT_FALSE(afxdp::tool::json_number(R"({"other":1})", "rx_pps", value));
}

// The source and the application take CPUs the process may use, not CPUs 0 and 1: the first,
// and the next of the other parity (veth spreads two queues' senders by CPU parity).
TEST(DemoCpus, FromTheUsableCpus) {
  const auto odd = afxdp::tool::demo_cpus({3, 5, 7});
  EXPECT_EQ(odd.source, 3U);
  EXPECT_EQ(odd.app, 5U);
  const auto mixed = afxdp::tool::demo_cpus({3, 5, 6});
  EXPECT_EQ(mixed.source, 3U);
  EXPECT_EQ(mixed.app, 6U);
  // Queue 0's sender on the even CPU, its thread on the odd one; queue 1 the other way round.
  EXPECT_EQ(mixed.sender_of_queue(0), 6U);
  EXPECT_EQ(mixed.thread_of_queue(0), 3U);
  EXPECT_EQ(mixed.sender_of_queue(1), 3U);
  EXPECT_EQ(mixed.thread_of_queue(1), 6U);
  const auto usual = afxdp::tool::demo_cpus({0, 1});
  EXPECT_EQ(usual.source, 0U);
  EXPECT_EQ(usual.app, 1U);
  EXPECT_EQ(usual.sender_of_queue(0), 0U);
  EXPECT_EQ(usual.thread_of_queue(0), 1U);
}

TEST(DemoCpus, FewerThanTwoIsOneLineSayingWhich) {
  for (const std::vector<unsigned>& usable : {std::vector<unsigned>{1}, std::vector<unsigned>{}}) {
    EXPECT_THROW_WITH((void)afxdp::tool::demo_cpus(usable), std::runtime_error, "two CPUs")
        << usable.size() << " CPU(s)";
    if (!usable.empty()) {
      EXPECT_THROW_WITH((void)afxdp::tool::demo_cpus(usable), std::runtime_error, "only CPU 1");
    }
  }
}

namespace {

// `afxdp demo args...` parsed (never run); the error CLI11 gives, or "accepted".
std::string parse_demo(std::vector<std::string> args) {
  CLI::App app{"test"};
  afxdp::tool::add_demo_subcommand(app);
  args.insert(args.begin(), "demo");
  std::reverse(args.begin(), args.end());  // CLI11 takes them last first
  try {
    app.parse(args);
    return "accepted";
  } catch (const CLI::ParseError& e) {
    return e.what();
  }
}

}  // namespace

// -d is finite and at most an hour per cell: inf and 1e10 once overflowed the conversion to
// nanoseconds (and the cell's millisecond timeout).
TEST(DemoOptions, DurationIsFiniteAndBounded) {
  for (const char* value : {"inf", "infinity", "nan", "1e10", "1e300", "3601", "0", "0.09"}) {
    const std::string what = parse_demo({"-d", value});
    EXPECT_NE(what.find("--duration"), std::string::npos) << value << ": " << what;
    EXPECT_NE(what.find(value), std::string::npos) << value << ": " << what;
    EXPECT_EQ(what.find('\n'), std::string::npos) << what;
  }
  for (const char* value : {"0.1", "1", "3600"})
    EXPECT_EQ(parse_demo({"-d", value}), "accepted") << value;
}

// The integer options at 0, 1, their largest and one beyond.
TEST(DemoOptions, BoundaryIntegers) {
  for (const std::vector<std::string>& good : {std::vector<std::string>{"--cores", "1"},
                                               {"--cores", "2"},
                                               {"--queues", "1"},
                                               {"--queues", "2"},
                                               {"--gen-rate", "0"},
                                               {"--gen-rate", "1"},
                                               {"--gen-rate", "18446744073709551615"}}) {
    EXPECT_EQ(parse_demo(good), "accepted") << good[0] << " " << good[1];
  }
  for (const std::vector<std::string>& bad : {std::vector<std::string>{"--cores", "0"},
                                              {"--cores", "3"},
                                              {"--queues", "0"},
                                              {"--queues", "3"},
                                              {"--gen-rate", "18446744073709551616"},
                                              {"--gen-rate=-1"}}) {
    const std::string what = parse_demo(bad);
    EXPECT_NE(what.find(bad[0].substr(0, bad[0].find('='))), std::string::npos) << what;
    EXPECT_EQ(what.find('\n'), std::string::npos) << what;
  }
}
