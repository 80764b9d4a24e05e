// The cost harness's measuring: callgrind counts instructions only between the two client
// requests of Meter::measured (run under --collect-atstart=no), so the Loopback that plays the
// kernel, and the handler where a cell keeps it outside, cost nothing. docs/benchmarks.md says
// how the counts are read.
//
// Threading: one thread. Benchmark-only.
#pragma once

#include <valgrind/callgrind.h>

#include <afxdp/testing/loopback.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

namespace afxdp::cost {

// How long a cell runs: warm-up batches (not counted) bring the rings to their steady state.
struct Run {
  std::uint32_t warmup = 100;
  std::uint32_t batches = 1000;
  std::uint32_t batch = 64;
};

class Meter {
 public:
  Meter(std::string cell, const Run& run) : cell_(std::move(cell)), run_(run) {}

  // Counts `work` when the cell is past its warm-up. The client request is a handful of
  // instructions; the "calibrate" cell measures it so that scripts/cost subtracts it per call.
  template <class Work>
  decltype(auto) measured(Work&& work) {
    if (!counting_) return work();
    ++calls_;
    CALLGRIND_TOGGLE_COLLECT;
    struct Off {
      ~Off() { CALLGRIND_TOGGLE_COLLECT; }
    } off;
    return work();
  }

  // The batch loop: `batch(meter)` runs one busy batch and returns the frames it handled;
  // `syscalls()` is what the loop has called so far (kicks, wake-ups, polls).
  template <class Batch, class Syscalls>
  void run(Batch&& batch, Syscalls&& syscalls) {
    for (std::uint32_t i = 0; i < run_.warmup; ++i) batch(*this);
    const std::uint64_t before = syscalls();
    // --toggle-collect on the Loopback's kick also counted the warm-up's kicks: start from zero.
    CALLGRIND_ZERO_STATS;
    counting_ = true;
    for (std::uint32_t i = 0; i < run_.batches; ++i) frames_ += batch(*this);
    counting_ = false;
    syscalls_ = syscalls() - before;
    finish();
  }

  [[nodiscard]] std::uint32_t batch_size() const noexcept { return run_.batch; }

 private:
  // Ends the cell: one callgrind dump named with what scripts/cost divides by. A batch not handled
  // whole (frames held back, refused, lost) would make the count another cell's: that fails.
  void finish() {
    if (frames_ != std::uint64_t{run_.batches} * run_.batch) {
      throw std::runtime_error(cell_ + ": " + std::to_string(frames_) + " frames in " +
                               std::to_string(run_.batches) + " batches of " +
                               std::to_string(run_.batch) + ": not every batch was busy");
    }
    const std::string desc = "cell=" + cell_ + " frames=" + std::to_string(frames_) +
                             " batches=" + std::to_string(run_.batches) +
                             " calls=" + std::to_string(calls_) +
                             " syscalls=" + std::to_string(syscalls_);
    CALLGRIND_DUMP_STATS_AT(desc.c_str());
    std::printf("%s\n", desc.c_str());
  }

  std::string cell_;
  Run run_;
  bool counting_ = false;
  std::uint64_t frames_ = 0;
  std::uint64_t calls_ = 0;
  std::uint64_t syscalls_ = 0;
};

// What every cell injects: a minimal Ethernet frame, or a packet of `size` bytes.
inline std::vector<std::byte> test_packet(std::size_t size = 64) {
  std::vector<std::byte> p(size, std::byte{0x5a});
  for (std::size_t i = 0; i < 12 && i < size; ++i) p[i] = static_cast<std::byte>(i);
  return p;
}

// The kernel's side of a busy batch: `count` packets arrive on `queue`.
inline void arrive(testing::Loopback& lb, std::uint32_t queue, std::span<const std::byte> packet,
                   std::uint32_t count) {
  for (std::uint32_t i = 0; i < count; ++i) (void)lb.inject(queue, packet);
}

// The one MAC swap every "+swap" cell runs, so that the handler's work is the same in each loop.
inline void swap_macs(std::byte* frame) noexcept {
  std::array<std::byte, 6> t{};
  __builtin_memcpy(t.data(), frame, 6);
  __builtin_memcpy(frame, frame + 6, 6);
  __builtin_memcpy(frame + 6, t.data(), 6);
}

// The Loopback every single-buffer cell runs on: the library's default sizes, and a copy-mode tx
// budget as large as the ring (Port::open raises the real one) so a kick sends all that waits.
inline testing::LoopbackConfig loopback_config(std::uint32_t queues = 1) {
  return {.queues = queues, .tx_budget = 2048, .shared_umem = queues > 1};
}

}  // namespace afxdp::cost
