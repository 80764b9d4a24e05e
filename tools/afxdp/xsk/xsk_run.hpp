// What the three benchmarks share: open the Port, run one pinned thread per queue
// (afxdp::run_per_queue), print statistics every interval, stop on -d, -C, SIGINT or SIGTERM,
// print the summary. The data path itself is the library's (afxdp::Queue); a benchmark adds
// only its loop over it.
#pragma once

#include "xsk/xsk_options.hpp"
#include "xsk/xsk_stats.hpp"

#include <afxdp/port.hpp>
#include <afxdp/run.hpp>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <exception>
#include <memory>
#include <stop_token>
#include <utility>
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
  const XskOptions& options;
  PacketBudget& budget;
  double rate = 0;  // txpush: this queue's share of --rate, 0: no limit
  // Queue::wait's timeout when idle: with -p a poll() this long at most (so that a stop is seen
  // soon); without, 0: yield the CPU instead of sleeping.
  std::chrono::milliseconds idle_timeout{0};
};

// The Port the options ask for (pure: unit-tested).
PortConfig port_config(const XskOptions& options);

// Port::open with the config finish_xsk_options validated (options.port), not checked again; a
// refusal said in the tool's words (zero-copy refused, another XDP program attached).
Port open_port(const XskOptions& options);

// One benchmark from the checks to the summary: the constructor checks the system, opens the
// Port and drops privileges; operator() runs loop(Queue&, const std::stop_token&, const
// QueueContext&) on one pinned thread per queue until -d, -C or a signal, prints the summary and
// returns the exit code. Throws on a set-up failure, and a loop's failure after the summary.
class BenchmarkRun {
 public:
  explicit BenchmarkRun(const XskOptions& options);
  BenchmarkRun(const BenchmarkRun&) = delete;
  BenchmarkRun& operator=(const BenchmarkRun&) = delete;
  ~BenchmarkRun();

  template <class Loop>
  int operator()(Loop&& loop) {
    try {
      run_per_queue(
          port(), [&](Queue& q, const std::stop_token& stop) { loop(q, stop, context()); },
          run_config());
    } catch (...) {
      failed(std::current_exception());
    }
    return finish();
  }

 private:
  Port& port() noexcept;
  [[nodiscard]] const QueueContext& context() const noexcept;
  [[nodiscard]] const ValidatedRunConfig& run_config() const noexcept;
  void failed(const std::exception_ptr& failure) noexcept;
  int finish();

  struct State;
  std::unique_ptr<State> state_;
};

template <class Loop>
int run_benchmark(const XskOptions& options, Loop&& loop) {
  BenchmarkRun run(options);
  return run(std::forward<Loop>(loop));
}

}  // namespace afxdp::tool
