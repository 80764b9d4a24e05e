// The kernel's poll cases: poll() drives rx and tx and says so, and returns 0 on a timeout when
// there is nothing to receive or no room to send. On veth poll(2) on the sockets; on the Loopback
// its model of the kernel's xsk_poll (Loopback::poll), which drives tx in copy mode as the
// kernel's does.
#include "harness.hpp"

#include <chrono>
#include <cstring>
#include <poll.h>
#include <string>

namespace afxdp::conformance {
namespace {

// As SEND_RECEIVE: the receiver's statistics 0 (but tx_ring_empty_descs), no invalid descriptor.
void expect_clean_statistics(Ends& ends) {
  const XdpStatistics rx = ends.b().statistics();
  EXPECT_EQ(rx, (XdpStatistics{.tx_ring_empty_descs = rx.tx_ring_empty_descs}));
  EXPECT_EQ(ends.a().statistics().tx_invalid_descs, 0U);
}

TEST_P(Conformance, POLL_RX) {
  AFXDP_REQUIRE_BACKEND();
  Ends ends(GetParam());
  EXPECT_EQ(
      send_receive(ends.a(), ends.b(), ends.setup, default_packets, min_packet, {.poll_rx = true}),
      "");
  expect_clean_statistics(ends);
}

TEST_P(Conformance, POLL_TX) {
  AFXDP_REQUIRE_BACKEND();
  Ends ends(GetParam());
  // No sendto: poll() alone must send (copy mode).
  EXPECT_EQ(
      send_receive(ends.a(), ends.b(), ends.setup, default_packets, min_packet, {.poll_tx = true}),
      "");
  expect_clean_statistics(ends);
}

// Nothing sent: poll(POLLIN) on a socket with frames lent times out with 0.
TEST_P(Conformance, POLL_RXQ_FULL) {
  AFXDP_REQUIRE_BACKEND();
  Ends ends(GetParam());
  Receiver receiver = receiver_on(ends.b(), ends.setup);
  receiver.lend();
  EXPECT_EQ(ends.b().poll(POLLIN, 200), 0);
  EXPECT_EQ(ends.b().rx().peek(1), 0U);
  EXPECT_EQ(ends.b().statistics(), XdpStatistics{});
}

// What the kernel's own POLL_TXQ_FULL loop saw (kernel_poll_txq_tmout).
struct KernelLoop {
  std::uint32_t queued = 0;  // packets submitted
  std::uint32_t polls = 0;
  std::uint32_t kicks = 0;  // sendto while paced
  bool poll_timed_out = false;
  std::string error;  // a poll or sendto error: the kernel's case fails on it
};

// The kernel's set-up for POLL_TXQ_FULL (testapp_poll_txq_tmout) and its loop as __send_pkts runs
// it for a tx-only socket (no receiver, so timeout = true): 2 KiB frames, 8192 packets of 2048 B
// in batches of 64 at the UMEM's 1024 buffers in turn, each batch followed by poll(POLLOUT, 1 s);
// while the ring has no room for a batch, poll too. A poll that times out ends it, passed; an
// error fails. Its pacing counts every packet submitted as in flight and nothing takes one away
// (no receiver), so from 960 on (the UMEM less a batch) it only kicks with sendto. The kernel's
// harness ends it with SIGUSR1 as soon as it starts a single-thread case; ours stops after `limit`.
KernelLoop kernel_poll_txq_tmout(Endpoint& a, const MacAddress& dst, std::chrono::seconds limit) {
  constexpr std::uint32_t frame = 2048;
  constexpr std::uint32_t packets = 2 * default_packets;
  constexpr std::uint32_t buffers = default_frames;
  constexpr std::uint32_t paced_at = (buffers * frame - batch * frame) / frame;
  KernelLoop loop;
  const auto failed = [&](const char* what, int r) {
    loop.error = std::string(what) + " returned " + std::to_string(r);
  };
  const auto until = std::chrono::steady_clock::now() + limit;
  TxRing& tx = a.tx();
  while (loop.queued < packets && std::chrono::steady_clock::now() < until) {
    if (loop.queued >= paced_at) {
      const WakeStatus status = a.wake_tx();
      ++loop.kicks;
      if (!status.transient()) {
        failed("sendto", -status.error);
        return loop;
      }
      continue;
    }
    if (tx.reserve(batch) != batch) {
      const int r = a.poll(POLLOUT, 1000);
      ++loop.polls;
      if (r < 0) failed("poll(POLLOUT)", r);
      loop.poll_timed_out = r == 0;
      if (r <= 0) return loop;
      continue;
    }
    for (std::uint32_t i = 0; i < batch; ++i) {
      const std::uint64_t addr = std::uint64_t{(loop.queued + i) % buffers} * frame;
      const auto bytes = lab::test_frame(loop.queued + i, frame, dst, a.mac());
      std::memcpy(a.umem().data(addr), bytes.data(), frame);
      tx.at(i) = xdp_desc{addr, frame, 0};
    }
    tx.submit(batch);
    loop.queued += batch;
    const int r = a.poll(POLLOUT, 1000);
    ++loop.polls;
    if (r < 0) failed("poll(POLLOUT)", r);
    loop.poll_timed_out = r == 0;
    if (r <= 0) return loop;
  }
  return loop;
}

// A tx ring that cannot drain: POLLOUT only while the ring is at most half full (xsk_poll's
// xsk_tx_writeable), so poll(POLLOUT) on a full ring times out with 0. The kernel keeps the ring
// full by itself here: the completion ring has 32 slots and nobody takes completions.
TEST_P(Conformance, POLL_TXQ_FULL) {
  AFXDP_REQUIRE_BACKEND();
  {
    // First the kernel's own set-up and loop, measured and pinned: what it would see here.
    Ends kernel_ends(GetParam(), {.frame_size = 2048});
    const KernelLoop k =
        kernel_poll_txq_tmout(kernel_ends.a(), kernel_ends.b().mac(), std::chrono::seconds(2));
    EXPECT_EQ(k.error, "") << "the kernel's case fails on a poll or sendto error";
    // What it sees on veth: 2048 B packets are valid in 2 KiB frames, and the sending veth drops
    // each (longer than its MTU), so the ring drains and every poll says POLLOUT; at 960 the
    // pacing holds the loop, which kicks from then on (the kernel's harness has killed it by then).
    // The Loopback delivers them instead (to a queue with nothing lent), the same otherwise.
    const std::string rule =
        GetParam().backend == Backend::veth
            ? measured("the kernel's POLL_TXQ_FULL loop: no poll times out, paced at 960")
            : std::string();
    EXPECT_EQ(k.queued, 960U) << rule;
    EXPECT_EQ(k.polls, 15U) << rule;
    EXPECT_FALSE(k.poll_timed_out) << rule;
    EXPECT_EQ(kernel_ends.a().tx().outstanding(), 0U) << rule;
    if (GetParam().backend == Backend::veth) {
      EXPECT_EQ(kernel_ends.dropped_by_sender(), 960U) << rule;
    }
    RecordProperty("kernel_loop_queued", static_cast<int>(k.queued));
    RecordProperty("kernel_loop_polls", static_cast<int>(k.polls));
    RecordProperty("kernel_loop_kicks", static_cast<int>(k.kicks));
    RecordProperty("kernel_loop_poll_timed_out", k.poll_timed_out ? 1 : 0);
    RecordProperty("kernel_loop_tx_outstanding",
                   static_cast<int>(kernel_ends.a().tx().outstanding()));
    RecordProperty("kernel_loop_tx_invalid_descs",
                   static_cast<int>(kernel_ends.a().statistics().tx_invalid_descs));
    RecordProperty("kernel_loop_dropped_by_sender",
                   static_cast<int>(kernel_ends.dropped_by_sender()));
  }
  const std::uint32_t ring = 2048;
  Ends ends(GetParam(), {.tx_frames = ring, .completion_size = tx_budget});
  Endpoint& a = ends.a();
  const auto stream = uniform_stream(ring, min_packet);
  Sender sender = sender_on(a, ends.b(), stream, ends.setup);
  TxRing& tx = a.tx();
  ASSERT_EQ(sender.send(ring), ring);
  ASSERT_EQ(tx.outstanding(), ring);

  // poll sends one budget (32), which fills the completion ring, and the ring stays full.
  EXPECT_EQ(a.poll(POLLOUT, 200), 0);
  EXPECT_EQ(tx.outstanding(), ring - tx_budget);
  CompletionRing& cq = a.completion();
  const auto in_completion_ring = [&] {
    const std::uint32_t n = cq.peek(ring);
    cq.cancel(n);
    return n;
  };
  EXPECT_TRUE(settle(a, [&] { return in_completion_ring() == tx_budget; }));
  EXPECT_EQ(in_completion_ring(), tx_budget);

  // Drain one budget per sendto, each after the previous one's completions are all in, down to
  // one budget above half the ring.
  const auto all_completed_in_ring = [&] { return sender.awaiting() - tx.outstanding() == 0; };
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(3);
  while (tx.outstanding() > ring / 2 + tx_budget && std::chrono::steady_clock::now() < deadline) {
    sender.complete();
    if (all_completed_in_ring()) {
      a.wake_tx();
    }
  }
  ASSERT_EQ(tx.outstanding(), ring / 2 + tx_budget);
  ASSERT_TRUE(settle(a, [&] {
    sender.complete();
    return all_completed_in_ring();
  }));
  // Now poll sends one more budget, which leaves the ring exactly half full: writable.
  const int revents = a.poll(POLLOUT, 1000);
  EXPECT_NE(revents & POLLOUT, 0) << "revents " << revents;
  EXPECT_EQ(tx.outstanding(), ring / 2);
  EXPECT_EQ(run_traffic(sender, {}), "");
  EXPECT_EQ(sender.error(), "");
  EXPECT_EQ(a.statistics().tx_invalid_descs, 0U);
}

}  // namespace
}  // namespace afxdp::conformance
