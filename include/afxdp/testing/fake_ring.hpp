// The kernel's side of one ring, in plain memory laid out like a mapped AF_XDP ring (producer,
// consumer and flags words, each on its own cache line, then the entries). For a ring we produce
// on (fill, tx) it consumes; for one we consume from (rx, completion) it produces. It orders its
// accesses as the kernel does, so a two-thread test over it means something under TSan, and it
// can misbehave on purpose (force_producer, force_consumer) to show the library does not trust
// the peer's index. testing::Loopback is four of these per queue.
//
// Threading: the kernel side belongs to one thread; the ring built over layout() to another.
#pragma once

#include <afxdp/rings/cache_line.hpp>
#include <afxdp/rings/ring.hpp>

#include <atomic>
#include <cstdint>
#include <span>
#include <vector>

namespace afxdp::testing {

template <class Entry>
class FakeRing {
 public:
  // A ring of `size` entries (a power of two) whose producer and consumer both start at `start`:
  // pass a value near UINT32_MAX to make the free-running indices wrap during a test.
  explicit FakeRing(std::uint32_t size, std::uint32_t start = 0, bool with_flags = true)
      : entries_(size), size_(size), with_flags_(with_flags), produced_(start), consumed_(start) {
    producer_.value = start;
    consumer_.value = start;
  }
  // The layout points into this object: it must stay where it is.
  FakeRing(const FakeRing&) = delete;
  FakeRing& operator=(const FakeRing&) = delete;

  // What Umem and Socket would compute from XDP_MMAP_OFFSETS.
  RingLayout layout() noexcept {
    return RingLayout{.producer = &producer_.value,
                      .consumer = &consumer_.value,
                      .flags = with_flags_ ? &flags_.value : nullptr,
                      .entries = entries_.data(),
                      .size = size_};
  }

  // The shared words as a peer sees them now.
  [[nodiscard]] std::uint32_t producer() const noexcept { return load(producer_); }
  [[nodiscard]] std::uint32_t consumer() const noexcept { return load(consumer_); }

  void set_need_wakeup(bool on) noexcept {
    std::atomic_ref<std::uint32_t>(flags_.value)
        .store(on ? XDP_RING_NEED_WAKEUP : 0U, std::memory_order_relaxed);
  }

  // --- The kernel as consumer (fill, tx): take what user space submitted. ---

  // Entries published by user space and not yet consumed by us.
  [[nodiscard]] std::uint32_t available() const noexcept { return load(producer_) - consumed_; }

  // Read up to `max` published entries, in order, and hand the slots back (release of consumer).
  // With publish false the slots stay taken until publish_consumer(): the kernel publishes rx
  // entries before it moves the fill ring's consumer.
  std::vector<Entry> consume(std::uint32_t max, bool publish = true) {
    const std::uint32_t ready = load(producer_) - consumed_;  // acquire: the kernel's (C)
    const std::uint32_t n = ready < max ? ready : max;
    std::vector<Entry> out;
    out.reserve(n);
    for (std::uint32_t i = 0; i < n; ++i) out.push_back(entries_[(consumed_ + i) & (size_ - 1)]);
    consumed_ += n;
    if (publish) publish_consumer();
    return out;
  }
  void publish_consumer() noexcept { store(consumer_, consumed_); }  // the kernel's (D)

  // --- The kernel as producer (rx, completion): hand entries to user space. ---

  // Slots user space has released and we may write.
  [[nodiscard]] std::uint32_t free_slots() const noexcept {
    return load(consumer_) + size_ - produced_;
  }

  // Write as many of `entries` as fit, then publish them (release of producer). Returns the count.
  std::uint32_t produce(std::span<const Entry> entries) {
    const std::uint32_t room = load(consumer_) + size_ - produced_;  // acquire: the kernel's (A)
    const std::uint32_t n =
        entries.size() < room ? static_cast<std::uint32_t>(entries.size()) : room;
    for (std::uint32_t i = 0; i < n; ++i) entries_[(produced_ + i) & (size_ - 1)] = entries[i];
    produced_ += n;
    store(producer_, produced_);  // the kernel's (B)
    return n;
  }

  // A hostile or broken producer: publish an arbitrary index without writing anything.
  void force_producer(std::uint32_t index) noexcept {
    produced_ = index;
    store(producer_, index);
  }

  // A hostile or broken consumer: store an arbitrary consumer index.
  void force_consumer(std::uint32_t index) noexcept {
    consumed_ = index;
    store(consumer_, index);
  }

  // Raw access to the slot a free-running index maps to (masked), for inspection and poisoning.
  Entry& slot(std::uint32_t index) noexcept { return entries_[index & (size_ - 1)]; }

 private:
  // Only these words are shared between the two sides: one cache line each, as in the kernel.
  struct alignas(cache_line) Word {
    std::uint32_t value = 0;
  };

  static std::uint32_t load(const Word& w) noexcept {
    // atomic_ref needs a non-const object; the load does not modify it.
    return std::atomic_ref<std::uint32_t>(const_cast<Word&>(w).value)
        .load(std::memory_order_acquire);
  }
  static void store(Word& w, std::uint32_t v) noexcept {
    std::atomic_ref<std::uint32_t>(w.value).store(v, std::memory_order_release);
  }

  Word producer_;
  Word consumer_;
  Word flags_;
  std::vector<Entry> entries_;
  std::uint32_t size_;
  bool with_flags_;
  std::uint32_t produced_;  // our producer index (local copy), when we produce
  std::uint32_t consumed_;  // our consumer index (local copy), when we consume
};

}  // namespace afxdp::testing
