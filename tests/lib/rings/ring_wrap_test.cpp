// Free-running u32 indices: every batch size from 1 to the ring size, many times around the ring,
// with the indices starting just below UINT32_MAX so that they wrap through zero mid-test.
#include <afxdp/testing/fake_ring.hpp>

#include <afxdp/rings/ring.hpp>
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <span>
#include <vector>

namespace {

using Kernel = afxdp::testing::FakeRing<std::uint64_t>;

constexpr std::uint32_t u32_max = std::numeric_limits<std::uint32_t>::max();

// design.md example 6: reserve 4, write, nothing visible before submit, submit, the kernel
// consumes exactly those 4; the indices go UINT32_MAX - 3 .. UINT32_MAX, then wrap to 0.
TEST(RingWrap, FourEntriesAcrossTheWrap) {
  Kernel kernel(8, u32_max - 3);
  afxdp::FillRing fill(kernel.layout());
  ASSERT_EQ(fill.reserve(4), 4U);
  for (std::uint32_t i = 0; i < 4; ++i) fill.at(i) = 0xa000U + i;
  EXPECT_EQ(kernel.available(), 0U);
  fill.submit(4);
  EXPECT_EQ(kernel.producer(), 0U) << "UINT32_MAX - 3 + 4 wraps to 0";
  EXPECT_EQ(kernel.consume(8), (std::vector<std::uint64_t>{0xa000, 0xa001, 0xa002, 0xa003}));
  EXPECT_EQ(kernel.consumer(), 0U);
  EXPECT_EQ(fill.outstanding(), 0U);
  // And once more, now entirely past the wrap.
  ASSERT_EQ(fill.reserve(8), 8U);
  fill.submit(8);
  EXPECT_EQ(kernel.consume(8).size(), 8U);
}

// RingCursor steps from the end of the array to its start inside one reserved window.
TEST(RingWrap, ACursorFillsAWindowAcrossTheArraysEnd) {
  Kernel kernel(8, 6);  // slots 6, 7, then 0, 1
  afxdp::FillRing fill(kernel.layout());
  ASSERT_EQ(fill.reserve(4), 4U);
  afxdp::RingCursor<std::uint64_t> cursor(fill.reserved());
  for (std::uint64_t i = 0; i < 4; ++i) cursor.put(0xb000U + i);
  fill.submit(4);
  EXPECT_EQ(kernel.consume(8), (std::vector<std::uint64_t>{0xb000, 0xb001, 0xb002, 0xb003}));
}

// index_of names each entry of a window by its place in it, also past the array's end (how a
// loop over parts() that holds a pointer tells how far it got).
TEST(RingWrap, IndexOfCountsAcrossTheArraysEnd) {
  Kernel kernel(8, u32_max - 1);  // slots 6, 7, then 0, 1, 2
  afxdp::FillRing fill(kernel.layout());
  ASSERT_EQ(fill.reserve(5), 5U);
  const afxdp::RingWindow<std::uint64_t> window = fill.reserved();
  std::uint32_t expected = 0;
  for (const std::span<std::uint64_t> part : window.parts()) {
    for (std::uint64_t& entry : part) {
      EXPECT_EQ(window.index_of(&entry), expected);
      EXPECT_EQ(&window[expected], &entry);
      ++expected;
    }
  }
  EXPECT_EQ(expected, 5U);
}

TEST(RingWrap, ConsumerAcrossTheWrap) {
  Kernel kernel(8, u32_max - 3);
  afxdp::CompletionRing comp(kernel.layout());
  const std::vector<std::uint64_t> sent{1, 2, 3, 4, 5, 6, 7, 8};
  ASSERT_EQ(kernel.produce(sent), 8U);
  ASSERT_EQ(comp.peek(8), 8U);
  for (std::uint32_t i = 0; i < 8; ++i) EXPECT_EQ(comp.at(i), sent[i]);
  comp.release(8);
  EXPECT_EQ(kernel.consumer(), 4U);
  EXPECT_EQ(comp.refused_refreshes(), 0U);
}

class EveryBatchSize : public ::testing::TestWithParam<std::uint32_t> {};

// Producer side: batches of n through a ring of 64, enough rounds to pass the wrap several
// times, every value checked on the kernel side.
TEST_P(EveryBatchSize, ProducerToKernel) {
  constexpr std::uint32_t size = 64;
  const std::uint32_t n = GetParam();
  Kernel kernel(size, u32_max - 100);
  afxdp::FillRing fill(kernel.layout());
  std::uint64_t next_written = 0;
  std::uint64_t next_expected = 0;
  for (int round = 0; round < 3 * static_cast<int>(size); ++round) {
    ASSERT_EQ(fill.reserve(n), n) << "the kernel drained everything last round";
    for (std::uint32_t i = 0; i < n; ++i) fill.at(i) = next_written++;
    fill.submit(n);
    for (const std::uint64_t v : kernel.consume(size)) ASSERT_EQ(v, next_expected++);
  }
  EXPECT_EQ(next_expected, next_written);
}

// Consumer side: the kernel produces n at a time, we read them in order.
TEST_P(EveryBatchSize, KernelToConsumer) {
  constexpr std::uint32_t size = 64;
  const std::uint32_t n = GetParam();
  Kernel kernel(size, u32_max - 100);
  afxdp::CompletionRing comp(kernel.layout());
  std::uint64_t next_written = 0;
  std::uint64_t next_expected = 0;
  std::vector<std::uint64_t> batch(n);
  for (int round = 0; round < 3 * static_cast<int>(size); ++round) {
    for (auto& v : batch) v = next_written++;
    ASSERT_EQ(kernel.produce(batch), n) << "we released everything last round";
    ASSERT_EQ(comp.peek(size), n);
    for (std::uint32_t i = 0; i < n; ++i) ASSERT_EQ(comp.at(i), next_expected++);
    comp.release(n);
  }
  EXPECT_EQ(comp.refused_refreshes(), 0U);
}

std::vector<std::uint32_t> one_to_ring_size() {
  std::vector<std::uint32_t> v;
  for (std::uint32_t n = 1; n <= 64; ++n) v.push_back(n);
  return v;
}

INSTANTIATE_TEST_SUITE_P(OneToRingSize, EveryBatchSize, ::testing::ValuesIn(one_to_ring_size()));

}  // namespace
