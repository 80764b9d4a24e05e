// The baseline for bench/ring_bench.cpp: the same ring protocol and the same orderings (release
// store of our index, acquire load of the peer's) as include/afxdp/rings/ring.hpp, but with no
// cached indices. Every reserve and every peek loads the peer's index from its shared cache line,
// the way a first, straightforward ring would be written. Only the caching differs, so the gap in
// the benchmark is the price of touching the peer's line on every call.
//
// Threading: one thread per side, as for the real rings. Benchmark-only; no hostile-index checks.
#pragma once

#include <afxdp/rings/ring.hpp>

#include <cstdint>

namespace afxdp::bench {

template <class Entry>
class NaiveProducer {
 public:
  explicit NaiveProducer(const RingLayout& l) noexcept
      : producer_(l.producer),
        consumer_(l.consumer),
        entries_(static_cast<Entry*>(l.entries)),
        size_(l.size),
        published_(detail::load_relaxed(l.producer)) {}

  std::uint32_t reserve(std::uint32_t n) noexcept {
    const std::uint32_t free = detail::load_acquire(consumer_) + size_ - published_;
    return free >= n ? n : 0;
  }
  Entry& at(std::uint32_t i) noexcept { return entries_[(published_ + i) & (size_ - 1)]; }
  void submit(std::uint32_t n) noexcept {
    published_ += n;
    detail::store_release(producer_, published_);
  }

 private:
  std::uint32_t* producer_;
  std::uint32_t* consumer_;
  Entry* entries_;
  std::uint32_t size_;
  std::uint32_t published_;
};

template <class Entry>
class NaiveConsumer {
 public:
  explicit NaiveConsumer(const RingLayout& l) noexcept
      : producer_(l.producer),
        consumer_(l.consumer),
        entries_(static_cast<const Entry*>(l.entries)),
        size_(l.size),
        released_(detail::load_relaxed(l.consumer)) {}

  std::uint32_t peek(std::uint32_t max) noexcept {
    const std::uint32_t ready = detail::load_acquire(producer_) - released_;
    return ready < max ? ready : max;
  }
  [[nodiscard]] const Entry& at(std::uint32_t i) const noexcept {
    return entries_[(released_ + i) & (size_ - 1)];
  }
  void release(std::uint32_t n) noexcept {
    released_ += n;
    detail::store_release(consumer_, released_);
  }

 private:
  std::uint32_t* producer_;
  std::uint32_t* consumer_;
  const Entry* entries_;
  std::uint32_t size_;
  std::uint32_t released_;
};

}  // namespace afxdp::bench
