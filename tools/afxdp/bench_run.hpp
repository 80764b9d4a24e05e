// What the three benchmarks share: set up (privilege, checks, UMEMs, sockets, the redirect
// program), run one pinned thread per queue, print statistics every interval, stop on -d, -C,
// SIGINT or SIGTERM, print the summary.
//
// Threading: each Worker (one queue, one socket) belongs to its thread; the main thread only
// reads its Counters and flags.
#pragma once

#include "bench_options.hpp"
#include "bench_stats.hpp"
#include "idle.hpp"

#include <afxdp/frame_ledger.hpp>
#include <afxdp/socket.hpp>
#include <afxdp/umem.hpp>

#include <atomic>
#include <poll.h>
#include <cstdint>
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
  // Give back what was claimed and could not be used (the ring was full).
  void refund(std::uint32_t n) noexcept {
    if (limited_) left_.fetch_add(n, std::memory_order_relaxed);
  }
  bool exhausted() const noexcept { return limited_ && left_.load(std::memory_order_relaxed) == 0; }

 private:
  bool limited_;
  std::atomic<std::uint64_t> left_;
};

// One queue's share of everything: its socket, its frames, its counters.
struct Worker {
  Socket* socket = nullptr;
  Umem* umem = nullptr;
  std::uint64_t first_addr = 0;  // this queue's frames: first_addr + i * frame_size
  std::uint32_t frames = 0;
  std::uint32_t frame_size = 0;
  // afxdp::chunk_mask of the UMEM: turns any address the kernel hands back into its frame's
  // fill-ring address, in aligned and unaligned mode alike (umem.hpp).
  std::uint64_t chunk_mask = ~std::uint64_t{0};
  const BenchOptions* options = nullptr;
  Counters* counters = nullptr;
  PacketBudget* budget = nullptr;
  const std::atomic<bool>* stop = nullptr;
  double rate = 0;                     // packets per second for this queue (txpush), 0: no limit
  std::vector<std::uint8_t> packet;    // the frame txpush sends
  std::vector<std::vector<std::uint8_t>> replay;  // or txpush --pcap's frames, in order
  std::atomic<bool> done{false};       // the loop has returned
  std::atomic<int> error{0};           // errno of a wake-up that failed for good
  // Where each of this queue's frames is (AFXDP_FRAME_LEDGER builds only; otherwise empty and
  // every record() compiles to nothing). Owned by the queue's thread, read after it is joined.
  FrameLedger ledger;

  // The frame at `addr` (any address the kernel uses for it: rx, tx, completion) changed hands.
  void record(std::uint64_t addr, FramePlace from, FramePlace to) {
    if constexpr (FrameLedger::enabled) ledger.move(frame_of(addr) - first_addr, from, to);
  }

  bool stopping() const noexcept { return stop->load(std::memory_order_relaxed); }
  // Count a syscall; false (and the error recorded) when it failed for a reason other than the
  // expected ones (EAGAIN, EBUSY, ENOBUFS, ENETDOWN).
  bool syscall(WakeStatus status) noexcept {
    Counters::add(counters->syscalls, 1);
    if (status.transient()) return true;
    error.store(status.error, std::memory_order_relaxed);
    return false;
  }
  bool wake_rx() noexcept { return syscall(socket->wake_rx()); }
  bool wake_tx() noexcept { return syscall(socket->wake_tx()); }
  // poll(2) for `events`, 100 ms at most so that a stop request is seen soon.
  bool poll(short events) noexcept {
    const int rc = socket->poll(events, 100);
    return syscall(WakeStatus{rc < 0 ? -rc : 0});
  }
  // The rx ring was empty (rxdrop, l2fwd). When the kernel asked to be told that the fill ring
  // has frames, or with busy-poll (recvfrom runs the NAPI poll here), a syscall now; otherwise
  // wait well (idle.hpp): re-check, then poll() with -p or yield. false: the loop must end.
  bool wait_for_rx(IdleWait& idle) noexcept {
    if (options->busy_poll || socket->fill().needs_wakeup()) return wake_rx();
    if (!idle.give_up_cpu()) return true;
    if (!options->use_poll) {
      IdleWait::yield();
      return true;
    }
    return poll(POLLIN);
  }
  // The kernel's rx descriptors are not trusted: one outside the UMEM is counted and never read
  // or handed back (docs/reliability.md).
  bool refuse(const xdp_desc& desc) noexcept {
    if (umem->contains(umem->resolve(desc.addr), desc.len)) [[likely]] return false;
    Counters::add(counters->refused, 1);
    return true;
  }
  // The fill-ring address of the frame that holds `addr`, an rx or completion address: rx
  // descriptors point past the headroom, and in unaligned mode carry that offset in their upper
  // 16 bits. One AND in either mode (afxdp::chunk_mask), never a division or a branch.
  std::uint64_t frame_of(std::uint64_t addr) const noexcept { return addr & chunk_mask; }
};

struct BenchmarkLoops {
  void (*prepare)(Worker&);  // runs on the main thread before the program sees traffic
  void (*loop)(Worker&);     // runs on the queue's own pinned thread until stopping()
};

// Set up, run and report one benchmark; returns the exit code. Throws on a setup failure.
int run_benchmark(const BenchOptions& options, BenchmarkLoops loops);

// Lend the kernel up to a fill ring's worth of this queue's frames (rxdrop, l2fwd).
void fill_frames(Worker& worker);

}  // namespace afxdp::tool
