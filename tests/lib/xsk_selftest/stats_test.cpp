// The kernel's statistics cases: each XDP_STATISTICS counter, exact. run_traffic drives rx and tx
// on two threads, as the kernel's test does, and returns once both are joined; each counter is
// read after that and after settle(), so the count is known when the last frame has been handled
// (the kernel's test allows one less for STAT_RX_DROPPED).
#include "harness.hpp"

#include <numeric>

namespace afxdp::conformance {
namespace {

// Every other packet too large for the room the receiver's headroom leaves: dropped and counted
// in rx_dropped. The kernel's set-up since 62838e36 (2026), which followed a315e022 (XDP_UMEM_REG
// keeps the tailroom and 128 bytes free): headroom frame - 256 - 128 - tailroom, packets of
// 192 + tailroom bytes, 64 more than that leaves.
TEST_P(Conformance, STAT_RX_DROPPED) {
  AFXDP_REQUIRE_BACKEND();
  const std::uint32_t tailroom = umem_tailroom();
  const std::uint32_t headroom =
      LinkSetup{}.frame_size - xdp_packet_headroom - min_packet * 2 - tailroom;
  const LinkSetup setup{.rx_headroom = headroom};
  Ends ends(GetParam(), setup);
  auto stream = uniform_stream(default_packets, min_packet);
  for (std::size_t i = 1; i < stream.size(); i += 2) stream[i].len = min_packet * 3 + tailroom;
  Sender sender = sender_on(ends.a(), ends.b(), stream, setup);
  Receiver receiver = receiver_on(ends.b(), setup);
  receiver.lend();
  expect_valid(receiver, sender, stream, [](std::uint32_t i) { return i % 2 == 0; });
  EXPECT_EQ(run_traffic(sender, {&receiver}), "");
  const std::uint64_t dropped = default_packets / 2;
  EXPECT_TRUE(settle(ends.b(), [&] { return ends.b().statistics().rx_dropped >= dropped; }));
  const XdpStatistics rx = ends.b().statistics();
  EXPECT_EQ(rx.rx_dropped, dropped);
  EXPECT_EQ(rx.rx_ring_full, 0U);
  EXPECT_EQ(rx.rx_fill_ring_empty_descs, 0U);
  EXPECT_EQ(rx.rx_invalid_descs, 0U);
}

// Every other descriptor 9001 bytes long (XSK_UMEM__INVALID_FRAME_SIZE) at address 0, as the
// kernel's test sends its invalid packets (pkt_get_addr: no buffer of their own): consumed and
// counted in tx_invalid_descs; the valid half arrives in order and completes. Each invalid one
// comes back once: on the completion ring (veth's copy mode, as measured on 6.18.44: asserted), or
// never, so the application takes it back once the tx ring is consumed (the Loopback, which
// models a zero-copy driver here).
TEST_P(Conformance, STAT_TX_INVALID) {
  AFXDP_REQUIRE_BACKEND();
  Ends ends(GetParam());
  auto stream = uniform_stream(default_packets, min_packet);
  for (std::size_t i = 1; i < stream.size(); i += 2) stream[i] = {.len = 9001, .addr = 0};
  Sender sender = sender_on(ends.a(), ends.b(), stream, ends.setup);
  const std::uint32_t frames_before = sender.free_frames();
  Receiver receiver = receiver_on(ends.b(), ends.setup);
  receiver.lend();
  expect_valid(receiver, sender, stream);
  EXPECT_EQ(run_traffic(sender, {&receiver}), "");
  EXPECT_EQ(sender.sent_invalid(), default_packets / 2);
  EXPECT_EQ(ends.a().statistics().tx_invalid_descs, default_packets / 2);
  EXPECT_EQ(ends.a().tx().outstanding(), 0U);
  sender.finish();
  EXPECT_EQ(sender.error(), "");
  EXPECT_EQ(sender.reclaimed() + sender.completed_invalid(), default_packets / 2);
  if (GetParam().backend == Backend::loopback) {
    EXPECT_EQ(sender.completed_invalid(), 0U);
  } else {
    EXPECT_EQ(sender.completed_invalid(), default_packets / 2)
        << measured("copy mode completes every invalid descriptor");
  }
  EXPECT_EQ(sender.free_frames(), frames_before) << "frames lost";
  RecordProperty("invalid_descriptors_completed", static_cast<int>(sender.completed_invalid()));
  EXPECT_EQ(frames_before, sender.frames());
}

// The kernel's set-up: the receiver lends its 1024 frames and gives each back to the fill ring
// once read, but never releases its rx ring (1024 entries: release_rx false). On its own thread it
// peeks and checks the first 1024 while the sender sends 1536, paced as the kernel's; the 512 after
// them find the rx ring full and are counted in rx_ring_full, exactly (the kernel asks > 0), less
// any the sending veth dropped (dropped_by_sender: nothing paces the frames past those the
// receiver expects).
TEST_P(Conformance, STAT_RX_FULL) {
  AFXDP_REQUIRE_BACKEND();
  const std::uint32_t sent = default_frames + default_frames / 2;
  const LinkSetup setup{.rx_size = default_frames};
  Ends ends(GetParam(), setup);
  const auto stream = uniform_stream(sent, min_packet);
  Sender sender = sender_on(ends.a(), ends.b(), stream, setup);
  Receiver receiver = receiver_on(ends.b(), setup);
  receiver.release_rx(false);
  std::vector<std::uint32_t> sequences(default_frames);
  std::iota(sequences.begin(), sequences.end(), 0U);
  receiver.expect(sequences, std::vector<std::uint32_t>(default_frames, min_packet));
  receiver.lend();
  ASSERT_EQ(receiver.lent(), default_frames);
  EXPECT_EQ(run_traffic(sender, {&receiver}), "");
  const auto full = [&] { return sent - default_frames - ends.dropped_by_sender(); };
  EXPECT_TRUE(settle(ends.b(), [&] { return ends.b().statistics().rx_ring_full >= full(); }));
  ASSERT_LT(ends.dropped_by_sender(), sent - default_frames) << "too few arrived to fill the ring";
  const XdpStatistics rx = ends.b().statistics();
  EXPECT_GT(rx.rx_ring_full, 0U);  // the kernel's validate_rx_full
  EXPECT_EQ(rx.rx_ring_full, full());
  EXPECT_EQ(rx.rx_dropped, 0U);
  EXPECT_EQ(rx.rx_fill_ring_empty_descs, 0U);
  EXPECT_EQ(ends.b().rx().peeked().size(), default_frames) << "the rx ring was released";
  EXPECT_EQ(receiver.receive(batch), 0U) << "a frame arrived past the full rx ring";
  EXPECT_EQ(receiver.error(), "");
  RecordProperty("dropped_by_sender", static_cast<int>(ends.dropped_by_sender()));
}

// The kernel's set-up: 1536 sent, 1024 frames lent once and never given back (use_fill_ring
// false). On its own thread the receiver checks all 1024, in order, while the sender sends; every
// frame after them finds the fill ring empty and is counted in rx_fill_ring_empty_descs: 512
// exactly (the kernel asks > 0; had it run dry sooner, one of the 1024 would be missing), less
// any the sending veth dropped (dropped_by_sender: nothing paces the frames past those the
// receiver expects).
TEST_P(Conformance, STAT_FILL_EMPTY) {
  AFXDP_REQUIRE_BACKEND();
  const std::uint32_t sent = default_frames + default_frames / 2;
  Ends ends(GetParam());
  const auto stream = uniform_stream(sent, min_packet);
  Sender sender = sender_on(ends.a(), ends.b(), stream, ends.setup);
  Receiver receiver = receiver_on(ends.b(), ends.setup);
  receiver.refill(false);
  std::vector<std::uint32_t> sequences(default_frames);
  std::iota(sequences.begin(), sequences.end(), 0U);
  receiver.expect(sequences, std::vector<std::uint32_t>(default_frames, min_packet));
  receiver.lend();
  ASSERT_EQ(receiver.lent(), default_frames);
  EXPECT_EQ(run_traffic(sender, {&receiver}), "");
  const auto starved = [&] { return sent - default_frames - ends.dropped_by_sender(); };
  EXPECT_TRUE(settle(ends.b(),
                     [&] { return ends.b().statistics().rx_fill_ring_empty_descs >= starved(); }));
  const XdpStatistics rx = ends.b().statistics();
  EXPECT_GT(rx.rx_fill_ring_empty_descs, 0U);  // the kernel's validate_fill_empty
  EXPECT_EQ(rx.rx_fill_ring_empty_descs, starved());
  EXPECT_EQ(rx.rx_dropped, starved());  // a frame with no buffer is dropped, and counted so
  EXPECT_EQ(rx.rx_ring_full, 0U);
  EXPECT_EQ(receiver.receive(batch), 0U) << "a frame arrived with no buffer lent";
  EXPECT_EQ(receiver.error(), "");
  RecordProperty("dropped_by_sender", static_cast<int>(ends.dropped_by_sender()));
}

}  // namespace
}  // namespace afxdp::conformance
