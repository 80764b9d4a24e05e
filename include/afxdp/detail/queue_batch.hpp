// What one batch of a Queue verb did with its frames: the tallies its loop keeps and its finish
// step publishes, and the bytes its descriptors carry (rx released, tx submitted, the rest
// recycled, the counters added). Internal: included by queue.hpp; the loops are in
// detail/queue_loops.hpp, queue_forward.hpp and queue_packets.hpp.
#pragma once

#include <afxdp/detail/uapi.hpp>
#include <afxdp/rings/ring.hpp>
#include <linux/if_xdp.h>

#include <cstdint>
#include <span>

namespace afxdp::detail {

// The bytes a serve() batch took off rx and put on tx, for the byte counters.
struct ServeBytes {
  std::uint64_t rx = 0;
  std::uint64_t tx = 0;
};

// What one forward() batch did with its frames.
struct ForwardTally {
  std::uint64_t rx_bytes = 0;   // what the descriptors taken off rx carry
  std::uint64_t out_bytes = 0;  // what the sent frames carry
  std::uint32_t taken = 0;      // descriptors taken as this queue's frames
  std::uint32_t forwarded = 0;  // on out's tx ring
  std::uint32_t sent_back = 0;  // on this queue's tx ring
  std::uint32_t dropped = 0;
  std::uint32_t back = 0;    // frames to recycle (dropped, or copied out), their chunks in chunks_
  std::uint32_t copied = 0;  // of the forwarded, copied into out's frames (no shared UMEM)
};

// Multi-buffer: the whole chains a batch took off rx.
struct ChainTake {
  std::uint32_t packets = 0;   // in packets_, their fragments in frames_
  std::uint32_t taken = 0;     // descriptors taken as this queue's frames
  std::uint32_t refused = 0;   // frames of invalid chains, their chunks in chunks_[0, refused)
  std::uint64_t rx_bytes = 0;  // what the descriptors released on rx carry
};

// What one serve_packets() batch did with its packets.
struct PacketTally {
  std::uint32_t sent = 0;            // tx slots written
  std::uint32_t back = 0;            // frames to recycle, their chunks in chunks_
  std::uint32_t dropped = 0;         // of them, by the verdict
  std::uint32_t invalid_chains = 0;  // with an empty fragment
  std::uint64_t tx_bytes = 0;        // what the sent chains carry
};

// The bytes the first n descriptors of `window` carry: read for the byte counters while those
// descriptors are still in cache (rx just taken, tx just written).
template <class Desc>
inline std::uint64_t descriptor_bytes(const RingWindow<Desc>& window, std::uint32_t n) noexcept {
  std::uint64_t bytes = 0;
  std::uint32_t left = n;
  for (const std::span<Desc> part : window.parts()) {
    const std::uint32_t k = left < part.size() ? left : static_cast<std::uint32_t>(part.size());
    for (std::uint32_t i = 0; i < k; ++i) bytes += part[i].len;
    left -= k;
  }
  return bytes;
}

// Does any of the first n descriptors of `window` carry XDP_PKT_CONTD (a chain to follow)?
inline bool any_continued(const RingWindow<const xdp_desc>& window, std::uint32_t n) noexcept {
  std::uint32_t options = 0;
  std::uint32_t left = n;
  for (const std::span<const xdp_desc> part : window.parts()) {
    const std::uint32_t k = left < part.size() ? left : static_cast<std::uint32_t>(part.size());
    for (std::uint32_t i = 0; i < k; ++i) options |= part[i].options;
    left -= k;
  }
  return (options & uapi::xdp_pkt_contd) != 0;
}

}  // namespace afxdp::detail
