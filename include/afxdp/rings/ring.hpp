// The four AF_XDP rings, as the user-space side of the kernel's single-producer/single-consumer
// ring protocol (docs/rings.md explains it once, with the ordering points A-D used below).
//
// Threading: one thread owns a ring. A ring object is not safe to use from two threads at once;
// the peer (the kernel, or a fake kernel in tests) is the only other party.
//
// Header-only and on the hot path: no syscalls, no allocation, no exceptions.
#pragma once

#include <linux/if_xdp.h>

#include <array>
#include <atomic>
#include <cstdint>
#include <span>

// Debug checks of the verbs' contracts: at(i) inside the reserved or peeked window, and never
// submit, release or cancel more than that window holds. On in debug builds and wherever
// AFXDP_RING_CHECKS is defined (the dev preset); compiled out otherwise, so release pays nothing.
#if !defined(NDEBUG) || defined(AFXDP_RING_CHECKS)
#include <cstdio>
#include <cstdlib>
#define AFXDP_RING_EXPECTS(condition) \
  ((condition) ? void(0) : ::afxdp::detail::ring_contract_broken(__func__, #condition))
#else
#define AFXDP_RING_EXPECTS(condition) void(0)
#endif

namespace afxdp {

// Where a ring lives: the mapped producer/consumer/flags words and the descriptor array.
// Umem and Socket compute it from XDP_MMAP_OFFSETS; a unit test builds one over plain memory.
struct RingLayout {
  std::uint32_t* producer = nullptr;
  std::uint32_t* consumer = nullptr;
  std::uint32_t* flags = nullptr;  // XDP_RING_NEED_WAKEUP lives here (may be null: no wakeups)
  void* entries = nullptr;
  std::uint32_t size = 0;  // a power of two
};

namespace detail {
#if !defined(NDEBUG) || defined(AFXDP_RING_CHECKS)
inline constexpr bool ring_checks = true;
// A caller broke a ring verb's contract: a bug in the caller, so stop here, before the ring lies.
[[noreturn, gnu::cold, gnu::noinline]] inline void ring_contract_broken(const char* verb,
                                                                        const char* rule) noexcept {
  std::fprintf(stderr, "afxdp: ring %s: contract broken: %s\n", verb, rule);
  std::abort();
}
#else
inline constexpr bool ring_checks = false;
#endif

// Whether this build checks what the kernel writes (rx descriptors, completions, ring indices)
// before it acts on it: on in checked builds (AFXDP_RING_CHECKS: the dev, asan and tsan presets,
// and so every test), where the checks catch our bugs and the Loopback's; off in Release, which
// trusts the kernel as libxdp and DPDK do (docs/library.md, "What each build checks").
// AFXDP_RING_CHECKS reaches every user of the library's headers (an interface definition, in the
// installed package's too), so the inline loops and libafxdp.a always agree.
#ifdef AFXDP_RING_CHECKS
inline constexpr bool checks_kernel = true;
#else
inline constexpr bool checks_kernel = false;
#endif

inline std::uint32_t load_acquire(std::uint32_t* word) noexcept {
  return std::atomic_ref<std::uint32_t>(*word).load(std::memory_order_acquire);
}
inline std::uint32_t load_relaxed(std::uint32_t* word) noexcept {
  return std::atomic_ref<std::uint32_t>(*word).load(std::memory_order_relaxed);
}
inline void store_release(std::uint32_t* word, std::uint32_t value) noexcept {
  std::atomic_ref<std::uint32_t>(*word).store(value, std::memory_order_release);
}
}  // namespace detail

// A batch's window of a ring as three plain values: a loop indexes slots through a local copy,
// which stays in registers, where the ring's own members would be reloaded after every store
// the loop makes (the compiler cannot tell a slot from them). With the ring checks on, an index
// outside the window stops the program, as at() does.
template <class Entry>
class RingWindow {
 public:
  RingWindow(Entry* entries, std::uint32_t mask, std::uint32_t first, std::uint32_t count) noexcept
      : entries_(entries), mask_(mask), first_(first), count_(count) {}
  Entry& operator[](std::uint32_t i) const noexcept {
    AFXDP_RING_EXPECTS(i < count_);
    return entries_[(first_ + i) & mask_];
  }
  [[nodiscard]] std::uint32_t size() const noexcept { return count_; }
  // The window as the two runs of the array it covers (the second empty unless it wraps), in
  // order: a loop over them steps a pointer, with no index to mask per entry.
  [[nodiscard]] std::array<std::span<Entry>, 2> parts() const noexcept {
    const std::uint32_t start = first_ & mask_;
    const std::uint32_t to_end = mask_ + 1 - start;
    const std::uint32_t head = count_ < to_end ? count_ : to_end;
    return {std::span<Entry>(entries_ + start, head), std::span<Entry>(entries_, count_ - head)};
  }
  // The index in the window of one of its entries (a pointer a loop over parts() holds).
  [[nodiscard]] std::uint32_t index_of(const Entry* entry) const noexcept {
    const std::uint32_t start = first_ & mask_;
    const auto slot = static_cast<std::uint32_t>(entry - entries_);
    AFXDP_RING_EXPECTS(slot <= mask_ && ((slot - start) & mask_) < count_);
    return (slot - start) & mask_;
  }

 private:
  Entry* entries_;
  std::uint32_t mask_;
  std::uint32_t first_;
  std::uint32_t count_;
};

// A window's slots filled front to back through one pointer: a put() is a store and a step, where
// window[i] masks an index (a loop that skips entries, so that the slot is not the loop's own
// index, writes through this). At most size() puts; with the ring checks on, one more stops the
// program, as window[size()] does.
template <class Entry>
class RingCursor {
 public:
  explicit RingCursor(const RingWindow<Entry>& window) noexcept {
    const std::array<std::span<Entry>, 2> parts = window.parts();
    next_ = parts[0].data();
    end_ = next_ + parts[0].size();
    wrap_ = parts[1].data();
    wrap_end_ = wrap_ + parts[1].size();
  }
  void put(const Entry& entry) noexcept {
    AFXDP_RING_EXPECTS(next_ != end_);
    *next_ = entry;
    if (++next_ == end_) [[unlikely]] {
      next_ = wrap_;  // the window's second run, then nothing
      end_ = wrap_end_;
      wrap_ = wrap_end_;
    }
  }

 private:
  Entry* next_;
  Entry* end_;
  Entry* wrap_;
  Entry* wrap_end_;
};

// We produce, the kernel consumes: the fill ring (frame addresses) and the tx ring (descriptors).
template <class Entry>
class ProducerRing {
 public:
  ProducerRing() = default;
  explicit ProducerRing(const RingLayout& layout) noexcept
      : producer_(layout.producer),
        consumer_(layout.consumer),
        flags_(layout.flags),
        entries_(static_cast<Entry*>(layout.entries)),
        size_(layout.size),
        mask_(layout.size - 1),
        published_(detail::load_relaxed(layout.producer)),
        reserved_(published_),
        cached_consumer_(detail::load_relaxed(layout.consumer) + layout.size) {}

  // Free slots, refreshing the consumer index only when the cached count is short of `wanted`.
  std::uint32_t free_slots(std::uint32_t wanted) noexcept {
    std::uint32_t free = cached_consumer_ - reserved_;
    if (free >= wanted) return free;
    // (A) we read the consumer before we overwrite the slots it released; pairs with the
    // kernel's (D).
    const std::uint32_t consumer = detail::load_acquire(consumer_);
    // A broken peer claiming to have consumed entries we never published is ignored, and so is
    // one stepping back so far that slots we already reserved would count as its (the free
    // count would underflow to about 2^32).
    if (published_ - consumer > size_ || reserved_ - consumer > size_) {
      ++refused_refreshes_;
    } else {
      cached_consumer_ = consumer + size_;
    }
    return cached_consumer_ - reserved_;
  }

  // Reserve exactly n slots or none; returns n or 0. Fill them with at(0..n-1), then submit(n).
  [[nodiscard]] std::uint32_t reserve(std::uint32_t n) noexcept {
    if (free_slots(n) < n) return 0;
    reserved_ += n;
    return n;
  }

  // Slot i of the reserved, not yet submitted, entries.
  Entry& at(std::uint32_t i) noexcept {
    AFXDP_RING_EXPECTS(i < reserved_ - published_);
    return entries_[(published_ + i) & mask_];
  }

  // The reserved, not yet submitted, slots (at(i) for a loop: see RingWindow).
  [[nodiscard]] RingWindow<Entry> reserved() const noexcept {
    return {entries_, mask_, published_, reserved_ - published_};
  }

  // Make the first n reserved entries visible to the kernel.
  void submit(std::uint32_t n) noexcept {
    AFXDP_RING_EXPECTS(n <= reserved_ - published_);
    published_ += n;
    detail::store_release(producer_, published_);  // (B) entries before producer; pairs with (C)
  }

  // Give back the last n reserved, unsubmitted slots.
  void cancel(std::uint32_t n) noexcept {
    AFXDP_RING_EXPECTS(n <= reserved_ - published_);
    reserved_ -= n;
  }

  // The kernel asks for a wake-up (sendto for tx, poll/recvfrom for fill) when it set this flag.
  [[nodiscard]] bool needs_wakeup() const noexcept {
    return flags_ != nullptr && (detail::load_relaxed(flags_) & XDP_RING_NEED_WAKEUP) != 0;
  }

  [[nodiscard]] std::uint32_t size() const noexcept { return size_; }
  // Slots not free: reserved, or submitted and not yet consumed (refreshes the consumer index).
  std::uint32_t outstanding() noexcept { return size_ - free_slots(size_); }
  // Times the peer's consumer index was impossible (claimed entries we never published, or stepped
  // back onto slots we reserved) and was ignored.
  [[nodiscard]] std::uint64_t refused_refreshes() const noexcept { return refused_refreshes_; }

 private:
  std::uint32_t* producer_ = nullptr;
  std::uint32_t* consumer_ = nullptr;
  std::uint32_t* flags_ = nullptr;
  Entry* entries_ = nullptr;
  std::uint32_t size_ = 0;
  std::uint32_t mask_ = 0;
  std::uint32_t published_ = 0;        // our producer index as last stored (local copy)
  std::uint32_t reserved_ = 0;         // cached producer: published_ + reserved slots
  std::uint32_t cached_consumer_ = 0;  // kernel's consumer + size, as last read
  std::uint64_t refused_refreshes_ = 0;
};

// The kernel produces, we consume: the rx ring (descriptors) and the completion ring (addresses).
template <class Entry>
class ConsumerRing {
 public:
  ConsumerRing() = default;
  explicit ConsumerRing(const RingLayout& layout) noexcept
      : producer_(layout.producer),
        consumer_(layout.consumer),
        flags_(layout.flags),
        entries_(static_cast<Entry*>(layout.entries)),
        size_(layout.size),
        mask_(layout.size - 1),
        released_(detail::load_relaxed(layout.consumer)),
        peeked_(released_),
        cached_producer_(detail::load_relaxed(layout.producer)) {}

  // Up to `max` entries ready to read; refreshes the producer index only when the cached count is
  // short. Read them with at(0..n-1), then release(n).
  [[nodiscard]] std::uint32_t peek(std::uint32_t max) noexcept {
    std::uint32_t ready = cached_producer_ - peeked_;
    if (ready < max) {
      // (C) we read the producer before the entries it published; pairs with the kernel's (B).
      const std::uint32_t producer = detail::load_acquire(producer_);
      // A hostile or broken peer could move its index more than a ring ahead of ours, or back
      // behind entries we already peeked: refuse the whole refresh rather than read slots that
      // were never written.
      const std::uint32_t claimed = producer - released_;
      if (claimed > size_ || claimed < peeked_ - released_) {
        ++refused_refreshes_;
      } else {
        cached_producer_ = producer;
      }
      ready = cached_producer_ - peeked_;
    }
    const std::uint32_t n = ready < max ? ready : max;
    peeked_ += n;
    return n;
  }

  // Entry i of the peeked, not yet released, entries.
  [[nodiscard]] const Entry& at(std::uint32_t i) const noexcept {
    AFXDP_RING_EXPECTS(i < peeked_ - released_);
    return entries_[(released_ + i) & mask_];
  }

  // The peeked, not yet released, entries (at(i) for a loop: see RingWindow).
  [[nodiscard]] RingWindow<const Entry> peeked() const noexcept {
    return {entries_, mask_, released_, peeked_ - released_};
  }

  // Hand the first n peeked entries back to the kernel.
  void release(std::uint32_t n) noexcept {
    AFXDP_RING_EXPECTS(n <= peeked_ - released_);
    released_ += n;
    detail::store_release(consumer_, released_);  // (D) our reads before consumer; pairs with (A)
  }

  // Un-peek the last n peeked, unreleased entries: the next peek sees them again.
  void cancel(std::uint32_t n) noexcept {
    AFXDP_RING_EXPECTS(n <= peeked_ - released_);
    peeked_ -= n;
  }

  [[nodiscard]] bool needs_wakeup() const noexcept {
    return flags_ != nullptr && (detail::load_relaxed(flags_) & XDP_RING_NEED_WAKEUP) != 0;
  }

  [[nodiscard]] std::uint32_t size() const noexcept { return size_; }
  // Times the peer's producer index was more than a ring ahead, or behind what we already peeked,
  // and was ignored.
  [[nodiscard]] std::uint64_t refused_refreshes() const noexcept { return refused_refreshes_; }

 private:
  std::uint32_t* producer_ = nullptr;
  std::uint32_t* consumer_ = nullptr;
  std::uint32_t* flags_ = nullptr;
  const Entry* entries_ = nullptr;
  std::uint32_t size_ = 0;
  std::uint32_t mask_ = 0;
  std::uint32_t released_ = 0;         // our consumer index as last stored (local copy)
  std::uint32_t peeked_ = 0;           // cached consumer: released_ + peeked entries
  std::uint32_t cached_producer_ = 0;  // kernel's producer, as last read
  std::uint64_t refused_refreshes_ = 0;
};

using FillRing = ProducerRing<std::uint64_t>;        // frame addresses we lend the kernel
using TxRing = ProducerRing<xdp_desc>;               // frames we ask the kernel to send
using RxRing = ConsumerRing<xdp_desc>;               // frames the kernel received for us
using CompletionRing = ConsumerRing<std::uint64_t>;  // frame addresses the kernel has sent

}  // namespace afxdp

#undef AFXDP_RING_EXPECTS  // expanded where the templates are defined; no need to leak it
