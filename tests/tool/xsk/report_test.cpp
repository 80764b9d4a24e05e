// The benchmarks' report (xsk_stats.hpp): rows and keys from QueueStats, as the docs show them.
#include "xsk/xsk_stats.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <string>

namespace {

using afxdp::tool::Reporter;
using afxdp::tool::Sample;

// Every counter a different value, so that a row reading the wrong one shows.
Sample sample(std::uint64_t k, double seconds) {
  Sample s{.stats = {}, .seconds = seconds};
  s.stats.received = 100 * k + 1;
  s.stats.completed = 100 * k + 2;
  s.stats.wakeups = 100 * k + 3;
  s.stats.polls = 100 * k + 4;
  s.stats.empty_turns = 100 * k + 5;
  s.stats.refused = 100 * k + 6;
  s.stats.packets = 100 * k + 7;
  s.stats.invalid_chains = 100 * k + 8;
  s.stats.rx_bytes = 100 * k + 9;
  s.stats.tx_bytes = 100 * k + 10;
  s.stats.kernel = {k + 11, k + 12, k + 13, k + 14, k + 15, k + 16};
  return s;
}

template <class Print>
std::string printed(Print print) {
  char* text = nullptr;
  std::size_t size = 0;
  std::FILE* out = open_memstream(&text, &size);
  print(out);
  std::fclose(out);
  std::string s(text, size);
  std::free(text);  // NOLINT(cppcoreguidelines-no-malloc): open_memstream's buffer
  return s;
}

afxdp::tool::XskOptions options(bool json, bool frags) {
  afxdp::tool::XskOptions o;
  o.benchmark = afxdp::tool::Benchmark::l2fwd;
  o.interface = "veth0";
  o.json = json;
  o.frags = frags;
  o.app_stats = true;
  return o;
}

TEST(Report, TextRowsWithFragsAndAppStats) {
  const auto o = options(false, true);
  const Sample a = sample(3, 1.5);
  const Sample b = sample(20000, 2.75);
  const std::string text = printed([&](std::FILE* out) {
    Reporter(o, "xdp-drv", out).print({1, "veth0", 2}, b - a, b);
  });
  EXPECT_EQ(text,
            "\n sock1@veth0:2 l2fwd xdp-drv\n"
            "                  pps              pkts             1.25\n"
            "rx                1,599,760        2,000,007\n"
            "rx frags          1,599,760        2,000,001\n"
            "tx frags          1,599,760        2,000,002\n"
            "rx bytes          1,599,760        2,000,009\n"
            "tx bytes          1,599,760        2,000,010\n"
            "syscalls          3,199,520        4,000,007\n"
            "empty polls       1,599,760        2,000,005\n");
}

TEST(Report, JsonSummaryKeys) {
  const auto o = options(true, false);
  const std::string line = printed([&](std::FILE* out) {
    Reporter(o, "xdp-drv", out).summary({sample(3, 1.5), sample(20000, 2.75)}, 3.25);
  });
  EXPECT_EQ(
      line,
      "{\"summary\":true,\"benchmark\":\"l2fwd\",\"interface\":\"veth0\",\"mode\":\"xdp-drv\","
      "\"seconds\":3.250,\"sockets\":2,\"rx_pps\":615478,\"tx_pps\":615478,"
      "\"rx_bytes_ps\":615482,\"tx_bytes_ps\":615483,\"rx_packets\":2000302,"
      "\"tx_packets\":2000304,\"rx_bytes\":2000318,\"tx_bytes\":2000320,\"refused_descs\":2000312,"
      "\"syscalls\":4000614,\"empty_polls\":2000310,\"ledger\":false}\n");
}

}  // namespace
