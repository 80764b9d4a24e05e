// The handles a Queue lends frames through: FrameRef (a received frame kept past its handler)
// and TxBatch (pool frames to build packets in). Included by queue.hpp; their verbs are Queue's.
#pragma once

#include <afxdp/frame.hpp>

#include <cstdint>
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

// Frames from the queue's pool to build packets in (Queue::allocate). Move-only; frames not
// sent go back to the pool when it is destroyed.
class TxBatch {
 public:
  TxBatch(TxBatch&& other) noexcept
      : queue_(other.queue_), frames_(other.frames_), next_(other.next_), count_(other.count_) {
    other.queue_ = nullptr;
  }
  TxBatch& operator=(TxBatch&&) = delete;
  TxBatch(const TxBatch&) = delete;
  TxBatch& operator=(const TxBatch&) = delete;
  ~TxBatch();

  // Frames not sent yet.
  [[nodiscard]] std::uint32_t size() const noexcept { return count_ - next_; }
  Frame& operator[](std::uint32_t i) noexcept { return frames_[next_ + i]; }
  Frame* begin() noexcept { return frames_ + next_; }
  Frame* end() noexcept { return frames_ + count_; }
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
  TxBatch(Queue* queue, Frame* frames, std::uint32_t count) noexcept
      : queue_(queue), frames_(frames), count_(count) {}
  Queue* queue_ = nullptr;
  Frame* frames_ = nullptr;
  std::uint32_t next_ = 0;
  std::uint32_t count_ = 0;
};

}  // namespace afxdp
