// The public big-endian helpers: network byte order at any offset, and nothing read or written
// past the span, at every offset up to and beyond its end (offsets near SIZE_MAX included).
#include <afxdp/net/bytes.hpp>

#include <gtest/gtest.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>

namespace {

using afxdp::net::load_be16;
using afxdp::net::load_be32;
using afxdp::net::store_be16;
using afxdp::net::store_be32;

TEST(NetBytes, StoresInNetworkOrderAtAnyOffset) {
  std::array<std::byte, 7> b{};
  ASSERT_TRUE(store_be32(b, 1, 0x0a000001));  // odd: no alignment asked
  ASSERT_TRUE(store_be16(b, 5, 0x1f90));
  const std::array<std::byte, 7> want{std::byte{0}, std::byte{0x0a}, std::byte{0},   std::byte{0},
                                      std::byte{1}, std::byte{0x1f}, std::byte{0x90}};
  EXPECT_EQ(b, want);
  EXPECT_EQ(load_be32(b, 1), 0x0a000001u);
  EXPECT_EQ(load_be16(b, 5), 0x1f90u);
  EXPECT_EQ(load_be16(b, 0), 0x000au);
}

TEST(NetBytes, RefusesAFieldPastTheEndAndWritesNothing) {
  std::array<std::byte, 6> b{};
  b.fill(std::byte{0xee});
  const std::array<std::byte, 6> before = b;
  for (std::size_t at = 0; at <= b.size() + 2; ++at) {
    EXPECT_EQ(store_be16(b, at, 0x1234), at + 2 <= b.size()) << at;
    EXPECT_EQ(load_be16(b, at).has_value(), at + 2 <= b.size()) << at;
    EXPECT_EQ(load_be32(b, at).has_value(), at + 4 <= b.size()) << at;
  }
  b = before;
  for (std::size_t at = 3; at <= b.size() + 2; ++at) EXPECT_FALSE(store_be32(b, at, 1)) << at;
  EXPECT_EQ(b, before);
  // An offset whose sum with the width would wrap is refused too.
  const std::size_t huge = std::numeric_limits<std::size_t>::max() - 1;
  EXPECT_FALSE(store_be32(b, huge, 1));
  EXPECT_FALSE(load_be16(b, huge).has_value());
  EXPECT_EQ(b, before);
  EXPECT_FALSE(load_be16(std::span<const std::byte>{}, 0).has_value());
}

}  // namespace
