// What a Queue counts (QueueStats, read with Queue::stats() from any thread) and where its frames
// are (FrameAccount, Queue::account()); both plain values, so a per-interval report is
// `print(now - before)`.
#pragma once

#include <afxdp/statistics.hpp>

#include <cstdint>

namespace afxdp {

// What a Queue counted, and the kernel's XDP_STATISTICS for its socket.
struct QueueStats {
  std::uint64_t received = 0;     // frames taken off the rx ring
  std::uint64_t sent = 0;         // frames sent and completed: counted off the completion ring
  std::uint64_t dropped = 0;      // Verdict::drop
  std::uint64_t forwarded = 0;    // Verdict::forward, out of the other queue
  std::uint64_t tx_full = 0;      // turns that left frames on rx because tx had no room
  std::uint64_t wakeups = 0;      // sendto/recvfrom kicks
  std::uint64_t polls = 0;        // poll() calls
  std::uint64_t empty_turns = 0;  // receive/serve/forward calls that found rx empty
  // Descriptors from the kernel outside this queue's frames, completions for frames not out on
  // tx, and frames refused for sending (empty, or sent inside a batch).
  std::uint64_t refused = 0;
  std::uint64_t abandoned = 0;  // FrameRefs destroyed without send() or recycle()
  XdpStatistics kernel;
  // receive_packets/serve_packets: whole packets handed over (received counts their fragments),
  // and chains refused (longer than max_fragments, or holding a refused descriptor; their
  // frames recycled).
  std::uint64_t packets = 0;
  std::uint64_t invalid_chains = 0;

  friend QueueStats operator-(const QueueStats& a, const QueueStats& b) noexcept {
    return {a.received - b.received,
            a.sent - b.sent,
            a.dropped - b.dropped,
            a.forwarded - b.forwarded,
            a.tx_full - b.tx_full,
            a.wakeups - b.wakeups,
            a.polls - b.polls,
            a.empty_turns - b.empty_turns,
            a.refused - b.refused,
            a.abandoned - b.abandoned,
            a.kernel - b.kernel,
            a.packets - b.packets,
            a.invalid_chains - b.invalid_chains};
  }
};

// Where a queue's frames are (the four places are described at the top of queue.hpp).
struct FrameAccount {
  std::uint32_t free = 0, fill = 0, tx = 0, held = 0;
  [[nodiscard]] std::uint32_t total() const noexcept { return free + fill + tx + held; }
};

}  // namespace afxdp
