// afxdp::testing::Loopback: the kernel's side of N queues' four rings, in memory, so that a
// packet handler is tested in an ordinary unit test, without root and without a NIC.
//
//   afxdp::testing::Loopback lb({.queues = 1, .frames_per_queue = 64});
//   afxdp::Queue& q = lb.port().queues()[0];
//   lb.inject(0, frame_bytes);
//   q.serve(my_handler);
//   auto sent = lb.transmitted(0);   // what the handler sent back, byte for byte
//
// lb.port()'s Queues run the very same code as on a real interface. What is modelled: the ring
// protocol, copy mode (tx moves only when the application kicks or polls, at most tx_budget
// descriptors per kick), poll(2) on the raw rings, need_wakeup on tx, XDP_STATISTICS counted where
// the kernel counts them, the rx offset (XDP_PACKET_HEADROOM plus the UMEM headroom), unaligned
// chunks, and faults a test can switch on. Not modelled: an XDP program (every injected frame goes
// to the queue's socket), time, zero-copy. docs/testing.md says more.
//
// Threading: one thread drives the loopback (inject, kick, poll, transmitted, the faults). The
// rings rings(q) gives may be driven by another thread, one thread per queue's rings: each is a
// FakeRing, whose kernel side and user side may be two threads. readiness() reads only the
// rings' shared words, so that thread may call it too. (The conformance tier's rx thread receives
// on queue 1 while its tx thread kicks queue 0, whose delivery injects into queue 1.)
#pragma once

#include <afxdp/port.hpp>
#include <afxdp/rings/ring.hpp>
#include <afxdp/xsk/statistics.hpp>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

namespace afxdp::detail {
class LoopbackKernel;
}

namespace afxdp::testing {

struct LoopbackConfig {
  std::uint32_t queues = 1;
  std::uint32_t frames_per_queue = 4096;
  std::uint32_t frame_size = 4096;
  std::uint32_t ring_size = 2048;     // every ring
  std::uint32_t fill_size = 0;        // the fill ring alone; 0: ring_size
  std::uint32_t completion_size = 0;  // the completion ring alone; 0: ring_size
  std::uint32_t headroom = 0;         // the UMEM's
  bool need_wakeup = true;
  std::uint32_t tx_budget = 32;  // descriptors one kick sends, as copy mode's sendto()
  bool shared_umem = false;      // one UMEM for every queue: forward() without copying
  // XDP_USE_SG: inject() splits a frame larger than one UMEM frame into a chain of fragments, as
  // the kernel does, and tx chains (XDP_PKT_CONTD) go out as one frame.
  bool multi_buffer = false;
  // XDP_UMEM_UNALIGNED_CHUNK_FLAG: addresses as the kernel's unaligned mode reads and writes them
  // (resolve_address in umem.hpp); frame_size need not be a power of two. Ordinary memory: one
  // contiguous allocation, as a hugepage-backed UMEM is, so no page-crossing rule applies.
  bool unaligned_chunks = false;
  bool receive = true;   // PortConfig::receive: false, the queues have no rx ring
  bool transmit = true;  // PortConfig::transmit: false, the queues have no tx ring
};

class Loopback {
 public:
  // Throws what Port::open would for the same sizes (std::invalid_argument naming the field).
  explicit Loopback(const LoopbackConfig& config = {});
  Loopback(const Loopback&) = delete;
  Loopback& operator=(const Loopback&) = delete;
  ~Loopback();

  Port& port() noexcept { return port_; }

  // Receive one frame on `queue` as the kernel does: take a fill entry (or a buffer the kernel
  // kept), copy the bytes at XDP_PACKET_HEADROOM + headroom, publish rx. False when it cannot,
  // counted where XDP_STATISTICS counts it: too long (rx_dropped), fill ring empty
  // (rx_fill_ring_empty_descs and rx_dropped), rx ring full (rx_ring_full). With multi_buffer a
  // longer frame takes as many fill entries as it needs (at most max_fragments) and is
  // published as one chain, or not at all.
  bool inject(std::uint32_t queue, std::span<const std::byte> frame);
  // The frames sent on `queue` since the last call, in order, byte for byte; their completions
  // are published (unless delay_completions is on).
  std::vector<std::vector<std::byte>> transmitted(std::uint32_t queue);
  [[nodiscard]] XdpStatistics statistics(std::uint32_t queue) const;
  [[nodiscard]] std::uint64_t kicks(std::uint32_t queue) const;  // sendto() calls seen

  // ---- A loop of one's own on the rings (bench/cost's raw-ring and libxdp loops) ----
  // The very ring objects port().queues()[queue] drives, their layouts and its UMEM. Never drive
  // them and that Queue both: each keeps its own cached indices.
  struct Rings {
    FillRing* fill = nullptr;
    CompletionRing* completion = nullptr;
    RxRing* rx = nullptr;
    TxRing* tx = nullptr;
    RingLayout fill_layout, completion_layout, rx_layout, tx_layout;
    std::byte* area = nullptr;    // the UMEM's first byte (shared_umem: every queue's)
    std::uint64_t umem_size = 0;  // bytes
    std::uint32_t frame_size = 0;
  };
  Rings rings(std::uint32_t queue);
  // sendto() on the queue's socket, as a raw loop kicks: the same call a Queue's kick makes.
  void kick(std::uint32_t queue);
  // poll(2) on the queue's socket as the kernel's xsk_poll answers it in copy mode: it drives tx
  // as a kick does (not counted in kicks()), then reports POLLIN while the rx ring holds entries
  // and POLLOUT while the tx ring holds at most half its size (xsk_tx_writeable). While `events`
  // asks POLLOUT that is not ready and tx moved, it goes round again, as the kernel's poll is
  // woken by what it sent. Returns every ready event (poll(2) masks them with `events`); none of
  // `events` ready means a poll that times out: nothing else would change the Loopback meanwhile.
  // The frames sent wait for transmitted(), as a kick's do.
  short poll(std::uint32_t queue, short events);
  // What poll would report now, without driving tx.
  [[nodiscard]] short readiness(std::uint32_t queue) const;

  // ---- Faults a test can switch on ----
  // Publish rx entries but keep the fill ring's consumer index back until release_fill_consumer()
  // (the kernel publishes rx before it moves the fill consumer).
  void hold_fill_consumer(bool on) noexcept;
  void release_fill_consumer(std::uint32_t queue) noexcept;
  // transmitted() returns the bytes but the completions wait for complete_delayed().
  void delay_completions(bool on) noexcept;
  void complete_delayed(std::uint32_t queue);
  // A hostile producer: publish `index` on the rx ring without writing any descriptor.
  void force_rx_producer(std::uint32_t queue, std::uint32_t index) noexcept;
  // Publish an rx descriptor as it is (outside the UMEM, say), taking no fill entry.
  bool inject_descriptor(std::uint32_t queue, const xdp_desc& descriptor);
  // Publish a completion for an address that was never sent (outside the UMEM, say).
  bool inject_completion(std::uint32_t queue, std::uint64_t address);

 private:
  Loopback(const LoopbackConfig& config, const ValidatedPortConfig& accepted);

  std::unique_ptr<detail::LoopbackKernel> kernel_;
  Port port_;
};

}  // namespace afxdp::testing
