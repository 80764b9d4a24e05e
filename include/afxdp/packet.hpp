// What a multi-buffer packet handler sees: a Packet, one received packet as the chain of Frames
// the kernel wrote it into (XDP_USE_SG: every descriptor but the last marked XDP_PKT_CONTD).
// A packet that fits one frame is a chain of one. Valid until the handler (or reader) returns.
//
// Threading: a Packet belongs to the thread of the Queue that handed it out.
#pragma once

#include <afxdp/frame.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>

namespace afxdp {

// The most descriptors one packet may take: Linux's MAX_SKB_FRAGS (17) plus the head. A longer
// chain is refused (Queue::receive_packets) as the kernel refuses one on tx.
inline constexpr std::uint32_t max_fragments = 18;

class Packet {
 public:
  Packet() = default;

  // The fragments, in order; each Frame's data() is that fragment's bytes.
  std::span<Frame> fragments() const noexcept { return {frames_, count_}; }
  std::uint32_t fragment_count() const noexcept { return count_; }
  Frame& operator[](std::uint32_t i) const noexcept { return frames_[i]; }
  // The packet's length: every fragment's bytes, as they are now (a handler may resize one).
  std::uint32_t size() const noexcept {
    std::uint32_t total = 0;
    for (std::uint32_t i = 0; i < count_; ++i) total += frames_[i].size();
    return total;
  }

  // Copy the packet's bytes from `offset` on into `out`; returns how many were copied.
  std::size_t copy_to(std::span<std::byte> out, std::size_t offset = 0) const noexcept {
    std::size_t copied = 0;
    for (std::uint32_t i = 0; i < count_ && copied < out.size(); ++i) {
      const std::span<std::byte> bytes = frames_[i].data();
      if (offset >= bytes.size()) {
        offset -= bytes.size();
        continue;
      }
      const std::size_t n = std::min(bytes.size() - offset, out.size() - copied);
      std::memcpy(out.data() + copied, bytes.data() + offset, n);
      copied += n;
      offset = 0;
    }
    return copied;
  }

 private:
  friend class Queue;
  Packet(Frame* frames, std::uint32_t count) noexcept : frames_(frames), count_(count) {}
  Frame* frames_ = nullptr;
  std::uint32_t count_ = 0;
};

}  // namespace afxdp
