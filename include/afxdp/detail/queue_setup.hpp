// What a Queue is made of and keeps beside its rings: QueueSetup (what Port, or
// testing::Loopback, hands it), its counters, and the batch's scope guards (the abilities it
// holds open, the unwinding of a batch whose handler threw). Internal: included by queue.hpp.
#pragma once

#include <afxdp/rings/cache_line.hpp>
#include <afxdp/rings/ring.hpp>

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>

namespace afxdp {

class Socket;
class Umem;

namespace detail {

class QueueKernel;
struct FrameOwners;

// Written by the queue's thread only (a relaxed load and store, no read-modify-write), read by
// any thread through Queue::stats().
struct alignas(cache_line) QueueCounters {
  std::atomic<std::uint64_t> received{0}, completed{0}, dropped{0}, forwarded{0}, tx_full{0},
      wakeups{0}, polls{0}, empty_turns{0}, refused{0}, abandoned{0}, packets{0}, invalid_chains{0},
      rx_bytes{0}, tx_bytes{0};
  static void add(std::atomic<std::uint64_t>& counter, std::uint64_t n) noexcept {
    counter.store(counter.load(std::memory_order_relaxed) + n, std::memory_order_relaxed);
  }
};

// Runs `undo` when a batch is left by an exception (its handler or reader threw); the normal path
// dismiss()es it first, and the destructor's test folds away there.
template <class Undo>
class OnUnwind {
 public:
  explicit OnUnwind(Undo undo) noexcept : undo_(undo) {}
  OnUnwind(const OnUnwind&) = delete;
  OnUnwind& operator=(const OnUnwind&) = delete;
  ~OnUnwind() {
    if (armed_) [[unlikely]]
      undo_();
  }
  void dismiss() noexcept { armed_ = false; }

 private:
  Undo undo_;
  bool armed_ = true;
};

// The abilities a batch holds open, withheld from its queue for the batch's scope (Queue's lacks_
// bits): while a handler or reader runs, a nested receive or serve, or a send onto tx slots the
// batch reserved, would corrupt the rings. Restored on every exit, a throw's too. A loop declares
// it after its OnUnwind, in a block around the handler's calls: the bits are back before the
// unwinding, or the batch's publishing, runs.
class BatchGuard {
 public:
  BatchGuard(std::uint8_t& lacks, std::uint8_t held) noexcept : lacks_(lacks), saved_(lacks) {
    lacks_ = static_cast<std::uint8_t>(saved_ | held);
  }
  BatchGuard(const BatchGuard&) = delete;
  BatchGuard& operator=(const BatchGuard&) = delete;
  ~BatchGuard() { lacks_ = saved_; }

 private:
  std::uint8_t& lacks_;
  std::uint8_t saved_;
};

// What Port (or testing::Loopback) hands a Queue: its rings, its frames, and whom to kick.
struct QueueSetup {
  std::string interface;
  std::uint32_t id = 0;  // the rx queue
  FillRing* fill = nullptr;
  CompletionRing* completion = nullptr;
  RxRing* rx = nullptr;  // null: no receiving
  TxRing* tx = nullptr;  // null: no sending
  std::byte* area = nullptr;
  std::uint64_t first = 0;  // this queue's frames: first + i * frame_size, i < frames
  std::uint32_t frames = 0;
  std::uint32_t frame_size = 0;   // a power of two, unless unaligned
  std::uint32_t headroom = 0;     // the UMEM's, in front of XDP_PACKET_HEADROOM
  bool unaligned = false;         // XDP_UMEM_UNALIGNED_CHUNK_FLAG addresses
  bool multi_buffer = false;      // XDP_USE_SG: received frames may be fragments of a packet
  std::uint32_t fill_frames = 0;  // lent for receiving when the queue starts
  bool need_wakeup = true;
  bool busy_poll = false;
  std::chrono::nanoseconds spin_before_sleep{0};  // PortConfig::spin_before_sleep
  int fd = -1;
  Socket* socket = nullptr;
  Umem* umem = nullptr;
  FrameOwners* owners = nullptr;  // the queues sharing this UMEM, to return forwarded frames
  QueueKernel* kernel = nullptr;  // never null: whom to kick (the socket; a test's double)
};

}  // namespace detail

}  // namespace afxdp
