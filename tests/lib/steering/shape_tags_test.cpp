// The steering shape tags (issue 41 item 5): after 2^26 new shapes the tag wrapped to 0, which the
// program reads as "no shape": the rule was listed and never matched.
#include <afxdp/detail/shape_tags.hpp>

#include <gtest/gtest.h>

#include <set>

namespace {

using afxdp::detail::ShapeTags;

TEST(ShapeTags, NeverZeroAcrossTheWrap) {
  ShapeTags tags(ShapeTags::generations - 3);
  std::set<std::uint32_t> seen;
  for (int i = 0; i < 8; ++i) {
    const std::uint32_t tag = tags.next(0, false);
    EXPECT_NE(tag, 0U) << i;
    EXPECT_EQ(tag & (ShapeTags::slots - 1), 0U);
    EXPECT_EQ(tag & ShapeTags::wide_bit, 0U);
    EXPECT_TRUE(seen.insert(tag).second) << "tag " << tag << " given twice within 8";
  }
}

TEST(ShapeTags, KeepSlotAndWidthAndCountPerSlot) {
  ShapeTags tags(ShapeTags::generations - 1);
  const std::uint32_t last = tags.next(5, true);
  EXPECT_EQ(last, ((ShapeTags::generations - 1) << ShapeTags::shift) | ShapeTags::wide_bit | 5U);
  EXPECT_EQ(tags.next(5, false), (1U << ShapeTags::shift) | 5U);  // wrapped: generation 1, not 0
  EXPECT_EQ(tags.next(0, false), (ShapeTags::generations - 1) << ShapeTags::shift);  // its own
  EXPECT_EQ(tags.next(0, false), 1U << ShapeTags::shift);
  EXPECT_EQ(ShapeTags().next(31, true), (1U << ShapeTags::shift) | ShapeTags::wide_bit | 31U);
}

// A slot's tag comes back only after every other generation: walk one slot the whole way.
TEST(ShapeTags, ASlotReusesATagOnlyAfterAFullCycle) {
  ShapeTags tags;
  const std::uint32_t first = tags.next(3, false);
  std::uint32_t count = 1;
  while (tags.next(3, false) != first) ++count;
  EXPECT_EQ(count, ShapeTags::generations - 1);
}

}  // namespace
