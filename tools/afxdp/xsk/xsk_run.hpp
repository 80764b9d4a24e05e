// What the three benchmarks share: open the Port, run one pinned thread per queue
// (afxdp::run_per_queue), print statistics every interval, stop on -d, -C, SIGINT or SIGTERM,
// print the summary. The data path itself is the library's (afxdp::Queue); a benchmark adds
// only its loop over it.
#pragma once

#include "xsk/xsk_options.hpp"
#include "xsk/xsk_stats.hpp"

#include <afxdp/port.hpp>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <stop_token>
#include <vector>

namespace afxdp::tool {

// The packet limit of -C, shared by every queue thread: each claims what it is about to count
// (only with -C is this shared word touched on the data path).
class PacketBudget {
 public:
  explicit PacketBudget(std::uint64_t limit) noexcept : limited_(limit != 0), left_(limit) {}
  // Up to n packets that may still be counted; 0 when the limit is reached.
  std::uint32_t claim(std::uint32_t n) noexcept {
    if (!limited_) return n;
    std::uint64_t left = left_.load(std::memory_order_relaxed);
    for (;;) {
      const std::uint64_t take = left < n ? left : n;
      if (take == 0) return 0;
      if (left_.compare_exchange_weak(left, left - take, std::memory_order_relaxed)) {
        return static_cast<std::uint32_t>(take);
      }
    }
  }
  // Give back what was claimed and not used.
  void refund(std::uint32_t n) noexcept {
    if (limited_) left_.fetch_add(n, std::memory_order_relaxed);
  }
  [[nodiscard]] bool exhausted() const noexcept {
    return limited_ && left_.load(std::memory_order_relaxed) == 0;
  }

 private:
  bool limited_;
  std::atomic<std::uint64_t> left_;
};

// What one queue's loop is given besides its Queue and stop token.
struct QueueContext {
  const BenchOptions& options;
  PacketBudget& budget;
  double rate = 0;  // txpush: this queue's share of --rate, 0: no limit
  // Queue::wait's timeout when idle: with -p a poll() this long at most (so that a stop is seen
  // soon); without, 0: yield the CPU instead of sleeping.
  std::chrono::milliseconds idle_timeout{0};
};

using QueueLoop = std::function<void(Queue&, const std::stop_token&, const QueueContext&)>;

// The Port the options ask for (pure: unit-tested).
PortConfig port_config(const BenchOptions& options);

// Set up, run and report one benchmark; returns the exit code. Throws on a set-up failure.
// `prepare` runs on the main thread after the Port is open, before any queue thread starts.
int run_benchmark(const BenchOptions& options, const QueueLoop& loop,
                  const std::function<void(Port&)>& prepare = {});

}  // namespace afxdp::tool
