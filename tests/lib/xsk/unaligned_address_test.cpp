// Descriptor addresses in both UMEM modes, decoded the way the kernel encodes them: in
// unaligned-chunk mode an rx address is base | offset << 48 (xp_get_handle), a fill address is
// the base (low 48 bits), a completion is the tx address as submitted. No kernel needed.
#include <afxdp/xsk/umem.hpp>

#include <gtest/gtest.h>

#include <cstdint>

using afxdp::chunk_mask;
using afxdp::resolve_address;
using afxdp::UmemConfig;

namespace {

constexpr std::uint64_t shift = 48;

// What the kernel writes on the rx ring for a chunk lent at `base`, data `offset` bytes in.
constexpr std::uint64_t rx_address(std::uint64_t base, std::uint64_t offset) {
  return base | offset << shift;
}

UmemConfig unaligned(std::uint32_t frame_size) {
  return {.frame_size = frame_size, .unaligned_chunks = true, .hugepages = true};
}

}  // namespace

TEST(UnalignedAddress, AlignedAddressesAreAreaOffsetsAsTheyAre) {
  EXPECT_EQ(resolve_address(0, false), 0U);
  EXPECT_EQ(resolve_address(4096 * 7 + 256, false), 4096U * 7 + 256);
  // Upper bits mean nothing in aligned mode: the address stays out of range and is refused.
  const std::uint64_t odd = rx_address(4096, 256);
  EXPECT_EQ(resolve_address(odd, false), odd);
  EXPECT_FALSE(afxdp::area_contains(4096ULL * 4096, resolve_address(odd, false), 64));
}

TEST(UnalignedAddress, UnalignedRxAddressesAddTheOffsetToTheBase) {
  EXPECT_EQ(resolve_address(rx_address(std::uint64_t{3000} * 5, 256), true), 3000U * 5 + 256);
  EXPECT_EQ(resolve_address(rx_address(0, 256), true), 256U);
  EXPECT_EQ(resolve_address(rx_address(12345, 0xFFFF), true), 12345U + 0xFFFF);
  // A plain address (offset 0: what txpush submits, so what its completions carry) is itself.
  EXPECT_EQ(resolve_address(std::uint64_t{3000} * 9, true), 3000U * 9);
}

TEST(UnalignedAddress, TheLargestUnalignedAddressDoesNotWrap) {
  const std::uint64_t top = ~std::uint64_t{0};
  const std::uint64_t resolved = resolve_address(top, true);
  EXPECT_EQ(resolved, ((std::uint64_t{1} << shift) - 1) + 0xFFFF);
  EXPECT_FALSE(afxdp::area_contains(4096ULL * 4096, resolved, 64));
}

TEST(UnalignedAddress, ChunkMaskGivesTheFillAddressBack) {
  // Aligned: the frame's start, whatever the offset inside it.
  EXPECT_EQ((4096 * 3 + 256) & chunk_mask({.frame_size = 4096}), 4096U * 3);
  EXPECT_EQ((2048 * 3 + 2047) & chunk_mask({.frame_size = 2048}), 2048U * 3);
  EXPECT_EQ((std::uint64_t{2048} * 3) & chunk_mask({.frame_size = 2048}), 2048U * 3);
  // Unaligned: the base the chunk was lent at, not rounded to anything, for any frame size.
  for (const std::uint32_t size : {2048U, 3000U, 4096U, 9000U}) {
    SCOPED_TRACE(size);
    const std::uint64_t mask = chunk_mask(unaligned(size));
    for (std::uint64_t i : {0ULL, 1ULL, 7ULL, 1023ULL}) {
      const std::uint64_t base = i * size;
      EXPECT_EQ(rx_address(base, 256) & mask, base);
      EXPECT_EQ(rx_address(base, 0xFFFF) & mask, base);
      EXPECT_EQ(base & mask, base);  // a completion of a plain tx address
      // The same rx address resolves to the data, past the chunk's start.
      EXPECT_EQ(resolve_address(rx_address(base, 256), true), base + 256);
    }
  }
  // A base that is not a multiple of the frame size (chunks anywhere) comes back unchanged.
  EXPECT_EQ(rx_address(1234567, 320) & chunk_mask(unaligned(2048)), 1234567U);
}
