// The handles a Queue lends frames through: FrameRef (a received frame kept past its handler)
// and TxBatch (pool frames to build packets in, each a TxFrame). Included by queue.hpp; their verbs
// are Queue's.
#pragma once

#include <afxdp/frame.hpp>

#include <compare>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <span>

namespace afxdp {

class Queue;

// A frame kept past the handler's return (Queue::keep). Move-only; ended by Queue::send or
// Queue::recycle. One destroyed without either is counted as abandoned and its frame recycled.
class FrameRef {
 public:
  FrameRef() = default;
  FrameRef(FrameRef&& other) noexcept : queue_(other.queue_), frame_(other.frame_) {
    other.queue_ = nullptr;
  }
  FrameRef& operator=(FrameRef&& other) noexcept;
  FrameRef(const FrameRef&) = delete;
  FrameRef& operator=(const FrameRef&) = delete;
  ~FrameRef();

  explicit operator bool() const noexcept { return queue_ != nullptr; }
  Frame& frame() noexcept { return frame_; }
  [[nodiscard]] std::span<std::byte> data() const noexcept { return frame_.data(); }

 private:
  friend class Queue;
  FrameRef(Queue* queue, const Frame& frame) noexcept : queue_(queue), frame_(frame) {}
  Queue* queue_ = nullptr;
  Frame frame_;
};

// A frame of a TxBatch to build a packet in: a view of the batch's record of it, so that what
// resize() sets is what send() puts on tx. A copy views the same frame. Valid while its batch
// holds the frame (not sent, the batch not destroyed).
class TxFrame {
 public:
  // The packet's bytes, from the frame's start.
  [[nodiscard]] std::span<std::byte> data() const noexcept { return {area_ + address_, *size_}; }
  [[nodiscard]] std::uint32_t size() const noexcept { return *size_; }
  // Bytes the packet may grow to: the whole frame.
  [[nodiscard]] std::uint32_t capacity() const noexcept { return capacity_; }
  // Set the packet's length; false (and nothing changed) when it would leave the frame. A frame
  // sent at size 0 is refused and goes back to the pool.
  bool resize(std::uint32_t size) noexcept {
    if (size > capacity_) return false;
    *size_ = size;
    return true;
  }
  // The descriptor's address, as the kernel reads it (docs/rings.md).
  [[nodiscard]] std::uint64_t address() const noexcept { return address_; }

 private:
  friend class TxBatch;
  TxFrame(std::byte* area, std::uint64_t address, std::uint32_t* size,
          std::uint32_t capacity) noexcept
      : area_(area), address_(address), size_(size), capacity_(capacity) {}
  std::byte* area_;
  std::uint64_t address_;
  std::uint32_t* size_;
  std::uint32_t capacity_;
};

// Frames from the queue's pool to build packets in (Queue::allocate), each read and written
// through a TxFrame. Their addresses and sizes are kept apart (the Queue's arrays), so that
// send() checks and sums the sizes in one vectorised pass. Move-only; frames not sent go back
// to the pool when it is destroyed.
class TxBatch {
 public:
  class iterator;

  TxBatch(TxBatch&& other) noexcept
      : queue_(other.queue_),
        addresses_(other.addresses_),
        sizes_(other.sizes_),
        area_(other.area_),
        capacity_(other.capacity_),
        next_(other.next_),
        count_(other.count_) {
    other.queue_ = nullptr;
  }
  TxBatch& operator=(TxBatch&&) = delete;
  TxBatch(const TxBatch&) = delete;
  TxBatch& operator=(const TxBatch&) = delete;
  ~TxBatch();

  // Frames not sent yet.
  [[nodiscard]] std::uint32_t size() const noexcept { return count_ - next_; }
  TxFrame operator[](std::uint32_t i) const noexcept { return frame(next_ + i); }
  [[nodiscard]] iterator begin() const noexcept;
  [[nodiscard]] iterator end() const noexcept;
  // Send the first `count` unsent frames (their size() bytes), in order; returns how many the tx
  // ring took. The rest stay in the batch.
  std::uint32_t send(std::uint32_t count);
  std::uint32_t send() { return send(size()); }
  // Send the first `fragments` unsent frames as one packet (a multi-buffer socket's chain:
  // XDP_PKT_CONTD on all but the last), all or nothing. Returns the frames it took from the
  // batch: `fragments` when sent (or refused and recycled, when one of them is empty), 0 when
  // the tx ring has no room for all of them, or fragments is 0, more than size() or more than
  // max_fragments (the kernel would drop such a chain and never complete its frames).
  std::uint32_t send_packet(std::uint32_t fragments);

 private:
  friend class Queue;
  TxBatch(Queue* queue, const std::uint64_t* addresses, std::uint32_t* sizes, std::byte* area,
          std::uint32_t capacity, std::uint32_t count) noexcept
      : queue_(queue),
        addresses_(addresses),
        sizes_(sizes),
        area_(area),
        capacity_(capacity),
        count_(count) {}
  [[nodiscard]] TxFrame frame(std::uint32_t i) const noexcept {
    return {area_, addresses_[i], sizes_ + i, capacity_};
  }
  std::uint32_t put(Queue& q, std::uint32_t n, std::uint64_t& bytes) noexcept;
  std::uint32_t put_packed(Queue& q, std::uint32_t n) noexcept;
  Queue* queue_ = nullptr;
  const std::uint64_t* addresses_ = nullptr;  // the Queue's, frame i's at [i]
  std::uint32_t* sizes_ = nullptr;
  std::byte* area_ = nullptr;
  std::uint32_t capacity_ = 0;
  std::uint32_t next_ = 0;
  std::uint32_t count_ = 0;
};

// TxBatch's unsent frames in order, each read as a TxFrame: `for (TxFrame f : batch)`.
class TxBatch::iterator {
 public:
  using iterator_concept = std::random_access_iterator_tag;
  using value_type = TxFrame;
  using difference_type = std::ptrdiff_t;
  iterator() = default;
  TxFrame operator*() const noexcept { return batch_->frame(i_); }
  TxFrame operator[](difference_type n) const noexcept {
    return batch_->frame(static_cast<std::uint32_t>(i_ + n));
  }
  iterator& operator++() noexcept { return *this += 1; }
  iterator operator++(int) noexcept {
    iterator before = *this;
    ++*this;
    return before;
  }
  iterator& operator--() noexcept { return *this -= 1; }
  iterator operator--(int) noexcept {
    iterator before = *this;
    --*this;
    return before;
  }
  iterator& operator+=(difference_type n) noexcept {
    i_ = static_cast<std::uint32_t>(i_ + n);
    return *this;
  }
  iterator& operator-=(difference_type n) noexcept { return *this += -n; }
  friend iterator operator+(iterator it, difference_type n) noexcept { return it += n; }
  friend iterator operator+(difference_type n, iterator it) noexcept { return it += n; }
  friend iterator operator-(iterator it, difference_type n) noexcept { return it -= n; }
  friend difference_type operator-(const iterator& a, const iterator& b) noexcept {
    return static_cast<difference_type>(a.i_) - static_cast<difference_type>(b.i_);
  }
  bool operator==(const iterator& other) const noexcept { return i_ == other.i_; }
  auto operator<=>(const iterator& other) const noexcept { return i_ <=> other.i_; }

 private:
  friend class TxBatch;
  iterator(const TxBatch* batch, std::uint32_t i) noexcept : batch_(batch), i_(i) {}
  const TxBatch* batch_ = nullptr;
  std::uint32_t i_ = 0;
};

inline TxBatch::iterator TxBatch::begin() const noexcept { return {this, next_}; }
inline TxBatch::iterator TxBatch::end() const noexcept { return {this, count_}; }

static_assert(std::random_access_iterator<TxBatch::iterator>);

}  // namespace afxdp
