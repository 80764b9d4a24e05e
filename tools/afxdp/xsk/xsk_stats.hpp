// How the benchmarks report what their queues count (afxdp::QueueStats): the statistics thread
// takes a Sample of each queue and prints `now - prev` every interval, then a summary.
#pragma once

#include "xsk/xsk_options.hpp"

#include <afxdp/queue_stats.hpp>

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace afxdp::tool {

// One socket at one moment: what its Queue counted (the kernel's XDP_STATISTICS in it with -x).
struct Sample {
  QueueStats stats;
  double seconds = 0;  // since the start

  friend Sample operator-(const Sample& a, const Sample& b) noexcept {
    return {a.stats - b.stats, a.seconds - b.seconds};
  }
};

// Where every UMEM frame was at the end, summed over the queues' frame ledgers (AFXDP_FRAME_LEDGER
// builds; `enabled` is false otherwise and the rest is zero).
struct LedgerTotals {
  bool enabled = false;
  std::uint64_t errors = 0;  // hand-overs from a place the frame was not in, or frames held
  std::string first_error;   // by the application at the end
  std::uint64_t frames = 0;  // in every UMEM
  std::uint64_t free = 0, fill = 0, application = 0, tx = 0;
};

// What a report line says about the socket it describes.
struct SocketLabel {
  std::uint32_t index = 0;  // sock<index>
  std::string interface;
  std::uint32_t queue = 0;
};

class Reporter {
 public:
  Reporter(const XskOptions& options, std::string mode, std::FILE* out);
  // One interval of one socket: `delta` is now - prev, `total` is now.
  void print(const SocketLabel& socket, const Sample& delta, const Sample& total) const;
  // The end: totals over all sockets and average rates over `seconds`.
  void summary(const std::vector<Sample>& totals, double seconds,
               const LedgerTotals& ledger = {}) const;

 private:
  void json_summary(const Sample& sum, std::size_t sockets, double seconds,
                    const LedgerTotals& ledger) const;
  void text_summary(const Sample& sum, std::size_t sockets, double seconds,
                    const LedgerTotals& ledger) const;
  // The text rows of an interval and of the summary: rates of `counted` over `seconds`, then
  // the totals in `total`.
  void text_rows(const Sample& counted, double seconds, const Sample& total) const;
  const XskOptions& options_;
  std::string mode_;  // "xdp-drv" or "xdp-skb"
  std::FILE* out_;
};

}  // namespace afxdp::tool
