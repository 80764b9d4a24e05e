// The kernel's poll cases: poll() drives rx and tx and says so, and returns 0 on a timeout when
// there is nothing to receive or no room to send.
#include "harness.hpp"

#include <chrono>
#include <poll.h>

namespace afxdp::conformance {
namespace {

TEST_P(Conformance, POLL_RX) {
  AFXDP_REQUIRE_SYSTEM();
  const auto veth = make_veth(GetParam());
  Link link(veth, GetParam());
  EXPECT_EQ(send_receive(link, default_packets, min_packet, {.poll_rx = true}), "");
}

TEST_P(Conformance, POLL_TX) {
  AFXDP_REQUIRE_SYSTEM();
  const auto veth = make_veth(GetParam());
  Link link(veth, GetParam());
  // No sendto: poll() alone must send (copy mode).
  EXPECT_EQ(send_receive(link, default_packets, min_packet, {.poll_tx = true}), "");
}

// Nothing sent: poll(POLLIN) on a socket with frames lent times out with 0.
TEST_P(Conformance, POLL_RXQ_FULL) {
  AFXDP_REQUIRE_SYSTEM();
  const auto veth = make_veth(GetParam());
  Link link(veth, GetParam());
  Receiver receiver = receiver_on(link.b, link.setup);
  receiver.lend();
  EXPECT_EQ(link.b.poll(POLLIN, 200), 0);
  EXPECT_EQ(link.b.rx().peek(1), 0U);
}

// A tx ring that cannot drain: POLLOUT only while the ring is at most half full (xsk_poll's
// xsk_tx_writeable), so poll(POLLOUT) on a full ring times out with 0. The kernel keeps the ring
// full by itself here: the completion ring has 32 slots and nobody takes completions.
TEST_P(Conformance, POLL_TXQ_FULL) {
  AFXDP_REQUIRE_SYSTEM();
  const auto veth = make_veth(GetParam());
  const std::uint32_t ring = 2048;
  const LinkSetup setup{.tx_frames = ring, .completion_size = tx_budget};
  Link link(veth, GetParam(), setup);
  const auto stream = uniform_stream(ring, min_packet);
  Sender sender = sender_on(link.a, link.b, stream, setup);
  TxRing& tx = link.a.tx();
  ASSERT_EQ(sender.send(ring), ring);
  ASSERT_EQ(tx.outstanding(), ring);

  // poll sends one budget (32), which fills the completion ring, and the ring stays full.
  EXPECT_EQ(link.a.poll(POLLOUT, 200), 0);
  EXPECT_EQ(tx.outstanding(), ring - tx_budget);
  CompletionRing& cq = link.a.completion();
  const auto in_completion_ring = [&] {
    const std::uint32_t n = cq.peek(ring);
    cq.cancel(n);
    return n;
  };
  EXPECT_TRUE(settle(link.a, [&] { return in_completion_ring() == tx_budget; }));
  EXPECT_EQ(in_completion_ring(), tx_budget);

  // Drain one budget per sendto, each after the previous one's completions are all in, down to
  // one budget above half the ring.
  const auto all_completed_in_ring = [&] { return sender.awaiting() - tx.outstanding() == 0; };
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(3);
  while (tx.outstanding() > ring / 2 + tx_budget && std::chrono::steady_clock::now() < deadline) {
    sender.complete();
    if (all_completed_in_ring()) {
      link.a.wake_tx();
    }
  }
  ASSERT_EQ(tx.outstanding(), ring / 2 + tx_budget);
  ASSERT_TRUE(settle(link.a, [&] {
    sender.complete();
    return all_completed_in_ring();
  }));
  // Now poll sends one more budget, which leaves the ring exactly half full: writable.
  const int revents = link.a.poll(POLLOUT, 1000);
  EXPECT_NE(revents & POLLOUT, 0) << "revents " << revents;
  EXPECT_EQ(tx.outstanding(), ring / 2);
  EXPECT_EQ(run_traffic(sender, {}), "");
  EXPECT_EQ(sender.error(), "");
}

}  // namespace
}  // namespace afxdp::conformance
