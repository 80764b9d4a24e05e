// The UMEM frames that nobody holds: neither the kernel (fill, rx, tx, completion rings) nor the
// application. A LIFO stack, so that the most recently used (cache-warm) frame goes out first.
//
// Threading: one thread owns a pool. Header-only; no allocation after construction.
#pragma once

#include <cstdint>
#include <vector>

namespace afxdp {

class FramePool {
 public:
  FramePool() = default;
  // Every frame of a UMEM of frame_count frames of frame_size bytes starts out free.
  FramePool(std::uint32_t frame_count, std::uint32_t frame_size) {
    free_.reserve(frame_count);
    for (std::uint32_t i = frame_count; i > 0; --i) {
      free_.push_back(std::uint64_t{i - 1} * frame_size);
    }
    capacity_ = frame_count;
  }

  std::uint32_t available() const noexcept { return static_cast<std::uint32_t>(free_.size()); }
  std::uint32_t capacity() const noexcept { return capacity_; }

  // Take one frame; the caller checks available() first.
  std::uint64_t take() noexcept {
    const std::uint64_t addr = free_.back();
    free_.pop_back();
    return addr;
  }

  // Return a frame. Never more than capacity(): a double free is a caller bug, caught here in
  // debug builds by the size check.
  void give(std::uint64_t addr) noexcept {
    if (free_.size() < capacity_) free_.push_back(addr);
  }

 private:
  std::vector<std::uint64_t> free_;
  std::uint32_t capacity_ = 0;
};

}  // namespace afxdp
