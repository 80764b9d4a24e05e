// The kernel's poll cases: poll() drives rx and tx and says so, and returns 0 on a timeout when
// there is nothing to receive or no room to send. On veth poll(2) on the sockets; on the Loopback
// its model of the kernel's xsk_poll (Loopback::poll), which drives tx in copy mode as the
// kernel's does.
#include "harness.hpp"

#include <chrono>
#include <poll.h>

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

// A tx ring that cannot drain: POLLOUT only while the ring is at most half full (xsk_poll's
// xsk_tx_writeable), so poll(POLLOUT) on a full ring times out with 0. The kernel keeps the ring
// full by itself here: the completion ring has 32 slots and nobody takes completions.
TEST_P(Conformance, POLL_TXQ_FULL) {
  AFXDP_REQUIRE_BACKEND();
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
