// EXPECT_THROW_WITH's own test: each way a statement can miss fails, with a message saying how.
#include "expect_throw.hpp"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

namespace {

using afxdp::test::throws_with;

template <class Statement>
std::string miss(const Statement& statement) {
  const ::testing::AssertionResult result =
      throws_with<std::invalid_argument>(statement, "ring_size", "statement", "invalid_argument");
  return result ? "passed" : result.message();
}

TEST(ExpectThrowWith, PassesOnTheTypeWithTheTextInOneLine) {
  EXPECT_EQ(miss([] { throw std::invalid_argument("ring_size: 1000 must be a power of two"); }),
            "passed");
  EXPECT_THROW_WITH(throw std::invalid_argument("ring_size: 7"), std::logic_error, "ring_size");
}

TEST(ExpectThrowWith, FailsSayingWhatHappenedInstead) {
  EXPECT_EQ(miss([] {}), "statement threw nothing, not invalid_argument with \"ring_size\"");
  EXPECT_EQ(miss([] { throw std::runtime_error("ring_size"); }),
            "statement threw another exception: \"ring_size\", not invalid_argument");
  EXPECT_EQ(miss([] { throw 7; }),
            "statement threw something that is no std::exception, not invalid_argument");
  EXPECT_EQ(miss([] { throw std::invalid_argument("frame_size: 3000"); }),
            "statement threw invalid_argument \"frame_size: 3000\", without \"ring_size\"");
  EXPECT_EQ(miss([] { throw std::invalid_argument("ring_size: 1000\nmore"); }),
            "statement threw invalid_argument \"ring_size: 1000\nmore\", more than one line");
}

}  // namespace
