// What a packet handler sees and answers: a Frame (one packet in the UMEM, valid during the call)
// and a Verdict (what the Queue does with it next).
//
// Threading: a Frame belongs to the thread of the Queue that handed it out.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

namespace afxdp {

// What happens to a frame after the handler returns. Dispatched as an if-chain ordered by
// likelihood, never a jump table: with retpolines a table is an indirect branch.
enum class Verdict : std::uint8_t {
  drop,       // back to the fill ring (or the free pool): the frame is received into again
  send_back,  // onto the tx ring of the queue it came in on
  send,       // onto the tx ring of the verb's out-queue: serve()'s own, forward()'s `out`
};
// How many Verdicts there are: the last one's value + 1. Each if-chain that dispatches on a
// Verdict static_asserts this, so a new value is a compile error until every chain handles it.
inline constexpr std::size_t verdict_count = 3;

class Queue;

// One packet in the UMEM. Valid until the handler (or reader) returns, unless the frame is kept
// (Queue::keep), which hands its ownership to a FrameRef.
class Frame {
 public:
  // Not made, copied, assigned or swapped outside the Queue: a copy could be kept or sent while the
  // Queue recycles the original (the frame lent twice). A reader's Frames hands out a new Frame
  // each time one is read (docs/api.md, "Misuse and exceptions").
  Frame(Frame&&) = delete;
  Frame& operator=(Frame&&) = delete;

  // The packet's bytes: from where the kernel wrote it (or the application builds it) on.
  [[nodiscard]] std::span<std::byte> data() const noexcept { return {data_, size_}; }
  [[nodiscard]] std::uint32_t size() const noexcept { return size_; }
  // Bytes the packet may grow to without leaving its frame.
  [[nodiscard]] std::uint32_t capacity() const noexcept { return frame_size_ - headroom_; }
  // Set the packet's length; false (and nothing changed) when it would leave the frame.
  bool resize(std::uint32_t size) noexcept {
    if (size > capacity()) return false;
    size_ = size;
    return true;
  }
  // Bytes of the frame in front of the packet: XDP_PACKET_HEADROOM plus the UMEM's headroom on
  // receive, where an XDP program's bpf_xdp_adjust_meta() puts its metadata.
  [[nodiscard]] std::uint32_t headroom() const noexcept { return headroom_; }
  // The `size` bytes right in front of the packet (XDP metadata), or an empty span when the
  // frame has less headroom than that.
  [[nodiscard]] std::span<std::byte> metadata(std::uint32_t size) const noexcept {
    if (size > headroom_) return {};
    return {data_ - size, size};
  }
  // The descriptor's address, as the kernel reads and writes it (docs/rings.md).
  [[nodiscard]] std::uint64_t address() const noexcept { return address_; }

 private:
  friend class Queue;
  friend class Frames;
  friend class FrameRef;
  Frame() = default;
  Frame(const Frame&) = default;
  Frame& operator=(const Frame&) = default;
  Frame(std::byte* data, std::uint64_t address, std::uint32_t size, std::uint16_t headroom,
        std::uint32_t frame_size, std::uint32_t batch = 0) noexcept
      : data_(data),
        address_(address),
        size_(size),
        headroom_(headroom),
        frame_size_(frame_size),
        batch_(batch) {}

  std::byte* data_ = nullptr;
  std::uint64_t address_ = 0;
  std::uint32_t size_ = 0;
  // The packet's offset in its frame, which fits 16 bits (an unaligned address's offset field;
  // an aligned frame is at most 4096 bytes). Of another type than size_, so that g++ stores the
  // two apart rather than pair them through a vector register (two instructions more a frame).
  std::uint16_t headroom_ = 0;
  // Queue::keep took it: the Queue no longer recycles it, and keep() refuses it. False in every
  // frame the Queue hands to a handler or reader: a handler's batch reads and clears it in one
  // place, Queue::handed_to_ref (a take does not store it per frame); a reader's Frames builds a
  // new Frame per read (the Queue's held marks say what was kept). True in for_each_free_frame's
  // pool frames.
  bool kept_ = false;
  // headroom + capacity: the frame size, the same for every frame (a receive stores it as it is,
  // where a capacity would be a subtraction per frame).
  std::uint32_t frame_size_ = 0;
  // The batch of its Queue that handed it out (Queue::batch_seq_): keep() takes a frame only
  // while that batch is open, so a Frame read from a Frames kept past its reader is refused.
  // In the struct's tail padding: a Frame stays 32 bytes.
  std::uint32_t batch_ = 0;
};

}  // namespace afxdp
