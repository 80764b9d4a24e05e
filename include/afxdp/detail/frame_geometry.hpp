// Where a queue's frames are in the UMEM, as plain values that a loop copies once per batch (see
// RingWindow in ring.hpp for why): which descriptor address names one of the queue's frames, and
// where in it the packet starts. Internal: Queue's loops use it.
#pragma once

#include <afxdp/rings/ring.hpp>
#include <linux/if_xdp.h>

#include <cstddef>
#include <cstdint>

namespace afxdp::detail {

struct FrameGeometry {
  std::byte* area = nullptr;
  std::uint64_t chunk_mask = 0;  // address -> the frame's start (its chunk)
  std::uint64_t first = 0;       // the queue's first frame
  std::uint64_t span = 0;        // frames * frame_size
  std::uint32_t frame_size = 0;
  // log2(frame_size), rounded down: frame starts that far apart have distinct indices, also when
  // unaligned chunks make the size no power of two (then up to twice as many indices as frames).
  std::uint32_t frame_shift = 0;
  bool unaligned = false;

  [[nodiscard]] std::uint64_t chunk(std::uint64_t address) const noexcept {
    return address & chunk_mask;
  }
  // The packet's offset in its frame: unaligned, the address's upper 16 bits
  // (XSK_UNALIGNED_BUF_OFFSET_SHIFT); aligned, what the chunk's mask left out of the address (an
  // aligned address with upper bits set has a chunk that owns_as() refuses).
  template <bool Unaligned>
  [[nodiscard]] std::uint64_t offset_in(std::uint64_t address, std::uint64_t chunk) const noexcept {
    if constexpr (Unaligned) return address >> XSK_UNALIGNED_BUF_OFFSET_SHIFT;
    return address - chunk;
  }
  // Is `chunk` one of this queue's frames, and are `length` bytes from `offset` inside it?
  // Unaligned chunks are the queue's only at a whole frame's start (frames may be any size).
  template <bool Unaligned>
  [[nodiscard]] bool owns_as(std::uint64_t chunk, std::uint64_t offset,
                             std::uint32_t length) const noexcept {
    const std::uint64_t at = chunk - first;
    if (at >= span || offset + length > frame_size) [[unlikely]]
      return false;
    return !Unaligned || at % frame_size == 0;
  }
  // The frame start nearest to `chunk` (unaligned mode, where frames may be any size). Frames
  // start at multiples of the frame size from the UMEM's start, in every queue's range (each
  // queue's first frame is one of them), so a frame lent by another queue rounds the same way.
  [[nodiscard]] std::uint64_t nearest_frame(std::uint64_t chunk) const noexcept {
    const std::uint64_t size = frame_size;
    return (chunk + size / 2) / size * size;
  }
  // The frame's slot in a per-frame table (Queue's on-tx marks).
  [[nodiscard]] std::uint64_t index(std::uint64_t chunk) const noexcept {
    return (chunk - first) >> frame_shift;
  }
};

}  // namespace afxdp::detail
