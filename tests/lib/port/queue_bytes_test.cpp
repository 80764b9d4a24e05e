// QueueStats' byte counters: rx_bytes adds up what every descriptor taken off rx carries, tx_bytes
// what every frame put on tx carries, in each verb and when a handler throws mid-batch.
#include <afxdp/queue.hpp>
#include <afxdp/testing/loopback.hpp>

#include <gtest/gtest.h>

#include <stdexcept>
#include <vector>

namespace {

using afxdp::Frame;
using afxdp::Frames;
using afxdp::Packet;
using afxdp::Queue;
using afxdp::Verdict;
using afxdp::testing::Loopback;

std::vector<std::byte> frame_of(std::size_t size) { return std::vector<std::byte>(size); }

// Frames of these sizes injected on `queue`; returns their sum.
std::uint64_t inject(Loopback& lb, std::uint32_t queue, const std::vector<std::size_t>& sizes) {
  std::uint64_t sum = 0;
  for (const std::size_t size : sizes) {
    EXPECT_TRUE(lb.inject(queue, frame_of(size)));
    sum += size;
  }
  return sum;
}

TEST(QueueBytes, ReceiveCountsWhatEachDescriptorCarries) {
  Loopback lb({.frames_per_queue = 64, .ring_size = 32});
  Queue& q = lb.port().queues()[0];
  const std::uint64_t sum = inject(lb, 0, {60, 100, 1500, 64});
  EXPECT_EQ(q.receive([](Frames) {}), 4U);
  EXPECT_EQ(q.stats().rx_bytes, sum);
  EXPECT_EQ(q.stats().tx_bytes, 0U);
}

TEST(QueueBytes, ServeCountsTheSizesSentNotTheDropped) {
  Loopback lb({.frames_per_queue = 64, .ring_size = 32});
  Queue& q = lb.port().queues()[0];
  const std::uint64_t sum = inject(lb, 0, {60, 200, 300, 1000});
  // 200 is dropped, 300 shrunk to 100 before it goes back out.
  q.serve([](Frame& f) {
    if (f.size() == 200) return Verdict::drop;
    if (f.size() == 300) {
      EXPECT_TRUE(f.resize(100));
    }
    return Verdict::send_back;
  });
  EXPECT_EQ(q.stats().rx_bytes, sum);
  EXPECT_EQ(q.stats().tx_bytes, 60U + 100U + 1000U);
}

TEST(QueueBytes, ForwardCountsTxOnTheQueueThatSends) {
  Loopback lb({.queues = 2, .frames_per_queue = 64, .ring_size = 32, .shared_umem = true});
  Queue& in = lb.port().queues()[0];
  Queue& out = lb.port().queues()[1];
  const std::uint64_t sum = inject(lb, 0, {60, 70, 80});
  // 70 goes back out of `in`; the others out of `out`.
  in.forward(out, [](Frame& f) { return f.size() == 70 ? Verdict::send_back : Verdict::send; });
  EXPECT_EQ(in.stats().rx_bytes, sum);
  EXPECT_EQ(in.stats().tx_bytes, 70U);
  EXPECT_EQ(out.stats().tx_bytes, 140U);
  EXPECT_EQ(out.stats().rx_bytes, 0U);
}

TEST(QueueBytes, ForwardWithoutASharedUmemCountsTheCopies) {
  Loopback lb({.queues = 2, .frames_per_queue = 64, .ring_size = 32});
  Queue& in = lb.port().queues()[0];
  Queue& out = lb.port().queues()[1];
  inject(lb, 0, {90, 110});
  in.forward(out, [](Frame&) { return Verdict::send; });
  EXPECT_EQ(out.stats().tx_bytes, 200U);
}

TEST(QueueBytes, TxBatchAndFrameRefSendsAreCounted) {
  Loopback lb({.frames_per_queue = 64, .ring_size = 32});
  Queue& q = lb.port().queues()[0];
  {
    afxdp::TxBatch batch = q.allocate(3);
    ASSERT_EQ(batch.size(), 3U);
    for (std::uint32_t i = 0; i < 3; ++i) ASSERT_TRUE(batch[i].resize(100 + i));
    EXPECT_EQ(batch.send(3), 3U);
  }
  EXPECT_EQ(q.stats().tx_bytes, 100U + 101U + 102U);
  // A kept frame sent later through its FrameRef.
  inject(lb, 0, {250});
  std::vector<afxdp::FrameRef> kept;
  q.receive([&](Frames frames) { kept.push_back(q.keep(frames[0])); });
  ASSERT_EQ(kept.size(), 1U);
  EXPECT_TRUE(q.send(std::move(kept[0])));
  EXPECT_EQ(q.stats().tx_bytes, 303U + 250U);
  EXPECT_EQ(q.stats().rx_bytes, 250U);
  // An empty frame amid a batch is refused, and what it would have carried is not counted.
  {
    afxdp::TxBatch batch = q.allocate(3);
    ASSERT_EQ(batch.size(), 3U);
    ASSERT_TRUE(batch[0].resize(40));
    ASSERT_TRUE(batch[2].resize(41));
    EXPECT_EQ(batch.send(3), 3U);
  }
  EXPECT_EQ(q.stats().tx_bytes, 303U + 250U + 81U);
  EXPECT_EQ(q.stats().refused, 1U);
}

TEST(QueueBytes, ReceivePacketsCountsEveryFragment) {
  Loopback lb({.frames_per_queue = 64, .frame_size = 2048, .ring_size = 32, .multi_buffer = true});
  Queue& q = lb.port().queues()[0];
  const std::uint64_t sum = inject(lb, 0, {5000, 60});
  q.receive_packets([](std::span<Packet>) {});
  EXPECT_EQ(q.stats().packets, 2U);
  EXPECT_EQ(q.stats().rx_bytes, sum);
}

TEST(QueueBytes, ServePacketsCountsEveryFragmentBothWays) {
  Loopback lb({.frames_per_queue = 64, .frame_size = 2048, .ring_size = 32, .multi_buffer = true});
  Queue& q = lb.port().queues()[0];
  const std::uint64_t sum = inject(lb, 0, {5000, 60, 3000});
  q.serve_packets([](Packet& p) { return p.size() == 60 ? Verdict::drop : Verdict::send_back; });
  EXPECT_EQ(q.stats().rx_bytes, sum);
  EXPECT_EQ(q.stats().tx_bytes, 8000U);
}

// A handler that throws on the second frame: the frames before it count as they went, the one
// that threw counts as received (it was taken off rx), the rest wait on rx uncounted.
TEST(QueueBytes, AThrowingHandlerLeavesTheCountsOfWhatWasTaken) {
  Loopback lb({.frames_per_queue = 64, .ring_size = 32});
  Queue& q = lb.port().queues()[0];
  inject(lb, 0, {100, 200, 300});
  EXPECT_THROW(q.serve([](Frame& f) {
    if (f.size() == 200) throw std::runtime_error("hostile handler");
    return Verdict::send_back;
  }),
               std::runtime_error);
  EXPECT_EQ(q.stats().rx_bytes, 300U);
  EXPECT_EQ(q.stats().tx_bytes, 100U);
  q.serve([](Frame&) { return Verdict::send_back; });
  EXPECT_EQ(q.stats().rx_bytes, 600U);
  EXPECT_EQ(q.stats().tx_bytes, 400U);
}

}  // namespace
