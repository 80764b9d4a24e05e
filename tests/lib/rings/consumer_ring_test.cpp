// ConsumerRing (rx, completion) against a fake kernel that produces: peek returns 0..max,
// release hands slots back, cancel makes entries visible again, and a hostile producer index
// is refused rather than read through.
#include <afxdp/testing/fake_ring.hpp>

#include <afxdp/rings/ring.hpp>
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <vector>

namespace {

using afxdp::CompletionRing;
using afxdp::RxRing;
using Kernel = afxdp::testing::FakeRing<std::uint64_t>;

std::vector<std::uint64_t> iota(std::uint64_t first, std::uint32_t count) {
  std::vector<std::uint64_t> v;
  for (std::uint32_t i = 0; i < count; ++i) v.push_back(first + i);
  return v;
}

TEST(ConsumerRing, PeekReturnsZeroToMax) {
  Kernel kernel(8);
  CompletionRing comp(kernel.layout());
  EXPECT_EQ(comp.peek(4), 0U) << "empty ring";
  ASSERT_EQ(kernel.produce(iota(10, 3)), 3U);
  EXPECT_EQ(comp.peek(2), 2U) << "capped at max";
  EXPECT_EQ(comp.peek(8), 1U) << "only what is left";
  EXPECT_EQ(comp.peek(8), 0U);
}

TEST(ConsumerRing, ReadsWhatTheKernelProducedInOrder) {
  Kernel kernel(8);
  CompletionRing comp(kernel.layout());
  ASSERT_EQ(kernel.produce(iota(500, 5)), 5U);
  ASSERT_EQ(comp.peek(8), 5U);
  for (std::uint32_t i = 0; i < 5; ++i) EXPECT_EQ(comp.at(i), 500U + i);
}

TEST(ConsumerRing, ReleaseHandsSlotsBackToTheKernel) {
  Kernel kernel(4);
  CompletionRing comp(kernel.layout());
  ASSERT_EQ(kernel.produce(iota(0, 4)), 4U);
  EXPECT_EQ(kernel.free_slots(), 0U);
  ASSERT_EQ(comp.peek(4), 4U);
  EXPECT_EQ(kernel.free_slots(), 0U) << "peek alone frees nothing";
  comp.release(3);
  EXPECT_EQ(kernel.consumer(), 3U);
  EXPECT_EQ(kernel.free_slots(), 3U);
  // at() now indexes the peeked entries that are still unreleased.
  EXPECT_EQ(comp.at(0), 3U);
}

TEST(ConsumerRing, CancelledEntriesAreSeenAgain) {
  Kernel kernel(8);
  CompletionRing comp(kernel.layout());
  ASSERT_EQ(kernel.produce(iota(20, 6)), 6U);
  ASSERT_EQ(comp.peek(6), 6U);
  comp.release(2);
  comp.cancel(4);
  EXPECT_EQ(kernel.consumer(), 2U) << "cancel does not touch the shared consumer word";
  ASSERT_EQ(comp.peek(8), 4U);
  for (std::uint32_t i = 0; i < 4; ++i) EXPECT_EQ(comp.at(i), 22U + i);
}

TEST(ConsumerRing, NeedsWakeupFollowsTheFlagsWord) {
  afxdp::testing::FakeRing<xdp_desc> kernel(8);
  RxRing rx(kernel.layout());
  EXPECT_FALSE(rx.needs_wakeup());
  kernel.set_need_wakeup(true);
  EXPECT_TRUE(rx.needs_wakeup());
  kernel.set_need_wakeup(false);
  EXPECT_FALSE(rx.needs_wakeup());
}

TEST(ConsumerRing, RxDescriptorsArriveWhole) {
  afxdp::testing::FakeRing<xdp_desc> kernel(4);
  RxRing rx(kernel.layout());
  const std::vector<xdp_desc> sent{{.addr = 256, .len = 64, .options = 0},
                                   {.addr = 4352, .len = 1500, .options = 0}};
  ASSERT_EQ(kernel.produce(sent), 2U);
  ASSERT_EQ(rx.peek(64), 2U);
  EXPECT_EQ(rx.at(0).addr, 256U);
  EXPECT_EQ(rx.at(0).len, 64U);
  EXPECT_EQ(rx.at(1).addr, 4352U);
  EXPECT_EQ(rx.at(1).len, 1500U);
}

// --- A hostile peer: the producer index is never trusted. ---

TEST(ConsumerRing, ProducerMoreThanARingAheadIsRefused) {
  constexpr std::uint32_t start = std::numeric_limits<std::uint32_t>::max() - 3;
  Kernel kernel(8, start);
  CompletionRing comp(kernel.layout());
  ASSERT_EQ(kernel.produce(iota(1, 2)), 2U);
  ASSERT_EQ(comp.peek(1), 1U);
  kernel.force_producer(start + 9);  // one past a full ring
  EXPECT_EQ(comp.peek(8), 1U) << "only the entry published honestly";
  EXPECT_EQ(comp.at(1), 2U) << "at() counts from the first unreleased entry";
  EXPECT_EQ(comp.refused_refreshes(), 1U);
  EXPECT_EQ(comp.peek(8), 0U) << "still nothing new";
  EXPECT_EQ(comp.refused_refreshes(), 2U);
}

TEST(ConsumerRing, ProducerExactlyARingAheadIsAccepted) {
  Kernel kernel(8);
  CompletionRing comp(kernel.layout());
  ASSERT_EQ(kernel.produce(iota(0, 8)), 8U);
  EXPECT_EQ(comp.peek(16), 8U);
  EXPECT_EQ(comp.refused_refreshes(), 0U);
}

TEST(ConsumerRing, ProducerFarAheadIsNeverReadThrough) {
  Kernel kernel(8);
  CompletionRing comp(kernel.layout());
  kernel.force_producer(0x80000000U);
  EXPECT_EQ(comp.peek(std::numeric_limits<std::uint32_t>::max()), 0U);
  EXPECT_EQ(comp.refused_refreshes(), 1U);
}

TEST(ConsumerRing, ProducerBehindOurConsumerIsRefused) {
  Kernel kernel(8);
  CompletionRing comp(kernel.layout());
  ASSERT_EQ(kernel.produce(iota(0, 4)), 4U);
  ASSERT_EQ(comp.peek(4), 4U);
  comp.release(4);
  kernel.force_producer(2);  // behind what we already released
  EXPECT_EQ(comp.peek(8), 0U);
  EXPECT_EQ(comp.refused_refreshes(), 1U);
}

TEST(ConsumerRing, ProducerMovedBackBehindWhatWePeekedIsRefused) {
  // Between our released index and what we have already peeked: accepting it would make the
  // ready count negative, i.e. about 2^32, and peek would hand out slots nobody wrote.
  Kernel kernel(8);
  CompletionRing comp(kernel.layout());
  ASSERT_EQ(kernel.produce(iota(0, 6)), 6U);
  ASSERT_EQ(comp.peek(6), 6U);
  kernel.force_producer(3);
  EXPECT_EQ(comp.peek(8), 0U);
  EXPECT_EQ(comp.refused_refreshes(), 1U);
}

TEST(ConsumerRing, ProducerSteppingBackAheadOfWhatWePeekedIsHarmless) {
  // Entries 0..5 were published, we peeked 0..1. A producer that steps back to 4 still covers
  // only slots it wrote: we may read 2..3 and never see 4..5 until it publishes them again.
  Kernel kernel(8);
  CompletionRing comp(kernel.layout());
  ASSERT_EQ(kernel.produce(iota(0, 6)), 6U);
  ASSERT_EQ(comp.peek(2), 2U);
  comp.release(2);
  kernel.force_producer(4);
  ASSERT_EQ(comp.peek(8), 2U) << "never more than the entries published and not yet peeked";
  EXPECT_EQ(comp.at(0), 2U);
  EXPECT_EQ(comp.at(1), 3U);
}

}  // namespace
