// XdpStatistics and QueueStats arithmetic: every counter, the kernel's nested in QueueStats too.
#include <afxdp/queue_stats.hpp>

#include <gtest/gtest.h>

#include <cstdint>

namespace {

// Each counter a different value: a counter skipped or paired with another shows.
template <class Stats>
Stats numbered(std::uint64_t first) {
  Stats s{};
  for (const auto& c : Stats::counters) s.*c.member = first++;
  return s;
}

TEST(Statistics, XdpStatisticsSubtractsAndAddsEveryCounter) {
  const auto a = numbered<afxdp::XdpStatistics>(100);
  const auto b = numbered<afxdp::XdpStatistics>(10);
  for (const auto& c : afxdp::XdpStatistics::counters) {
    EXPECT_EQ((a - b).*c.member, 90U) << c.name;
    EXPECT_EQ((a + b).*c.member, a.*c.member + b.*c.member) << c.name;
  }
  EXPECT_EQ(a - b + b, a);
  EXPECT_EQ((a - b).tx_ring_empty_descs, 90U);  // the list's last, named
}

TEST(Statistics, QueueStatsSubtractsAndAddsEveryCounterAndTheKernels) {
  afxdp::QueueStats a = numbered<afxdp::QueueStats>(1000);
  a.kernel = numbered<afxdp::XdpStatistics>(500);
  afxdp::QueueStats b = numbered<afxdp::QueueStats>(1);
  b.kernel = numbered<afxdp::XdpStatistics>(7);
  const afxdp::QueueStats d = a - b;
  for (const auto& c : afxdp::QueueStats::counters) EXPECT_EQ(d.*c.member, 999U) << c.name;
  EXPECT_EQ(d.kernel, a.kernel - b.kernel);
  EXPECT_EQ(d.kernel.rx_dropped, 493U);
  EXPECT_EQ(d + b, a);
  EXPECT_EQ(d.invalid_chains, 999U);  // after `kernel` in the struct, still in the list
}

}  // namespace
