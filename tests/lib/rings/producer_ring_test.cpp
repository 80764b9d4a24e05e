// ProducerRing (fill, tx) against a fake kernel that consumes: reserve is all or nothing,
// nothing is visible before submit, submit publishes exactly n, cancel gives slots back.
#include <afxdp/testing/fake_ring.hpp>

#include <afxdp/rings/ring.hpp>
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>

namespace {

using afxdp::FillRing;
using afxdp::TxRing;
using Kernel = afxdp::testing::FakeRing<std::uint64_t>;

constexpr std::uint32_t near_wrap = std::numeric_limits<std::uint32_t>::max() - 3;

TEST(ProducerRing, ReserveIsAllOrNothing) {
  Kernel kernel(8);
  FillRing fill(kernel.layout());
  EXPECT_EQ(fill.reserve(9), 0U) << "more than the ring holds";
  EXPECT_EQ(fill.reserve(5), 5U);
  EXPECT_EQ(fill.reserve(4), 0U) << "only 3 slots are left: nothing is reserved";
  EXPECT_EQ(fill.reserve(3), 3U);
  EXPECT_EQ(fill.reserve(1), 0U);
  EXPECT_EQ(fill.free_slots(1), 0U);
}

TEST(ProducerRing, NothingIsVisibleBeforeSubmit) {
  Kernel kernel(8, near_wrap);
  FillRing fill(kernel.layout());
  ASSERT_EQ(fill.reserve(4), 4U);
  for (std::uint32_t i = 0; i < 4; ++i) fill.at(i) = std::uint64_t{0x1000} * (i + 1);
  EXPECT_EQ(kernel.producer(), near_wrap);
  EXPECT_EQ(kernel.available(), 0U);
  EXPECT_TRUE(kernel.consume(8).empty());
}

TEST(ProducerRing, SubmitPublishesExactlyN) {
  Kernel kernel(8);
  FillRing fill(kernel.layout());
  ASSERT_EQ(fill.reserve(6), 6U);
  for (std::uint32_t i = 0; i < 6; ++i) fill.at(i) = 100U + i;
  fill.submit(2);
  EXPECT_EQ(kernel.producer(), 2U);
  EXPECT_EQ(kernel.consume(8), (std::vector<std::uint64_t>{100, 101}));
  // at() now indexes the reserved entries that are still unsubmitted.
  EXPECT_EQ(fill.at(0), 102U);
  fill.submit(4);
  EXPECT_EQ(kernel.producer(), 6U);
  EXPECT_EQ(kernel.consume(8), (std::vector<std::uint64_t>{102, 103, 104, 105}));
}

TEST(ProducerRing, CancelGivesBackTheLastReservedSlots) {
  Kernel kernel(8);
  FillRing fill(kernel.layout());
  ASSERT_EQ(fill.reserve(8), 8U);
  fill.at(0) = 7;
  fill.at(1) = 8;
  fill.cancel(6);
  fill.submit(2);
  EXPECT_EQ(kernel.consume(8), (std::vector<std::uint64_t>{7, 8}));
  // The 6 cancelled slots plus the 2 the kernel consumed are free again.
  EXPECT_EQ(fill.reserve(8), 8U);
}

TEST(ProducerRing, FreeSlotsAndOutstandingFollowTheKernel) {
  Kernel kernel(16);
  FillRing fill(kernel.layout());
  EXPECT_EQ(fill.free_slots(16), 16U);
  EXPECT_EQ(fill.outstanding(), 0U);
  ASSERT_EQ(fill.reserve(10), 10U);
  fill.submit(10);
  EXPECT_EQ(fill.outstanding(), 10U);
  EXPECT_EQ(fill.free_slots(1), 6U) << "enough cached room: no refresh needed";
  kernel.consume(4);
  // The cached count (6) satisfies 1 slot, so the ring need not look; asking for more than it
  // has cached makes it refresh and see the 4 the kernel released.
  EXPECT_EQ(fill.free_slots(16), 10U);
  EXPECT_EQ(fill.outstanding(), 6U);
  kernel.consume(16);
  EXPECT_EQ(fill.outstanding(), 0U);
}

TEST(ProducerRing, ReserveSucceedsOnceTheKernelConsumes) {
  Kernel kernel(4);
  FillRing fill(kernel.layout());
  ASSERT_EQ(fill.reserve(4), 4U);
  fill.submit(4);
  EXPECT_EQ(fill.reserve(1), 0U);
  kernel.consume(1);
  EXPECT_EQ(fill.reserve(2), 0U);
  EXPECT_EQ(fill.reserve(1), 1U);
}

TEST(ProducerRing, NeedsWakeupFollowsTheFlagsWord) {
  Kernel kernel(8);
  TxRing tx(kernel.layout());
  EXPECT_FALSE(tx.needs_wakeup());
  kernel.set_need_wakeup(true);
  EXPECT_TRUE(tx.needs_wakeup());
  kernel.set_need_wakeup(false);
  EXPECT_FALSE(tx.needs_wakeup());
}

TEST(ProducerRing, NoFlagsWordMeansNoWakeups) {
  Kernel kernel(8, 0, /*with_flags=*/false);
  TxRing tx(kernel.layout());
  EXPECT_FALSE(tx.needs_wakeup());
}

TEST(ProducerRing, TxDescriptorsArriveWhole) {
  afxdp::testing::FakeRing<xdp_desc> kernel(4, near_wrap);
  TxRing tx(kernel.layout());
  ASSERT_EQ(tx.reserve(3), 3U);
  for (std::uint32_t i = 0; i < 3; ++i)
    tx.at(i) = xdp_desc{.addr = __u64{4096} * i, .len = 60 + i, .options = 0};
  tx.submit(3);
  const auto got = kernel.consume(4);
  ASSERT_EQ(got.size(), 3U);
  for (std::uint32_t i = 0; i < 3; ++i) {
    EXPECT_EQ(got[i].addr, 4096U * i);
    EXPECT_EQ(got[i].len, 60 + i);
  }
}

// --- A hostile peer: the consumer index is never trusted. ---

TEST(ProducerRing, ConsumerClaimingUnpublishedEntriesIsRefused) {
  Kernel kernel(8, near_wrap);
  FillRing fill(kernel.layout());
  ASSERT_EQ(fill.reserve(8), 8U);
  fill.submit(8);
  kernel.force_consumer(near_wrap + 9);  // one entry beyond what we published
  EXPECT_EQ(fill.reserve(1), 0U) << "the ring is still full as far as an honest peer goes";
  EXPECT_EQ(fill.refused_refreshes(), 1U);
}

TEST(ProducerRing, ConsumerMovingBackCannotHandOutReservedSlots) {
  // All 8 slots are taken: 4 submitted and unconsumed, 4 reserved by us. A consumer index that
  // steps back must not make the free count negative (about 2^32) and let reserve() hand out
  // slots the kernel has not finished with.
  Kernel kernel(8);
  FillRing fill(kernel.layout());
  ASSERT_EQ(fill.reserve(8), 8U);
  fill.submit(8);
  ASSERT_EQ(kernel.consume(4).size(), 4U);
  ASSERT_EQ(fill.reserve(4), 4U);
  kernel.force_consumer(2);
  EXPECT_EQ(fill.reserve(1), 0U);
  EXPECT_LE(fill.free_slots(8), 8U);
  EXPECT_GE(fill.refused_refreshes(), 1U);
}

}  // namespace
