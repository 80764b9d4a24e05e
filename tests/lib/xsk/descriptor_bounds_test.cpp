// Descriptors from the kernel are not trusted: the tool's loops refuse one whose address or
// length falls outside the UMEM (Worker::refuse) through area_contains. Hostile values here.
#include <afxdp/xsk/umem.hpp>

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

// UmemView::trusted is the raw loops' question: the bounds above in a checked build, nothing in
// Release. This file is built both ways (descriptor_bounds_test and
// descriptor_bounds_release_test, the latter without AFXDP_RING_CHECKS), so each build's answer
// is pinned: a check that crept into Release, or fell out of the checked build, fails here.
TEST(DescriptorBounds, TrustedChecksInACheckedBuildOnly) {
  const afxdp::UmemView view(nullptr, size, {.frame_count = 4096, .frame_size = 4096});
  const xdp_desc inside{.addr = 256, .len = 64, .options = 0};
  const xdp_desc past_the_end{.addr = size - 63, .len = 64, .options = 0};
  EXPECT_TRUE(view.trusted(inside));
#ifdef AFXDP_RING_CHECKS
  static_assert(afxdp::detail::checks_kernel);
  EXPECT_FALSE(view.trusted(past_the_end)) << "a checked build checks what the kernel writes";
#else
  static_assert(!afxdp::detail::checks_kernel);
  EXPECT_TRUE(view.trusted(past_the_end)) << "Release trusts the kernel: no check per frame";
#endif
}
