// Descriptors from the kernel are not trusted: the tool's loops refuse one whose address or
// length falls outside the UMEM (Worker::refuse) through area_contains. Hostile values here.
#include <afxdp/umem.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>

using afxdp::area_contains;

namespace {
constexpr std::uint64_t size = 4096ULL * 4096;  // a default UMEM: 4096 frames of 4096 bytes
}

TEST(DescriptorBounds, FramesInsideTheAreaAreAccepted) {
  EXPECT_TRUE(area_contains(size, 0, 64));
  EXPECT_TRUE(area_contains(size, size - 4096 + 256, 3840));  // the last frame, past headroom
  EXPECT_TRUE(area_contains(size, size - 64, 64));            // ends exactly at the end
  EXPECT_TRUE(area_contains(size, size, 0));                  // empty, at the end
}

TEST(DescriptorBounds, AnythingReachingPastTheEndIsRefused) {
  EXPECT_FALSE(area_contains(size, size - 63, 64));
  EXPECT_FALSE(area_contains(size, size, 1));
  EXPECT_FALSE(area_contains(size, size + 1, 0));
  EXPECT_FALSE(area_contains(size, 0, std::numeric_limits<std::uint32_t>::max()));
}

TEST(DescriptorBounds, AddressesThatWouldWrapAreRefused) {
  const std::uint64_t top = std::numeric_limits<std::uint64_t>::max();
  EXPECT_FALSE(area_contains(size, top, 64));  // addr + len wraps to 63
  EXPECT_FALSE(area_contains(size, top - 10, 64));
  EXPECT_FALSE(area_contains(size, std::uint64_t{1} << 48, 64));  // an unaligned-mode offset
}
