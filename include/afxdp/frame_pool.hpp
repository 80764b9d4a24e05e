// The UMEM frames that nobody holds: neither the kernel (fill, rx, tx, completion rings) nor the
// application. A LIFO stack, so that the most recently used (cache-warm) frame goes out first.
//
// Threading: one thread owns a pool. Header-only; no allocation after construction.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

// take() from an empty pool and give() past capacity are a caller's bug. Where the ring verbs'
// checks are on (debug builds, AFXDP_RING_CHECKS) they stop the program with the broken rule;
// elsewhere take() returns FramePool::no_frame and give() false, and the pool stays as it was.
#if !defined(NDEBUG) || defined(AFXDP_RING_CHECKS)
#include <cstdio>
#include <cstdlib>
#endif

namespace afxdp {

namespace detail {
[[gnu::cold, gnu::noinline]] inline void frame_pool_contract_broken(const char* verb,
                                                                    const char* rule) noexcept {
#if !defined(NDEBUG) || defined(AFXDP_RING_CHECKS)
  std::fprintf(stderr, "afxdp: frame pool %s: contract broken: %s\n", verb, rule);
  std::abort();
#else
  (void)verb;
  (void)rule;
#endif
}
}  // namespace detail

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

  // What take() returns from an empty pool (unchecked builds): no frame starts there.
  static constexpr std::uint64_t no_frame = ~std::uint64_t{0};

  // Take one frame; the caller checks available() first (see the top of this file).
  [[nodiscard]] std::uint64_t take() noexcept {
    if (free_.empty()) [[unlikely]] {
      detail::frame_pool_contract_broken("take", "the pool is empty");
      return no_frame;
    }
    const std::uint64_t addr = free_.back();
    free_.pop_back();
    return addr;
  }

  // Return a frame; false, and the frame not taken, when capacity() frames are free already
  // (a double free, a caller's bug: see the top of this file).
  bool give(std::uint64_t addr) noexcept {
    if (free_.size() >= capacity_) [[unlikely]] {
      detail::frame_pool_contract_broken("give", "capacity() frames are free already");
      return false;
    }
    free_.push_back(addr);
    return true;
  }

 private:
  std::vector<std::uint64_t> free_;
  std::uint32_t capacity_ = 0;
};

}  // namespace afxdp
