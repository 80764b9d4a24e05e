// What a Queue counts (QueueStats, read with Queue::stats() from any thread) and where its frames
// are (FrameAccount, Queue::account()); both plain values, so a per-interval report is
// `print(now - before)`.
#pragma once

#include <afxdp/xsk/statistics.hpp>

#include <array>
#include <cstdint>

namespace afxdp {

// What a Queue counted, and the kernel's XDP_STATISTICS for its socket.
struct QueueStats {
  std::uint64_t received = 0;     // frames taken off the rx ring
  std::uint64_t completed = 0;    // frames sent and completed: counted off the completion ring
  std::uint64_t dropped = 0;      // Verdict::drop
  std::uint64_t forwarded = 0;    // forward(): Verdict::send, onto `out`'s tx ring
  std::uint64_t tx_full = 0;      // turns that left frames on rx because tx had no room
  std::uint64_t wakeups = 0;      // sendto/recvfrom kicks
  std::uint64_t polls = 0;        // poll() calls
  std::uint64_t empty_turns = 0;  // receive/serve/forward calls that found rx empty
  // Descriptors from the kernel outside this queue's frames, completions for frames not out on
  // tx, frames refused for sending (empty, or sent inside a batch) and keep() refused (a frame
  // not handed to the handler, or kept already).
  std::uint64_t refused = 0;
  std::uint64_t abandoned = 0;  // FrameRefs destroyed without send() or recycle()
  XdpStatistics kernel;
  // receive_packets/serve_packets: whole packets handed over (received counts their fragments),
  // and chains refused (longer than max_fragments, or holding a refused descriptor; their
  // frames recycled).
  std::uint64_t packets = 0;
  std::uint64_t invalid_chains = 0;
  // Bytes of the frames taken off the rx ring (every descriptor's length, fragments included)
  // and of the frames put on the tx ring (submitted: `completed` counts them once completed).
  std::uint64_t rx_bytes = 0;
  std::uint64_t tx_bytes = 0;

  // Every counter but `kernel`, which has its own list.
  static constexpr std::array<Counter<QueueStats>, 14> counters{{
      {"received", &QueueStats::received},
      {"completed", &QueueStats::completed},
      {"dropped", &QueueStats::dropped},
      {"forwarded", &QueueStats::forwarded},
      {"tx_full", &QueueStats::tx_full},
      {"wakeups", &QueueStats::wakeups},
      {"polls", &QueueStats::polls},
      {"empty_turns", &QueueStats::empty_turns},
      {"refused", &QueueStats::refused},
      {"abandoned", &QueueStats::abandoned},
      {"packets", &QueueStats::packets},
      {"invalid_chains", &QueueStats::invalid_chains},
      {"rx_bytes", &QueueStats::rx_bytes},
      {"tx_bytes", &QueueStats::tx_bytes},
  }};

  friend constexpr QueueStats operator-(const QueueStats& a, const QueueStats& b) noexcept {
    QueueStats d = stats_detail::each_counter(a, b, stats_detail::minus);
    d.kernel = a.kernel - b.kernel;
    return d;
  }
  friend constexpr QueueStats operator+(const QueueStats& a, const QueueStats& b) noexcept {
    QueueStats sum = stats_detail::each_counter(a, b, stats_detail::plus);
    sum.kernel = a.kernel + b.kernel;
    return sum;
  }
  friend bool operator==(const QueueStats&, const QueueStats&) = default;
};
static_assert(sizeof(QueueStats) ==
              QueueStats::counters.size() * sizeof(std::uint64_t) + sizeof(XdpStatistics));

// Where a queue's frames are (the four places are described at the top of queue.hpp).
struct FrameAccount {
  std::uint32_t free = 0, fill = 0, tx = 0, held = 0;
  [[nodiscard]] std::uint32_t total() const noexcept { return free + fill + tx + held; }
};

}  // namespace afxdp
