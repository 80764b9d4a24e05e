// Queue::send(std::span<FrameRef>): kept frames sent as one batch, in order, each FrameRef dealt
// with once; what does not fit stays in its FrameRef, and every frame stays accounted for.
#include "expect_accounted.hpp"
#include "sequence_packet.hpp"

#include <afxdp/frame_ref.hpp>
#include <afxdp/queue.hpp>
#include <afxdp/testing/loopback.hpp>

#include <gtest/gtest.h>

#include <cstring>
#include <span>
#include <vector>

namespace {

using afxdp::Frame;
using afxdp::FrameRef;
using afxdp::Frames;
using afxdp::Queue;
using afxdp::testing::Loopback;
using queue_test::expect_accounted;

using queue_test::packet;

// Injects packets first..first+n-1 and keeps every frame the queue receives.
void receive_and_keep(Loopback& lb, Queue& q, std::uint32_t first, std::uint32_t n,
                      std::vector<FrameRef>& kept) {
  for (std::uint32_t i = 0; i < n; ++i) ASSERT_TRUE(lb.inject(0, packet(first + i)));
  q.receive([&](Frames frames) {
    for (Frame f : frames) kept.push_back(q.keep(f));
  });
}

TEST(FrameRefSend, SendsEveryKeptFrameInOrderAsOneBatch) {
  Loopback lb({.frames_per_queue = 32, .ring_size = 16});
  Queue& q = lb.port().queues()[0];
  std::vector<FrameRef> kept;
  receive_and_keep(lb, q, 0, 8, kept);
  ASSERT_EQ(kept.size(), 8U);
  EXPECT_EQ(q.account().held, 8U);
  EXPECT_EQ(q.send(std::span<FrameRef>(kept)), 8U);
  for (const FrameRef& ref : kept) EXPECT_FALSE(ref);
  EXPECT_EQ(q.account().held, 0U);
  q.flush();
  const auto wire = lb.transmitted(0);
  ASSERT_EQ(wire.size(), 8U);
  for (std::uint32_t i = 0; i < 8; ++i) EXPECT_EQ(wire[i], packet(i));
  q.receive([](Frames) {});  // collects the completions
  EXPECT_EQ(q.stats().completed, 8U);
  EXPECT_EQ(q.account().tx, 0U);
  expect_accounted(q);
}

TEST(FrameRefSend, StopsWhereTheTxRingIsFullAndLeavesTheRestToSendLater) {
  Loopback lb({.frames_per_queue = 32, .ring_size = 8});
  Queue& q = lb.port().queues()[0];
  std::vector<FrameRef> kept;
  receive_and_keep(lb, q, 0, 8, kept);
  receive_and_keep(lb, q, 8, 4, kept);
  ASSERT_EQ(kept.size(), 12U);
  EXPECT_EQ(q.send(std::span<FrameRef>(kept)), 8U);  // the tx ring's 8 slots
  for (std::uint32_t i = 0; i < 8; ++i) EXPECT_FALSE(kept[i]) << i;
  for (std::uint32_t i = 8; i < 12; ++i) EXPECT_TRUE(kept[i]) << i << " was lost";
  EXPECT_EQ(q.account().held, 4U);
  expect_accounted(q);
  ASSERT_EQ(lb.transmitted(0).size(), 8U);
  q.receive([](Frames) {});  // collects the completions: room again
  EXPECT_EQ(q.send(std::span<FrameRef>(kept).subspan(8)), 4U);
  q.flush();
  const auto wire = lb.transmitted(0);
  ASSERT_EQ(wire.size(), 4U);
  for (std::uint32_t i = 0; i < 4; ++i) EXPECT_EQ(wire[i], packet(8 + i));
  q.receive([](Frames) {});
  EXPECT_EQ(q.account().held, 0U);
  EXPECT_EQ(q.account().tx, 0U);
  expect_accounted(q);
}

TEST(FrameRefSend, AnEmptyPacketIsRecycledAndCountedAndAnEmptyFrameRefSkipped) {
  Loopback lb({.frames_per_queue = 32, .ring_size = 16});
  Queue& q = lb.port().queues()[0];
  std::vector<FrameRef> kept;
  receive_and_keep(lb, q, 0, 3, kept);
  ASSERT_EQ(kept.size(), 3U);
  ASSERT_TRUE(kept[1].frame().resize(0));
  kept.emplace_back();  // empty: nothing to send
  EXPECT_EQ(q.send(std::span<FrameRef>(kept)), 4U);
  for (const FrameRef& ref : kept) EXPECT_FALSE(ref);
  EXPECT_EQ(q.stats().refused, 1U);
  q.flush();
  const auto wire = lb.transmitted(0);
  ASSERT_EQ(wire.size(), 2U);  // never an empty descriptor
  EXPECT_EQ(wire[0], packet(0));
  EXPECT_EQ(wire[1], packet(2));
  q.receive([](Frames) {});
  EXPECT_EQ(q.account().held, 0U);
  expect_accounted(q);
}

// serve() holds the tx ring's reserved window while its handler runs: a send from there would
// publish into it. Refused and counted, as send(FrameRef&&) is.
TEST(FrameRefSend, FromInsideAServeHandlerSendsNothing) {
  Loopback lb({.frames_per_queue = 32, .ring_size = 16});
  Queue& q = lb.port().queues()[0];
  std::vector<FrameRef> kept;
  receive_and_keep(lb, q, 0, 2, kept);
  ASSERT_TRUE(lb.inject(0, packet(9)));
  std::uint32_t sent_inside = 99;
  q.serve([&](Frame&) {
    sent_inside = q.send(std::span<FrameRef>(kept));
    return afxdp::Verdict::drop;
  });
  EXPECT_EQ(sent_inside, 0U);
  EXPECT_TRUE(kept[0]);
  EXPECT_TRUE(kept[1]);
  EXPECT_EQ(q.stats().refused, 1U);
  EXPECT_EQ(q.send(std::span<FrameRef>(kept)), 2U);
  q.flush();
  EXPECT_EQ(lb.transmitted(0).size(), 2U);
  q.receive([](Frames) {});
  expect_accounted(q);
}

}  // namespace
