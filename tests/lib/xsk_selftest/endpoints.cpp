// The two backends' Endpoints (a Socket; a Loopback queue) and Ends, which builds either.
#include "harness.hpp"

#include <afxdp/xsk/interface.hpp>

#include <algorithm>
#include <poll.h>
#include <stdexcept>

namespace afxdp::conformance {
namespace {

class SocketEndpoint final : public Endpoint {
 public:
  explicit SocketEndpoint(Socket& socket)
      : Endpoint({.rx = socket.rx(),
                  .tx = socket.tx(),
                  .fill = socket.fill(),
                  .completion = socket.completion(),
                  .umem = {socket.umem().data(0), socket.umem().size(), socket.umem().config()},
                  .name = socket.name(),
                  .mac = afxdp::mac_address(socket.config().interface)}),
        socket_(socket) {}
  WakeStatus wake_tx() noexcept override { return socket_.wake_tx(); }
  WakeStatus wake_rx() noexcept override { return socket_.wake_rx(); }
  int poll(short events, int timeout_ms) noexcept override {
    return socket_.poll(events, timeout_ms);
  }
  [[nodiscard]] XdpStatistics statistics() const override { return socket_.statistics(); }

 private:
  Socket& socket_;
};

// A Loopback queue as one end of a link: its kick hands what the queue sent to the peer queue at
// once, as veth's skb mode receives inside the sender's sendto; so does its poll, which drives tx
// as the kernel's does in copy mode (Loopback::poll). The Loopback receives when a frame is
// injected, so recvfrom has nothing to do. `transmits`: the end has a tx ring on veth (both do
// on the Loopback); one without never drives tx in poll (xsk_poll checks xs->tx), so that its
// tx_ring_empty_descs stay as veth's.
class LoopbackEndpoint final : public Endpoint {
 public:
  LoopbackEndpoint(testing::Loopback& loopback, std::uint32_t queue, std::uint32_t peer,
                   const UmemConfig& config, bool transmits)
      : Endpoint(parts(loopback.rings(queue), queue, config)),
        loopback_(loopback),
        queue_(queue),
        peer_(peer),
        transmits_(transmits) {}
  // An allocation failing in this test double ends the test (std::terminate), as it should.
  // NOLINTNEXTLINE(bugprone-exception-escape)
  WakeStatus wake_tx() noexcept override {
    loopback_.kick(queue_);
    deliver();
    return {};
  }
  WakeStatus wake_rx() noexcept override { return {}; }
  // The Loopback never changes while poll(2) would wait: no event of `events` now is a timeout.
  // NOLINTNEXTLINE(bugprone-exception-escape): as wake_tx
  // An end without a tx ring only reads the rings' shared words (readiness): run_traffic's rx
  // thread polls it while its tx thread kicks the other end, which delivers into this one.
  int poll(short events, int /*timeout_ms*/) noexcept override {
    if (!transmits_) return loopback_.readiness(queue_) & ~POLLOUT & (events | POLLERR | POLLHUP);
    const short ready = loopback_.poll(queue_, events);
    deliver();
    return ready & (events | POLLERR | POLLHUP);
  }
  [[nodiscard]] XdpStatistics statistics() const override { return loopback_.statistics(queue_); }

 private:
  static Parts parts(const testing::Loopback::Rings& r, std::uint32_t queue,
                     const UmemConfig& config) {
    return {.rx = *r.rx,
            .tx = *r.tx,
            .fill = *r.fill,
            .completion = *r.completion,
            .umem = {r.area, r.umem_size, config},
            .name = "loopback:" + std::to_string(queue),
            .mac = {0x02, 0, 0, 0, 0, static_cast<std::uint8_t>(queue)}};
  }
  void deliver() {
    for (const auto& frame : loopback_.transmitted(queue_)) loopback_.inject(peer_, frame);
  }
  testing::Loopback& loopback_;
  std::uint32_t queue_, peer_;
  bool transmits_;
};

// The Port's Queues lend every frame they can when they start; the cases lend their own
// (Receiver::lend). So take them all back first, as an application may: receive them and keep
// them. Nothing is counted in XDP_STATISTICS on the way.
void reclaim_lent_frames(testing::Loopback& loopback, std::uint32_t queue, std::uint32_t lent) {
  const testing::Loopback::Rings r = loopback.rings(queue);
  const std::vector<std::byte> runt(min_packet);
  while (lent > 0) {
    const std::uint32_t n = std::min(lent, r.rx->size());
    for (std::uint32_t i = 0; i < n; ++i) {
      if (!loopback.inject(queue, runt)) throw std::logic_error("reclaim: the Loopback refused");
    }
    if (r.rx->peek(n) != n) throw std::logic_error("reclaim: fewer frames on rx than injected");
    r.rx->release(n);
    lent -= n;
  }
  if (loopback.statistics(queue) != XdpStatistics{}) {
    throw std::logic_error("reclaim: the Loopback counted something");
  }
}

testing::LoopbackConfig loopback_config(const LinkSetup& s) {
  // One size for rx and tx rings: the rx ring's (STAT_RX_FULL's 1024).
  return {.queues = 2,
          .frames_per_queue = s.rx_frames + s.tx_frames,
          .frame_size = s.frame_size,
          .ring_size = s.rx_size,
          .fill_size = s.fill_size,
          .completion_size = s.completion_size,
          .headroom = s.rx_headroom,  // the Loopback's one headroom, for both queues
          .need_wakeup = true,
          .tx_budget = tx_budget,
          .multi_buffer = s.multi_buffer,
          .unaligned_chunks = s.unaligned};
}

}  // namespace

std::unique_ptr<Endpoint> socket_endpoint(Socket& socket) {
  return std::make_unique<SocketEndpoint>(socket);
}

Mode loopback_mode() {
  return {"loopback", AttachMode::skb, BindMode::native_copy, false, Backend::loopback};
}

Ends::Ends(const Mode& mode, const LinkSetup& s) : setup(s) {
  if (mode.backend == Backend::veth) {
    veth_.emplace(s.multi_buffer ? jumbo_veth(mode) : make_veth(mode));
    link_ = std::make_unique<Link>(*veth_, mode, s);
    a_ = socket_endpoint(link_->a);
    b_ = socket_endpoint(link_->b);
    return;
  }
  const testing::LoopbackConfig config = loopback_config(s);
  loopback_ = std::make_unique<testing::Loopback>(config);
  const std::uint32_t fill = config.fill_size != 0 ? config.fill_size : config.ring_size;
  for (std::uint32_t queue : {0U, 1U}) {
    reclaim_lent_frames(*loopback_, queue, std::min(config.frames_per_queue, fill));
  }
  const UmemConfig umem{.frame_count = config.frames_per_queue,
                        .frame_size = s.frame_size,
                        .headroom = s.rx_headroom,
                        .fill_size = s.fill_size,
                        .completion_size = s.completion_size,
                        .unaligned_chunks = s.unaligned};
  a_ = std::make_unique<LoopbackEndpoint>(*loopback_, 0, 1, umem, true);
  b_ = std::make_unique<LoopbackEndpoint>(*loopback_, 1, 0, umem, s.bidirectional);
}

Ends::~Ends() = default;

std::uint64_t Ends::dropped_by_sender() const {
  if (!veth_) return 0;
  return interface_link(interface_index(veth_->a())).tx_dropped;
}

}  // namespace afxdp::conformance
