// The demo's latency table without a kernel: its rows, the reading of `afxdp latency --json`,
// the table and the JSON rows, and when the demo measures it.
#include "demo/demo_latency.hpp"
#include "demo/demo_matrix.hpp"

#include <gtest/gtest.h>

#include <sstream>

using afxdp::tool::LatencyRow;

namespace {

// What `afxdp latency --json` printed in a run (one line; the histogram shortened).
const std::string latency_line =
    R"({"latency":true,"transport":"af_xdp","path":"lata:0","wait":"poll",)"
    R"("rate":20000.000,"size":64,"sent":20000,"received":19998,"lost":2,"duplicates":0,)"
    R"("strays":0,"min_us":10.470,"p50_us":38.800,"p90_us":60.000,"p99_us":169.000,)"
    R"("p99_9_us":400.500,"max_us":2000.000,"seconds":1.002,"cpu_seconds":0.650,)"
    R"("histogram":[{"below_us":16,"count":3}]})";

}  // namespace

TEST(DemoLatency, RowsAreOursThenTheKernelsThenXdpsocks) {
  const auto rows = afxdp::tool::demo_latency_rows(false);
  std::vector<std::string> names;
  names.reserve(rows.size());
  for (const LatencyRow& row : rows) names.push_back(afxdp::tool::latency_row_name(row));
  EXPECT_EQ(names,
            (std::vector<std::string>{"afxdp l2fwd, spin", "afxdp l2fwd, poll()",
                                      "afxdp l2fwd, poll() after a 50 us spin",
                                      "afxdp l2fwd, busy-poll", "kernel UDP socket, poll()"}));
  const auto with = afxdp::tool::demo_latency_rows(true);
  ASSERT_EQ(with.size(), rows.size() + 2);
  EXPECT_EQ(afxdp::tool::latency_row_name(with[5]), "xdpsock l2fwd, spin");
  EXPECT_EQ(afxdp::tool::latency_row_name(with[6]), "xdpsock l2fwd, poll()");
}

TEST(DemoLatency, ReadsPercentilesLossAndCpuFromTheLatencyLine) {
  LatencyRow row;
  ASSERT_TRUE(afxdp::tool::read_latency_line(latency_line, row));
  EXPECT_DOUBLE_EQ(row.p50_us, 38.8);
  EXPECT_DOUBLE_EQ(row.p99_us, 169);
  EXPECT_DOUBLE_EQ(row.p99_9_us, 400.5);
  EXPECT_DOUBLE_EQ(row.max_us, 2000);
  EXPECT_EQ(row.sent, 20000U);
  EXPECT_EQ(row.lost, 2U);
  EXPECT_DOUBLE_EQ(row.cpu_ours, 0.65);
  LatencyRow partial;
  EXPECT_FALSE(afxdp::tool::read_latency_line(R"({"latency":true,"p50_us":1})", partial));
}

TEST(DemoLatency, TableHasEveryRowAndSaysWhyOneWasNotMeasured) {
  auto rows = afxdp::tool::demo_latency_rows(false);
  ASSERT_TRUE(afxdp::tool::read_latency_line(latency_line, rows[1]));
  rows[1].measured = true;
  rows[1].cpu_reflector = 0.25;
  rows[4].error = "udp ended at once: boom";
  const std::string table = afxdp::tool::demo_latency_table(rows, 2);
  EXPECT_NE(table.find("20000 probes/s, 2 s per row"), std::string::npos) << table;
  std::istringstream lines(table);
  std::string line;
  int named = 0;
  while (std::getline(lines, line)) {
    for (const LatencyRow& row : rows) {
      const std::string name = afxdp::tool::latency_row_name(row);
      if (line.rfind(name, 0) == 0 && line.find(" after a") == name.find(" after a")) ++named;
    }
    if (line.rfind("afxdp l2fwd, poll() ", 0) == 0 && line.find("after") == std::string::npos) {
      std::istringstream fields(line.substr(std::string("afxdp l2fwd, poll()").size()));
      double p50 = 0, p99 = 0, p999 = 0, max = 0;
      std::string lost, cpu;
      ASSERT_TRUE(fields >> p50 >> p99 >> p999 >> max >> lost >> cpu) << line;
      EXPECT_DOUBLE_EQ(p99, 169);
      EXPECT_EQ(lost, "2/20000");
      EXPECT_EQ(cpu, "0.65/0.25");
    }
  }
  EXPECT_EQ(named, 5) << table;
  EXPECT_NE(table.find("kernel UDP socket, poll()"), std::string::npos);
  EXPECT_NE(table.find("not measured: udp ended at once: boom"), std::string::npos) << table;
}

TEST(DemoLatency, JsonRowCarriesWhatTheTableShows) {
  auto rows = afxdp::tool::demo_latency_rows(false);
  LatencyRow& row = rows[2];
  ASSERT_TRUE(afxdp::tool::read_latency_line(latency_line, row));
  row.measured = true;
  const std::string json = afxdp::tool::latency_row_json(row);
  EXPECT_EQ(json.back(), '\n');
  EXPECT_NE(json.find(R"("reflector":"afxdp","wait":"poll","spin_us":50,"measured":true)"),
            std::string::npos)
      << json;
  LatencyRow back;
  ASSERT_TRUE(afxdp::tool::read_latency_line(json, back)) << json;
  EXPECT_DOUBLE_EQ(back.p99_us, 169);
  EXPECT_EQ(back.lost, 2U);
}

// By default with the table and not with --json (scripts read its lines as cells).
TEST(DemoLatency, MeasuredWithTheTableOrWhenAskedAndNeverWithNoLatency) {
  EXPECT_TRUE(afxdp::tool::DemoOptions{}.wants_latency());
  EXPECT_FALSE(afxdp::tool::DemoOptions{.json = true}.wants_latency());
  EXPECT_TRUE((afxdp::tool::DemoOptions{.json = true, .latency = true}.wants_latency()));
  EXPECT_FALSE(afxdp::tool::DemoOptions{.no_latency = true}.wants_latency());
}
