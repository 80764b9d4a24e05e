// The UMEM frames that nobody holds: neither the kernel (fill, rx, tx, completion rings) nor the
// application. A LIFO stack, so that the most recently used (cache-warm) frame goes out first.
//
// Threading: one thread owns a pool. Header-only; no allocation after construction.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>

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
  // lowest address first. `spare`: room for that many addresses past capacity() (see spare()).
  FramePool(std::uint32_t frame_count, std::uint32_t frame_size, std::uint64_t first = 0,
            std::uint32_t spare = 0)
      : free_(std::make_unique_for_overwrite<std::uint64_t[]>(std::size_t{frame_count} + spare)),
        count_(frame_count),
        capacity_(frame_count),
        spare_(spare) {
    for (std::uint32_t i = 0; i < frame_count; ++i) {
      free_[i] = first + std::uint64_t{frame_count - 1 - i} * frame_size;
    }
  }

  [[nodiscard]] std::uint32_t available() const noexcept { return count_; }
  // The free frames' addresses, the next to be taken last.
  [[nodiscard]] std::span<const std::uint64_t> addresses() const noexcept {
    return {free_.get(), count_};
  }
  [[nodiscard]] std::uint32_t capacity() const noexcept { return capacity_; }

  // What take() returns from an empty pool (unchecked builds): no frame starts there.
  static constexpr std::uint64_t no_frame = ~std::uint64_t{0};

  // Take one frame; the caller checks available() first (see the top of this file).
  [[nodiscard]] std::uint64_t take() noexcept {
    if (count_ == 0) [[unlikely]] {
      detail::frame_pool_contract_broken("take", "the pool is empty");
      return no_frame;
    }
    return free_[--count_];
  }
  // Take up to n frames into `out`, in the order n single take()s would; returns how many.
  std::uint32_t take(std::uint64_t* out, std::uint32_t n) noexcept {
    if (n > count_) n = count_;
    const std::uint64_t* top = free_.get() + count_;
    for (std::uint32_t i = 0; i < n; ++i) out[i] = top[-1 - static_cast<std::ptrdiff_t>(i)];
    count_ -= n;
    return n;
  }

  // The same frames as take(out, n), in the order they were given (the reverse of take()'s): a
  // plain copy, for a caller to which the order makes no difference (the fill ring).
  std::uint32_t take_as_given(std::uint64_t* out, std::uint32_t n) noexcept {
    if (n > count_) n = count_;
    count_ -= n;
    std::copy_n(free_.get() + count_, n, out);
    return n;
  }
  // As take_as_given, without the copy: the taken frames where the pool kept them, valid until
  // the pool is written again (give(), give_spare(), a write at spare()); for a caller that reads
  // each address once anyway: a TxBatch.
  [[nodiscard]] std::span<const std::uint64_t> take_view(std::uint32_t n) noexcept {
    if (n > count_) n = count_;
    count_ -= n;
    return {free_.get() + count_, n};
  }

  // Return a frame; false, and the frame not taken, when capacity() frames are free already
  // (a double free, a caller's bug: see the top of this file).
  bool give(std::uint64_t addr) noexcept { return give(&addr, 1); }
  // Return n frames, all or none: none when they would make more than capacity() free.
  bool give(const std::uint64_t* addrs, std::uint32_t n) noexcept {
    if (n > capacity_ - count_) [[unlikely]] {
      detail::frame_pool_contract_broken("give", "capacity() frames are free already");
      return false;
    }
    std::copy_n(addrs, n, free_.get() + count_);
    count_ += n;
    return true;
  }

  // Where give_spare() finds frames: a caller that learns whether it gives a frame only after
  // writing its address (Queue's completions: written, then kept when it was out) writes there,
  // up to spare_room() addresses, always in bounds, and gives the first n with give_spare(n).
  [[nodiscard]] std::uint64_t* spare() noexcept { return free_.get() + count_; }
  [[nodiscard]] std::uint32_t spare_room() const noexcept { return capacity_ - count_ + spare_; }
  // The first n addresses written at spare(), given as give() would: all or none.
  bool give_spare(std::uint32_t n) noexcept {
    if (n > capacity_ - count_) [[unlikely]] {
      detail::frame_pool_contract_broken("give_spare", "capacity() frames are free already");
      return false;
    }
    count_ += n;
    return true;
  }

 private:
  std::unique_ptr<std::uint64_t[]> free_;
  std::uint32_t count_ = 0;
  std::uint32_t capacity_ = 0;
  std::uint32_t spare_ = 0;
};

}  // namespace afxdp
