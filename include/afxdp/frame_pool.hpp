// The UMEM frames that nobody holds: neither the kernel (fill, rx, tx, completion rings) nor the
// application. A LIFO stack, so that the most recently used (cache-warm) frame goes out first.
//
// Threading: one thread owns a pool. Header-only; no allocation after construction.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace afxdp {

class FramePool {
 public:
  FramePool() = default;
  // frame_count frames of frame_size bytes from `first` on start out free; take() hands out the
  // lowest address first.
  FramePool(std::uint32_t frame_count, std::uint32_t frame_size, std::uint64_t first = 0) {
    free_.reserve(frame_count);
    for (std::uint32_t i = frame_count; i > 0; --i) {
      free_.push_back(first + std::uint64_t{i - 1} * frame_size);
    }
    capacity_ = frame_count;
  }

  [[nodiscard]] std::uint32_t available() const noexcept {
    return static_cast<std::uint32_t>(free_.size());
  }
  // The free frames' addresses, the next to be taken last.
  [[nodiscard]] std::span<const std::uint64_t> addresses() const noexcept { return free_; }
  [[nodiscard]] std::uint32_t capacity() const noexcept { return capacity_; }

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
