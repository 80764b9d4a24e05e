// What the benchmarks count and how they report it. Each queue thread owns one Counters (padded to
// a cache line: the statistics thread reads it while the owner writes); the statistics thread
// takes Samples and prints `now - prev` every interval, then a summary.
#pragma once

#include "xsk/xsk_options.hpp"

#include <afxdp/cache_line.hpp>
#include <afxdp/statistics.hpp>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace afxdp::tool {

// The application's own counts for one socket.
struct AppCounts {
  std::uint64_t rx = 0;           // packets taken off the rx ring
  std::uint64_t tx = 0;           // packets the kernel completed (sent)
  std::uint64_t syscalls = 0;     // wake-ups and poll() calls
  std::uint64_t empty_polls = 0;  // loop turns that found nothing to do
  std::uint64_t refused = 0;      // rx descriptors outside the UMEM: counted, never read
  // -F: rx and tx count descriptors (fragments); these count whole packets and refused chains.
  std::uint64_t packets = 0;
  std::uint64_t invalid_chains = 0;

  friend AppCounts operator+(const AppCounts& a, const AppCounts& b) noexcept {
    return {a.rx + b.rx,
            a.tx + b.tx,
            a.syscalls + b.syscalls,
            a.empty_polls + b.empty_polls,
            a.refused + b.refused,
            a.packets + b.packets,
            a.invalid_chains + b.invalid_chains};
  }
  friend AppCounts operator-(const AppCounts& a, const AppCounts& b) noexcept {
    return {a.rx - b.rx,
            a.tx - b.tx,
            a.syscalls - b.syscalls,
            a.empty_polls - b.empty_polls,
            a.refused - b.refused,
            a.packets - b.packets,
            a.invalid_chains - b.invalid_chains};
  }
};

// Written by one queue thread only (a relaxed load and store, no read-modify-write), read by the
// statistics thread.
struct alignas(cache_line) Counters {
  std::atomic<std::uint64_t> rx{0};
  std::atomic<std::uint64_t> tx{0};
  std::atomic<std::uint64_t> syscalls{0};
  std::atomic<std::uint64_t> empty_polls{0};
  std::atomic<std::uint64_t> refused{0};

  static void add(std::atomic<std::uint64_t>& counter, std::uint64_t n) noexcept {
    counter.store(counter.load(std::memory_order_relaxed) + n, std::memory_order_relaxed);
  }
  [[nodiscard]] AppCounts read() const noexcept {
    return {rx.load(std::memory_order_relaxed), tx.load(std::memory_order_relaxed),
            syscalls.load(std::memory_order_relaxed), empty_polls.load(std::memory_order_relaxed),
            refused.load(std::memory_order_relaxed)};
  }
};

// One socket at one moment: our counts and the kernel's.
struct Sample {
  AppCounts app;
  XdpStatistics xdp;
  double seconds = 0;  // since the start

  friend Sample operator-(const Sample& a, const Sample& b) noexcept {
    return {a.app - b.app, a.xdp - b.xdp, a.seconds - b.seconds};
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
  Reporter(const BenchOptions& options, std::string mode, std::FILE* out);
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
  // rx as the reader counts it: whole packets with -F, else descriptors (the same then).
  [[nodiscard]] std::uint64_t rx_packets(const AppCounts& a) const noexcept {
    return options_.frags ? a.packets : a.rx;
  }
  // tx counts descriptors completed: with -F they are fragments, and the JSON says so.
  [[nodiscard]] const char* tx_pps_key() const noexcept {
    return options_.frags ? "tx_frags_pps" : "tx_pps";
  }
  [[nodiscard]] const char* tx_count_key() const noexcept {
    return options_.frags ? "tx_frags" : "tx_packets";
  }
  const BenchOptions& options_;
  std::string mode_;  // "xdp-drv" or "xdp-skb"
  std::FILE* out_;
};

}  // namespace afxdp::tool
