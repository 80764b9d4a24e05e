// The kernel's traffic cases: frames from an AF_XDP socket on one end to one on the other (veth,
// or the Loopback's two queues), received in order, intact, at the exact offset, each completion
// exactly once.
#include "harness.hpp"

namespace afxdp::conformance {
namespace {

TEST_P(Conformance, SEND_RECEIVE) {
  AFXDP_REQUIRE_BACKEND();
  Ends ends(GetParam());
  EXPECT_EQ(send_receive(ends.a(), ends.b(), ends.setup), "");
  const XdpStatistics rx = ends.b().statistics();
  EXPECT_EQ(rx, (XdpStatistics{.tx_ring_empty_descs = rx.tx_ring_empty_descs}));
  EXPECT_EQ(ends.a().statistics().tx_invalid_descs, 0U);
}

TEST_P(Conformance, SEND_RECEIVE_2K_FRAME) {
  AFXDP_REQUIRE_BACKEND();
  Ends ends(GetParam(), {.frame_size = 2048});
  EXPECT_EQ(send_receive(ends.a(), ends.b(), ends.setup), "");
}

TEST_P(Conformance, SEND_RECEIVE_SINGLE_PKT) {
  AFXDP_REQUIRE_BACKEND();
  Ends ends(GetParam());
  EXPECT_EQ(send_receive(ends.a(), ends.b(), ends.setup, 1), "");
}

TEST_P(Conformance, UMEM_HEADROOM) {
  AFXDP_REQUIRE_BACKEND();
  Ends ends(GetParam(), {.rx_headroom = 128});  // UMEM_HEADROOM_TEST_SIZE
  EXPECT_EQ(send_receive(ends.a(), ends.b(), ends.setup),
            "");  // the receiver checks offset 256 + 128
}

TEST_P(Conformance, BIDIRECTIONAL) {
  AFXDP_REQUIRE_BACKEND();
  const LinkSetup setup{.bidirectional = true};
  Ends ends(GetParam(), setup);
  const auto stream = uniform_stream(default_packets, min_packet);
  {
    Sender sender = sender_on(ends.a(), ends.b(), stream, setup);
    Receiver receiver = receiver_on(ends.b(), setup);
    receiver.lend();
    expect_valid(receiver, sender, stream);
    EXPECT_EQ(run_traffic(sender, {&receiver}), "") << "a to b";
  }
  Sender sender = sender_on(ends.b(), ends.a(), stream, setup);
  Receiver receiver = receiver_on(ends.a(), setup);
  receiver.lend();
  expect_valid(receiver, sender, stream);
  EXPECT_EQ(run_traffic(sender, {&receiver}), "") << "b to a";
}

// The default stream at MAX_ETH_JUMBO_SIZE with both sockets bound with XDP_USE_SG (and on veth
// MTU 9000 and the programs' xdp.frags variant): each packet sent as a chain of 4096 + 4096 + 808
// bytes and received as fragments (3840 + 3840 + 1320), each fragment inside its frame at the
// rx offset, each packet whole, intact and in order.
TEST_P(Conformance, SEND_RECEIVE_9K_PACKETS) {
  AFXDP_REQUIRE_MULTI_BUFFER();
  Ends ends(GetParam(), {.multi_buffer = true});
  const auto stream = uniform_stream(default_packets, max_jumbo);
  Sender sender = sender_on(ends.a(), ends.b(), stream, ends.setup);
  Receiver receiver = receiver_on(ends.b(), ends.setup);
  receiver.lend();
  expect_valid(receiver, sender, stream);
  EXPECT_EQ(run_traffic(sender, {&receiver}), "");
  EXPECT_EQ(sender.fragments(0), 3U);
  EXPECT_EQ(receiver.descriptors(), 3 * default_packets);  // 3840 + 3840 + 1320 each
  const XdpStatistics rx = ends.b().statistics();
  EXPECT_EQ(rx, (XdpStatistics{.tx_ring_empty_descs = rx.tx_ring_empty_descs}));
  EXPECT_EQ(ends.a().statistics().tx_invalid_descs, 0U);
}

// One sendto in copy mode consumes exactly the kernel's tx budget (32) of descriptors, no more,
// and publishes the consumer index for them.
TEST_P(Conformance, TX_QUEUE_CONSUMER) {
  AFXDP_REQUIRE_BACKEND();
  Ends ends(GetParam());
  const auto stream = uniform_stream(tx_budget + 1, min_packet);
  Sender sender = sender_on(ends.a(), ends.b(), stream, ends.setup);
  Receiver receiver = receiver_on(ends.b(), ends.setup);
  receiver.lend();
  expect_valid(receiver, sender, stream);
  ASSERT_EQ(sender.send(tx_budget + 1), tx_budget + 1);
  ASSERT_EQ(ends.a().tx().outstanding(), tx_budget + 1);
  ASSERT_TRUE(ends.a().wake_tx().transient());
  EXPECT_EQ(ends.a().tx().outstanding(), 1U) << "one sendto consumed other than 32 descriptors";
  EXPECT_EQ(run_traffic(sender, {&receiver}), "");
}

// The software side of HW_SW_MIN_RING_SIZE / HW_SW_MAX_RING_SIZE: batches of 1 and of ring size
// - 1, and rings of 8192 with batches of 2048 (veth has no hardware rings to resize).
TEST_P(Conformance, HW_SW_MIN_RING_SIZE) {
  AFXDP_REQUIRE_BACKEND();
  Ends ends(GetParam());
  bool lent = false;
  for (const std::uint32_t batch_size : {1U, batch - 1}) {
    const auto stream = uniform_stream(default_packets / 4, min_packet);
    Sender sender = sender_on(ends.a(), ends.b(), stream, ends.setup);
    Receiver receiver = receiver_on(ends.b(), ends.setup);
    if (lent) {
      receiver.already_lent();
    } else {
      receiver.lend();
      lent = true;
    }
    expect_valid(receiver, sender, stream);
    EXPECT_EQ(run_traffic(sender, {&receiver}, {.tx_batch = batch_size, .rx_batch = batch_size}),
              "")
        << "batch " << batch_size;
  }
}

TEST_P(Conformance, HW_SW_MAX_RING_SIZE) {
  AFXDP_REQUIRE_BACKEND();
  const std::uint32_t max_descs = 8192;  // XSK_RING_PROD__DEFAULT_NUM_DESCS * 4
  const LinkSetup setup{.rx_frames = max_descs,
                        .tx_frames = max_descs,
                        .rx_size = max_descs,
                        .tx_size = max_descs,
                        .fill_size = max_descs,
                        .completion_size = max_descs};
  Ends ends(GetParam(), setup);
  const auto stream = uniform_stream(max_descs, min_packet);
  Sender sender = sender_on(ends.a(), ends.b(), stream, setup);
  Receiver receiver = receiver_on(ends.b(), setup);
  receiver.lend();
  expect_valid(receiver, sender, stream);
  EXPECT_EQ(run_traffic(sender, {&receiver}, {.tx_batch = 2048, .rx_batch = 2048}), "");
}

}  // namespace
}  // namespace afxdp::conformance
