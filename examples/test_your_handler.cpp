// Test your packet handler without root and without a NIC. afxdp::testing::Loopback plays the
// kernel's side of a Queue's rings in memory; the handler runs in the very same Queue::serve as
// on a real interface, so what is checked here is what runs there. docs/testing.md says what the
// loopback models and what it does not.
//
// Build: link afxdp::testing and GTest::gtest_main (CMake), or `pkg-config --cflags --libs
// afxdp-testing` (which brings GoogleTest and its main()).
#include <afxdp/queue.hpp>
#include <afxdp/testing/loopback.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <vector>

// The handler under test: the one examples/echo.cpp gives Queue::serve.
afxdp::Verdict swap_macs(afxdp::Frame& frame) {
  if (frame.size() < 14) return afxdp::Verdict::drop;  // not even an Ethernet header
  const std::span<std::byte> bytes = frame.data();
  std::swap_ranges(bytes.begin(), bytes.begin() + 6, bytes.begin() + 6);
  return afxdp::Verdict::send_back;
}

namespace {

using Bytes = std::vector<std::byte>;

// dst 02:00:00:00:00:0d, src 02:00:00:00:00:05, then `size - 12` bytes that differ per frame.
Bytes frame(std::size_t size, unsigned char tag) {
  Bytes f(size);
  for (std::size_t i = 0; i < size; ++i) f[i] = std::byte(static_cast<unsigned char>(tag + i));
  const unsigned char macs[12] = {2, 0, 0, 0, 0, 0xd, 2, 0, 0, 0, 0, 5};
  std::copy(macs, macs + 12, reinterpret_cast<unsigned char*>(f.data()));
  return f;
}

Bytes swapped(Bytes f) {
  std::swap_ranges(f.begin(), f.begin() + 6, f.begin() + 6);
  return f;
}

TEST(SwapMacs, SendsEveryFrameBackByteForByteWithTheMacsSwapped) {
  afxdp::testing::Loopback lb({.frames_per_queue = 64, .ring_size = 32});
  afxdp::Queue& q = lb.port().queues()[0];
  std::vector<Bytes> expected;
  for (unsigned char i = 0; i < 20; ++i) {
    const Bytes in = frame(60U + 70U * i, i);  // 60 to 1390 bytes
    ASSERT_TRUE(lb.inject(0, in));
    expected.push_back(swapped(in));
  }
  EXPECT_EQ(q.serve(swap_macs), 20U);
  q.flush();  // copy mode: the kernel sends only when kicked
  EXPECT_EQ(lb.transmitted(0), expected);
  EXPECT_TRUE(q.drain(std::chrono::milliseconds(100)));  // every frame completed, none lost
  EXPECT_EQ(q.stats().completed, 20U);
  EXPECT_EQ(q.account().total(), q.frames());
}

TEST(SwapMacs, DropsWhatIsNotAnEthernetFrame) {
  afxdp::testing::Loopback lb({.frames_per_queue = 64, .ring_size = 32});
  afxdp::Queue& q = lb.port().queues()[0];
  ASSERT_TRUE(lb.inject(0, frame(13, 1)));
  ASSERT_TRUE(lb.inject(0, frame(14, 2)));
  EXPECT_EQ(q.serve(swap_macs), 2U);
  q.flush();
  EXPECT_EQ(lb.transmitted(0), std::vector<Bytes>{swapped(frame(14, 2))});
  EXPECT_EQ(q.stats().dropped, 1U);
}

TEST(SwapMacs, EachQueueAnswersOnItsOwnTxRing) {
  afxdp::testing::Loopback lb({.queues = 2, .frames_per_queue = 64, .ring_size = 32});
  ASSERT_TRUE(lb.inject(1, frame(64, 1)));
  afxdp::Queue& q1 = lb.port().queues()[1];
  EXPECT_EQ(q1.id(), 1U);
  EXPECT_EQ(lb.port().queues()[0].serve(swap_macs), 0U);
  EXPECT_EQ(q1.serve(swap_macs), 1U);
  q1.flush();
  EXPECT_TRUE(lb.transmitted(0).empty());
  EXPECT_EQ(lb.transmitted(1), std::vector<Bytes>{swapped(frame(64, 1))});
}

// The rx ring holds 8; the fill ring has buffers for more. The kernel keeps the buffer of a frame
// that finds rx full and counts it in rx_ring_full (XDP_STATISTICS), nowhere else.
TEST(SwapMacs, FramesBeyondTheRxRingAreCountedAsRxRingFull) {
  afxdp::testing::Loopback lb({.frames_per_queue = 64, .ring_size = 8, .fill_size = 16});
  afxdp::Queue& q = lb.port().queues()[0];
  int accepted = 0;
  for (unsigned char i = 0; i < 11; ++i) accepted += lb.inject(0, frame(64, i)) ? 1 : 0;
  EXPECT_EQ(accepted, 8);
  const afxdp::XdpStatistics kernel = lb.statistics(0);
  EXPECT_EQ(kernel.rx_ring_full, 3U);
  EXPECT_EQ(kernel.rx_dropped, 0U);
  EXPECT_EQ(kernel.rx_fill_ring_empty_descs, 0U);
  // The application reads the same counters through XDP_STATISTICS.
  EXPECT_EQ(q.stats().kernel.rx_ring_full, 3U);
  // Served, the 8 go back out; the queue takes frames again.
  EXPECT_EQ(q.serve(swap_macs), 8U);
  q.flush();
  EXPECT_EQ(lb.transmitted(0).size(), 8U);
  EXPECT_TRUE(lb.inject(0, frame(64, 99)));
}

// 8 frames, all lent on the fill ring. With none left to receive into, the kernel drops the
// frame and counts it twice: rx_fill_ring_empty_descs and rx_dropped.
TEST(SwapMacs, FramesBeyondTheFillRingAreCountedAsFillRingEmpty) {
  afxdp::testing::Loopback lb({.frames_per_queue = 8, .ring_size = 8});
  afxdp::Queue& q = lb.port().queues()[0];
  int accepted = 0;
  for (unsigned char i = 0; i < 11; ++i) accepted += lb.inject(0, frame(64, i)) ? 1 : 0;
  EXPECT_EQ(accepted, 8);
  const afxdp::XdpStatistics kernel = lb.statistics(0);
  EXPECT_EQ(kernel.rx_fill_ring_empty_descs, 3U);
  EXPECT_EQ(kernel.rx_dropped, 3U);
  EXPECT_EQ(kernel.rx_ring_full, 0U);
  EXPECT_EQ(q.stats().kernel.rx_fill_ring_empty_descs, 3U);
  // Once sent and completed, the frames return to the fill ring and receive again.
  EXPECT_EQ(q.serve(swap_macs), 8U);
  q.flush();
  EXPECT_EQ(lb.transmitted(0).size(), 8U);
  EXPECT_TRUE(q.drain(std::chrono::milliseconds(100)));
  q.serve(swap_macs);  // an idle turn: the completed frames go back on the fill ring
  EXPECT_TRUE(lb.inject(0, frame(64, 99)));
}

}  // namespace
