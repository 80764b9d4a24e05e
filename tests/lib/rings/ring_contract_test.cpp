// The ring verbs' debug checks (include/afxdp/rings/ring.hpp): a caller that reads outside the
// reserved or peeked window, or submits, releases or cancels more than it holds, stops at once with
// the broken rule on stderr. On in the dev preset (AFXDP_RING_CHECKS) and debug builds; a release
// build compiles them out, and these tests skip there.
#include <afxdp/testing/fake_ring.hpp>

#include <afxdp/rings/ring.hpp>
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

namespace {

using Kernel = afxdp::testing::FakeRing<std::uint64_t>;

#define SKIP_WITHOUT_RING_CHECKS()                                                     \
  if (!afxdp::detail::ring_checks) {                                                   \
    GTEST_SKIP() << "ring checks are compiled out (NDEBUG without AFXDP_RING_CHECKS)"; \
  }

TEST(ProducerRingContractDeathTest, AtOutsideTheReservedWindowStops) {
  SKIP_WITHOUT_RING_CHECKS();
  Kernel kernel(8);
  afxdp::FillRing fill(kernel.layout());
  ASSERT_EQ(fill.reserve(2), 2U);
  fill.at(1) = 1;  // inside: fine
  EXPECT_DEATH(fill.at(2) = 1, "ring at: contract broken: i < reserved_ - published_");
}

TEST(ProducerRingContractDeathTest, ACursorPutPastTheReservedWindowStops) {
  SKIP_WITHOUT_RING_CHECKS();
  Kernel kernel(8, 6);
  afxdp::FillRing fill(kernel.layout());
  ASSERT_EQ(fill.reserve(3), 3U);  // across the array's end
  afxdp::RingCursor<std::uint64_t> cursor(fill.reserved());
  for (std::uint64_t i = 0; i < 3; ++i) cursor.put(i);  // inside: fine
  EXPECT_DEATH(cursor.put(3), "ring put: contract broken: next_ != end_");
}

TEST(ProducerRingContractDeathTest, SubmitMoreThanReservedStops) {
  SKIP_WITHOUT_RING_CHECKS();
  Kernel kernel(8);
  afxdp::TxRing tx(kernel.layout());
  ASSERT_EQ(tx.reserve(3), 3U);
  EXPECT_DEATH(tx.submit(4), "ring submit: contract broken");
  tx.submit(3);
  EXPECT_DEATH(tx.submit(1), "ring submit: contract broken") << "all three are already submitted";
}

TEST(ProducerRingContractDeathTest, CancelMoreThanReservedStops) {
  SKIP_WITHOUT_RING_CHECKS();
  Kernel kernel(8);
  afxdp::FillRing fill(kernel.layout());
  ASSERT_EQ(fill.reserve(4), 4U);
  fill.submit(2);
  EXPECT_DEATH(fill.cancel(3), "ring cancel: contract broken") << "only 2 are still reserved";
  fill.cancel(2);
}

TEST(ConsumerRingContractDeathTest, AtOutsideThePeekedWindowStops) {
  SKIP_WITHOUT_RING_CHECKS();
  Kernel kernel(8);
  ASSERT_EQ(kernel.produce(std::vector<std::uint64_t>{10, 11, 12}), 3U);
  afxdp::CompletionRing completion(kernel.layout());
  ASSERT_EQ(completion.peek(2), 2U);
  EXPECT_EQ(completion.at(1), 11U);
  EXPECT_DEATH((void)completion.at(2), "ring at: contract broken: i < peeked_ - released_")
      << "entry 2 is published but not peeked";
}

TEST(ConsumerRingContractDeathTest, ReleaseOrCancelMoreThanPeekedStops) {
  SKIP_WITHOUT_RING_CHECKS();
  Kernel kernel(8);
  ASSERT_EQ(kernel.produce(std::vector<std::uint64_t>{10, 11, 12}), 3U);
  afxdp::CompletionRing completion(kernel.layout());
  ASSERT_EQ(completion.peek(2), 2U);
  EXPECT_DEATH(completion.release(3), "ring release: contract broken");
  EXPECT_DEATH(completion.cancel(3), "ring cancel: contract broken");
  completion.release(2);
  EXPECT_DEATH(completion.release(1), "ring release: contract broken") << "nothing is peeked";
}

}  // namespace
