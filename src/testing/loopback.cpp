// The kernel's side of testing::Loopback. What it does at each step follows the kernel's copy
// mode (net/xdp/xsk.c, xsk_buff_pool.c): receive takes a buffer, copies, publishes rx, then moves
// the fill consumer; a kick sends up to a budget of tx descriptors, each needing a completion
// slot first, and skips (and counts) invalid ones; it does not complete them (copy mode on
// Linux 6.18 does: docs/rings.md), so a sender that relies on either is caught.
#include <afxdp/detail/queue_kernel.hpp>
#include <afxdp/detail/uapi.hpp>
#include <afxdp/packet.hpp>
#include <afxdp/rings/tx_descriptor.hpp>
#include <afxdp/testing/fake_ring.hpp>
#include <afxdp/testing/loopback.hpp>
#include <afxdp/xsk/umem.hpp>

#include "../port_state.hpp"

#include <algorithm>
#include <bit>
#include <cstring>
#include <linux/bpf.h>
#include <optional>
#include <poll.h>
#include <stdexcept>
#include <thread>

namespace afxdp::detail {

struct LoopbackQueue {
  explicit LoopbackQueue(const testing::LoopbackConfig& c)
      : fill(c.fill_size != 0 ? c.fill_size : c.ring_size),
        completion(c.completion_size != 0 ? c.completion_size : c.ring_size),
        rx(c.ring_size),
        tx(c.ring_size),
        fill_ring(fill.layout()),
        completion_ring(completion.layout()),
        rx_ring(rx.layout()),
        tx_ring(tx.layout()) {
    fill.set_need_wakeup(false);
    rx.set_need_wakeup(false);
    completion.set_need_wakeup(false);
    // Copy mode asks for every tx kick (xp_assign_dev sets the flag and nothing clears it).
    tx.set_need_wakeup(c.need_wakeup);
  }
  testing::FakeRing<std::uint64_t> fill, completion;
  testing::FakeRing<xdp_desc> rx, tx;
  FillRing fill_ring;
  CompletionRing completion_ring;
  RxRing rx_ring;
  TxRing tx_ring;
  std::byte* area = nullptr;        // the UMEM this queue's addresses are offsets in
  std::uint64_t first = 0;          // this queue's frames: first + i * frame_size
  std::vector<std::uint64_t> kept;  // buffers taken off fill and kept when rx was full
  std::vector<std::vector<std::byte>> wire;
  std::vector<std::byte> tx_packet;  // a tx chain taken so far (multi_buffer)
  std::vector<std::uint64_t> tx_packet_addresses;
  std::vector<std::uint64_t> pending_completions;
  XdpStatistics statistics;
  std::uint64_t kicks = 0;
};

class LoopbackKernel {
 public:
  // One allocation; a UMEM per queue, or (shared_umem) one for all with a range per queue.
  explicit LoopbackKernel(const testing::LoopbackConfig& c)
      : config(c),
        span(std::uint64_t{c.frames_per_queue} * c.frame_size),
        umem_size(c.shared_umem ? span * c.queues : span),
        memory(std::make_unique<std::byte[]>(span * c.queues)) {
    for (std::uint32_t i = 0; i < c.queues; ++i) {
      queues.push_back(std::make_unique<LoopbackQueue>(c));
      queues.back()->area = memory.get() + (c.shared_umem ? 0 : span * i);
      queues.back()->first = c.shared_umem ? span * i : 0;
    }
  }
  LoopbackQueue& at(std::uint32_t queue) {
    if (queue >= queues.size()) {
      throw std::out_of_range("loopback queue " + std::to_string(queue) + " does not exist");
    }
    return *queues[queue];
  }

  [[nodiscard]] bool valid(const xdp_desc& d) const noexcept {
    return valid_tx_descriptor(d, {.umem_size = umem_size,
                                   .chunk_size = config.frame_size,
                                   .unaligned_chunks = config.unaligned_chunks,
                                   .multi_buffer = config.multi_buffer});
  }

  // The buffer a fill-ring entry lends, or nothing when the kernel would refuse it
  // (xsk_buff_pool.c: xp_check_aligned rounds down to the chunk; xp_check_unaligned takes the
  // base as given, offset bits dropped, and wants a whole chunk from it inside the UMEM).
  [[nodiscard]] std::optional<std::uint64_t> fill_buffer(std::uint64_t entry) const noexcept {
    const std::uint64_t size = config.frame_size;
    if (!config.unaligned_chunks) {
      const std::uint64_t chunk = entry & ~(size - 1);
      return chunk < umem_size ? std::optional(chunk) : std::nullopt;
    }
    const std::uint64_t base = entry & XSK_UNALIGNED_BUF_ADDR_MASK;
    return base < umem_size && size <= umem_size - base ? std::optional(base) : std::nullopt;
  }
  // The rx descriptor's address for data `offset` bytes into the buffer at `base`: the offset in
  // the upper 16 bits in unaligned mode (xp_get_handle).
  [[nodiscard]] std::uint64_t rx_address(std::uint64_t base, std::uint64_t offset) const noexcept {
    return config.unaligned_chunks ? base | offset << XSK_UNALIGNED_BUF_OFFSET_SHIFT
                                   : base + offset;
  }

  // What sendto() does in copy mode. Out of line and never inlined: scripts/cost leaves it out
  // of the count by its name (--toggle-collect), as the kernel's work.
  void kick(std::uint32_t queue);
  // Copy mode's transmit (xsk_generic_xmit): up to tx_budget descriptors.
  void send(LoopbackQueue& q);
  // poll(2) on the queue's socket (xsk_poll).
  short poll(std::uint32_t queue, short events);
  // What xsk_poll reports, without driving tx: POLLIN while the rx ring holds entries
  // (!xskq_prod_is_empty), POLLOUT while the tx ring holds at most half its size
  // (xsk_tx_writeable); each only where the socket has that ring.
  [[nodiscard]] short readiness(const LoopbackQueue& q) const noexcept {
    short ready = 0;
    if (config.receive && q.rx.producer() != q.rx.consumer()) ready |= POLLIN;
    if (config.transmit && q.tx.producer() - q.tx.consumer() <= config.ring_size / 2) {
      ready |= POLLOUT;
    }
    return ready;
  }

  static void drop_tx_packet(LoopbackQueue& q) {
    q.tx_packet.clear();
    q.tx_packet_addresses.clear();
  }

  void publish_completions(LoopbackQueue& q) {
    const std::uint32_t n = q.completion.produce(q.pending_completions);
    q.pending_completions.erase(q.pending_completions.begin(), q.pending_completions.begin() + n);
  }

  testing::LoopbackConfig config;
  std::uint64_t span;       // one queue's frames, in bytes
  std::uint64_t umem_size;  // what a descriptor's address may reach
  std::unique_ptr<std::byte[]> memory;
  std::vector<std::unique_ptr<LoopbackQueue>> queues;
  bool hold_fill = false;
  bool delay_completions = false;
};

[[gnu::noinline]] void LoopbackKernel::kick(std::uint32_t queue) {
  LoopbackQueue& q = at(queue);
  ++q.kicks;
  send(q);
}

void LoopbackKernel::send(LoopbackQueue& q) {
  for (std::uint32_t sent = 0; sent < config.tx_budget; ++sent) {
    // A completion slot is reserved before a descriptor is taken: none, and tx waits.
    if (q.completion.free_slots() <= q.pending_completions.size() + q.tx_packet_addresses.size()) {
      return;
    }
    const std::vector<xdp_desc> next = q.tx.consume(1);
    if (next.empty()) {
      ++q.statistics.tx_ring_empty_descs;
      return;
    }
    const xdp_desc& d = next.front();
    if (!valid(d)) {
      // Consumed, never completed; so is the chain it was part of.
      q.statistics.tx_invalid_descs += 1 + q.tx_packet_addresses.size();
      drop_tx_packet(q);
      continue;
    }
    const std::byte* data = q.area + resolve_address(d.addr, config.unaligned_chunks);
    q.tx_packet.insert(q.tx_packet.end(), data, data + d.len);
    q.tx_packet_addresses.push_back(d.addr);
    if ((d.options & uapi::xdp_pkt_contd) != 0) {
      // More than MAX_SKB_FRAGS + 1: the kernel drops the chain (EOVERFLOW), uncompleted.
      if (q.tx_packet_addresses.size() == max_fragments) {
        q.statistics.tx_invalid_descs += q.tx_packet_addresses.size();
        drop_tx_packet(q);
      }
      continue;
    }
    q.wire.push_back(std::exchange(q.tx_packet, {}));
    q.pending_completions.insert(q.pending_completions.end(), q.tx_packet_addresses.begin(),
                                 q.tx_packet_addresses.end());
    q.tx_packet_addresses.clear();
  }
}

// The kernel's poll drives tx in copy mode (for a socket bound with need_wakeup), then reports. A
// poll waiting for POLLOUT is woken when what it sent is freed (sock_wfree, sk_write_space) and
// drives tx again; so while POLLOUT is asked, not ready, and the last round sent something, go
// round again. Nothing else changes the Loopback's state while a poll would wait, so what is not
// ready now never becomes ready: the caller's timeout.
short LoopbackKernel::poll(std::uint32_t queue, short events) {
  LoopbackQueue& q = at(queue);
  for (;;) {
    const std::uint32_t consumed = q.tx.consumer();
    if (config.transmit && config.need_wakeup) send(q);  // xsk_poll: only with need_wakeup
    const short ready = readiness(q);
    if ((ready & events) != 0 || (events & POLLOUT) == 0 || q.tx.consumer() == consumed) {
      return ready;
    }
  }
}

// What a loopback Queue asks instead of a socket (detail/queue_kernel.hpp). No timing model: the
// loopback's state changes only when the test acts, so nothing sleeps.
class LoopbackQueueKernel final : public QueueKernel {
 public:
  LoopbackQueueKernel(LoopbackKernel& kernel, std::uint32_t queue) noexcept
      : kernel_(kernel), queue_(queue) {}

  // The queue index is the Queue's own, so at() cannot throw; only an allocation in this test
  // double can, and then std::terminate ending the test is the right outcome.
  // NOLINTNEXTLINE(bugprone-exception-escape)
  int kick_tx() noexcept override {
    kernel_.kick(queue_);
    return 0;
  }
  // Counted by the Queue, nothing else: the loopback receives when a test injects.
  int wake_rx() noexcept override { return 0; }
  PollResult poll(short /*events*/, std::chrono::nanoseconds /*timeout*/) noexcept override {
    std::this_thread::yield();
    return {rx_ready() ? POLLIN : 0, 0};
  }
  bool poll_any(std::span<QueueKernel* const> kernels, std::span<int> /*errors*/,
                std::chrono::nanoseconds /*timeout*/) noexcept override {
    std::this_thread::yield();
    return std::any_of(kernels.begin(), kernels.end(), [](QueueKernel* k) {
      return static_cast<LoopbackQueueKernel*>(k)->rx_ready();
    });
  }
  [[nodiscard]] XdpStatistics statistics() const override {
    return kernel_.queues.at(queue_)->statistics;
  }

 private:
  // As the Queue looks: its own rx ring object, peeked and put back.
  [[nodiscard]] bool rx_ready() const noexcept {
    RxRing& rx = kernel_.queues[queue_]->rx_ring;
    const std::uint32_t n = rx.peek(1);
    rx.cancel(n);
    return n != 0;
  }

  LoopbackKernel& kernel_;
  std::uint32_t queue_;
};

}  // namespace afxdp::detail

namespace afxdp::testing {
namespace {

// The Port's config for these sizes, validated once: the Loopback's refusals are Port::open's.
ValidatedPortConfig port_config(const LoopbackConfig& c) {
  if (c.queues == 0) throw std::invalid_argument("queues: must be at least 1");
  if (c.tx_budget == 0) throw std::invalid_argument("tx_budget: must be at least 1");
  if (c.completion_size != 0 && !std::has_single_bit(c.completion_size)) {
    throw std::invalid_argument("completion_size: " + std::to_string(c.completion_size) +
                                " must be a power of two (or 0: ring_size)");
  }
  PortConfig config{.frames_per_queue = c.frames_per_queue,
                    .frame_size = c.frame_size,
                    .headroom = c.headroom,
                    .ring_size = c.ring_size,
                    .fill_size = c.fill_size,
                    .bind = BindMode::native_copy,
                    .need_wakeup = c.need_wakeup,
                    .receive = c.receive,
                    .transmit = c.transmit,
                    .unaligned_chunks = c.unaligned_chunks,
                    .multi_buffer = c.multi_buffer};
  return validated(config);
}

std::unique_ptr<Port::State> loopback_state(const LoopbackConfig& c,
                                            const ValidatedPortConfig& config,
                                            detail::LoopbackKernel& k) {
  auto state = std::make_unique<Port::State>();
  state->config = *config;
  std::vector<detail::QueueSetup> setups;
  for (std::uint32_t i = 0; i < c.queues; ++i) {
    detail::LoopbackQueue& q = *k.queues[i];
    detail::QueueSetup s;
    s.interface = "loopback";
    s.id = i;
    s.fill = &q.fill_ring;
    s.completion = &q.completion_ring;
    s.rx = c.receive ? &q.rx_ring : nullptr;
    s.tx = c.transmit ? &q.tx_ring : nullptr;
    s.area = q.area;
    s.first = q.first;
    s.frames = c.frames_per_queue;
    s.frame_size = c.frame_size;
    s.headroom = c.headroom;
    s.unaligned = c.unaligned_chunks;
    s.multi_buffer = c.multi_buffer;
    s.fill_frames = c.receive ? c.frames_per_queue : 0;
    s.need_wakeup = c.need_wakeup;
    state->kernels.push_back(std::make_unique<detail::LoopbackQueueKernel>(k, i));
    s.kernel = state->kernels.back().get();
    s.owners = c.shared_umem ? &state->owners : nullptr;
    setups.push_back(std::move(s));
  }
  state->queues.build(setups);
  state->per_interface = c.queues;
  state->owners.span = k.span;
  for (Queue& q : state->queues.span()) state->owners.queues.push_back(&q);
  return state;
}

}  // namespace

Loopback::Loopback(const LoopbackConfig& config) : Loopback(config, port_config(config)) {}

// The sizes are checked (port_config) before the kernel's side is built on them.
Loopback::Loopback(const LoopbackConfig& config, const ValidatedPortConfig& accepted)
    : kernel_(std::make_unique<detail::LoopbackKernel>(config)),
      port_(Port::from_state(loopback_state(config, accepted, *kernel_))) {}

Loopback::~Loopback() = default;

bool Loopback::inject(std::uint32_t queue, std::span<const std::byte> frame) {
  detail::LoopbackQueue& q = kernel_->at(queue);
  const LoopbackConfig& c = kernel_->config;
  const std::uint32_t offset = XDP_PACKET_HEADROOM + c.headroom;
  const std::size_t room = c.frame_size - offset;  // each buffer's share, as the kernel fills it
  const std::size_t parts = frame.size() <= room ? 1 : (frame.size() + room - 1) / room;
  if (parts > 1 && (!c.multi_buffer || parts > max_fragments)) {
    ++q.statistics.rx_dropped;
    return false;
  }
  // A chain needs rx room for all of it before any buffer is taken.
  if (parts > 1 && q.rx.free_slots() < parts) {
    ++q.statistics.rx_ring_full;
    return false;
  }
  std::vector<std::uint64_t> chunks;
  while (chunks.size() < parts) {
    if (!q.kept.empty()) {
      chunks.push_back(q.kept.back());
      q.kept.pop_back();
      continue;
    }
    const std::vector<std::uint64_t> entry = q.fill.consume(1, !kernel_->hold_fill);
    if (entry.empty()) {
      // The buffers taken so far stay the kernel's, for the next packet.
      q.kept.insert(q.kept.end(), chunks.begin(), chunks.end());
      ++q.statistics.rx_fill_ring_empty_descs;
      ++q.statistics.rx_dropped;
      return false;
    }
    const std::optional<std::uint64_t> chunk = kernel_->fill_buffer(entry.front());
    if (!chunk) {
      ++q.statistics.rx_invalid_descs;
      q.kept.insert(q.kept.end(), chunks.begin(), chunks.end());
      return false;
    }
    chunks.push_back(*chunk);
  }
  std::vector<xdp_desc> descs;
  for (std::size_t i = 0; i < parts; ++i) {
    const std::size_t at = i * room;
    const std::size_t len = std::min(room, frame.size() - at);
    if (len != 0) std::memcpy(q.area + chunks[i] + offset, frame.data() + at, len);
    descs.push_back({kernel_->rx_address(chunks[i], offset), static_cast<std::uint32_t>(len),
                     i + 1 < parts ? uapi::xdp_pkt_contd : 0U});
  }
  if (q.rx.produce(descs) == 0) {
    ++q.statistics.rx_ring_full;
    q.kept.insert(q.kept.end(), chunks.begin(), chunks.end());
    return false;
  }
  return true;
}

std::vector<std::vector<std::byte>> Loopback::transmitted(std::uint32_t queue) {
  detail::LoopbackQueue& q = kernel_->at(queue);
  if (!kernel_->delay_completions) kernel_->publish_completions(q);
  return std::exchange(q.wire, {});
}

XdpStatistics Loopback::statistics(std::uint32_t queue) const {
  return kernel_->at(queue).statistics;
}

std::uint64_t Loopback::kicks(std::uint32_t queue) const { return kernel_->at(queue).kicks; }

short Loopback::poll(std::uint32_t queue, short events) { return kernel_->poll(queue, events); }

short Loopback::readiness(std::uint32_t queue) const {
  return kernel_->readiness(kernel_->at(queue));
}

Loopback::Rings Loopback::rings(std::uint32_t queue) {
  detail::LoopbackQueue& q = kernel_->at(queue);
  return {.fill = &q.fill_ring,
          .completion = &q.completion_ring,
          .rx = &q.rx_ring,
          .tx = &q.tx_ring,
          .fill_layout = q.fill.layout(),
          .completion_layout = q.completion.layout(),
          .rx_layout = q.rx.layout(),
          .tx_layout = q.tx.layout(),
          .area = q.area,
          .umem_size = kernel_->umem_size,
          .frame_size = kernel_->config.frame_size};
}

void Loopback::kick(std::uint32_t queue) {
  kernel_->kick(queue);  // at(queue) in there throws for a queue that does not exist
}

void Loopback::hold_fill_consumer(bool on) noexcept {
  kernel_->hold_fill = on;
  if (!on) {
    for (auto& q : kernel_->queues) q->fill.publish_consumer();
  }
}

void Loopback::release_fill_consumer(std::uint32_t queue) noexcept {
  if (queue < kernel_->queues.size()) kernel_->queues[queue]->fill.publish_consumer();
}

void Loopback::delay_completions(bool on) noexcept { kernel_->delay_completions = on; }

void Loopback::complete_delayed(std::uint32_t queue) {
  kernel_->publish_completions(kernel_->at(queue));
}

void Loopback::force_rx_producer(std::uint32_t queue, std::uint32_t index) noexcept {
  if (queue < kernel_->queues.size()) kernel_->queues[queue]->rx.force_producer(index);
}

bool Loopback::inject_descriptor(std::uint32_t queue, const xdp_desc& descriptor) {
  return kernel_->at(queue).rx.produce(std::span(&descriptor, 1)) == 1;
}

}  // namespace afxdp::testing

namespace afxdp::testing {

bool Loopback::inject_completion(std::uint32_t queue, std::uint64_t address) {
  return kernel_->at(queue).completion.produce(std::span(&address, 1)) == 1;
}

}  // namespace afxdp::testing
