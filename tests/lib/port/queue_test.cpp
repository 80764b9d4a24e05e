// The Queue's invariants, on testing::Loopback (the kernel's side of the rings in memory): no
// frame lost or lent twice whatever the kernel does, and every frame accounted for after every
// call.
#include "expect_accounted.hpp"

#include <afxdp/queue.hpp>
#include <afxdp/testing/loopback.hpp>
#include <afxdp/xsk/umem.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <type_traits>
#include <utility>
#include <vector>

namespace {

using afxdp::Frame;
using afxdp::Frames;
using afxdp::Queue;
using afxdp::Verdict;
using afxdp::testing::Loopback;
using afxdp::testing::LoopbackConfig;
using namespace std::chrono_literals;

std::vector<std::byte> packet(std::uint32_t sequence, std::size_t size = 64) {
  std::vector<std::byte> bytes(size);
  for (std::size_t i = 0; i < size; ++i)
    bytes[i] = std::byte(static_cast<unsigned char>(sequence + i));
  std::memcpy(bytes.data(), &sequence, sizeof sequence);
  return bytes;
}

using queue_test::expect_accounted;

const auto echo = [](Frame&) { return Verdict::send_back; };

TEST(Queue, PrimesTheFillRingWithItsShareAndKeepsTheRestFree) {
  Loopback lb({.frames_per_queue = 64, .ring_size = 32});
  Queue& q = lb.port().queues()[0];
  EXPECT_EQ(q.account().fill, 32U);
  EXPECT_EQ(q.account().free, 32U);
  expect_accounted(q);
}

TEST(Queue, TxFullLeavesFramesOnRxAndLosesNone) {
  Loopback lb({.frames_per_queue = 64, .ring_size = 16});
  Queue& q = lb.port().queues()[0];
  std::uint32_t injected = 0;
  for (std::uint32_t i = 0; i < 16; ++i) injected += lb.inject(0, packet(i)) ? 1U : 0U;
  ASSERT_EQ(injected, 16U);
  // Nobody collects what is sent: tx (16 slots) fills, and its completions never come.
  std::uint32_t served = 0;
  for (int turn = 0; turn < 10; ++turn) {
    served += q.serve(echo);
    expect_accounted(q);
    for (std::uint32_t i = 0; i < 4; ++i) injected += lb.inject(0, packet(100 + i)) ? 1U : 0U;
  }
  EXPECT_GT(q.stats().tx_full, 0U);
  EXPECT_LT(served, injected);  // the rest waits on rx
  // Now the wire drains: every frame taken off rx went out once, and every one comes home.
  std::size_t sent = 0;
  for (int turn = 0; turn < 50; ++turn) {
    served += q.serve(echo);
    q.flush();
    sent += lb.transmitted(0).size();
    expect_accounted(q);
  }
  EXPECT_EQ(served, injected);  // each frame taken off rx once
  EXPECT_EQ(sent, injected);
  EXPECT_EQ(q.stats().completed, injected);
  EXPECT_EQ(q.account().tx, 0U);
  EXPECT_EQ(q.account().fill + q.account().free, 64U);
}

TEST(Queue, RxFullIsCountedWhereTheKernelCountsIt) {
  Loopback lb({.frames_per_queue = 64, .ring_size = 8, .fill_size = 16});
  Queue& q = lb.port().queues()[0];
  std::uint32_t accepted = 0;
  for (std::uint32_t i = 0; i < 12; ++i) accepted += lb.inject(0, packet(i)) ? 1U : 0U;
  EXPECT_EQ(accepted, 8U);
  EXPECT_EQ(lb.statistics(0).rx_ring_full, 4U);
  std::uint32_t seen = 0;
  q.receive([&](Frames frames) { seen += static_cast<std::uint32_t>(frames.size()); });
  EXPECT_EQ(seen, 8U);
  expect_accounted(q);
  EXPECT_EQ(q.stats().kernel.rx_ring_full, 4U);
}

// The kernel publishes rx before it moves the fill consumer: a frame taken off rx may find no
// room on the fill ring. It waits in the pool and goes back as soon as there is room.
TEST(Queue, RxPublishedBeforeTheFillConsumerMovesLosesNoFrame) {
  Loopback lb({.frames_per_queue = 16, .ring_size = 16});
  Queue& q = lb.port().queues()[0];
  lb.hold_fill_consumer(true);
  for (std::uint32_t i = 0; i < 16; ++i) ASSERT_TRUE(lb.inject(0, packet(i)));
  EXPECT_EQ(q.receive([](Frames) {}), 16U);
  expect_accounted(q);
  EXPECT_EQ(q.account().free, 16U);        // no room on fill yet: none lost, none lent twice
  EXPECT_FALSE(lb.inject(0, packet(99)));  // the kernel sees an empty fill ring
  lb.hold_fill_consumer(false);
  EXPECT_EQ(q.receive([](Frames) {}), 0U);  // an idle turn tops the fill ring up
  expect_accounted(q);
  EXPECT_EQ(q.account().fill, 16U);
  for (std::uint32_t i = 0; i < 16; ++i) EXPECT_TRUE(lb.inject(0, packet(i)));
}

TEST(Queue, ForwardsAMillionFramesOneWayWithoutStarvingTheLender) {
  Loopback lb({.queues = 2,
               .frames_per_queue = 256,
               .ring_size = 128,
               .tx_budget = 64,
               .shared_umem = true});
  Queue& in = lb.port().queues()[0];
  Queue& out = lb.port().queues()[1];
  const auto forward = [](Frame&) { return Verdict::send; };
  std::uint64_t injected = 0, sent = 0;
  while (injected < 1'000'000) {
    for (int i = 0; i < 64 && lb.inject(0, packet(static_cast<std::uint32_t>(injected))); ++i) {
      ++injected;
    }
    in.forward(out, forward);
    sent += lb.transmitted(1).size();
    ASSERT_EQ(in.account().total(), in.frames());
    ASSERT_EQ(out.account().total(), out.frames());
  }
  for (int turn = 0; turn < 100 && sent < injected; ++turn) {
    in.forward(out, forward);
    sent += lb.transmitted(1).size();
  }
  EXPECT_EQ(sent, injected);
  EXPECT_EQ(lb.statistics(0).rx_fill_ring_empty_descs, 0U);  // the lender never ran dry
  EXPECT_EQ(in.stats().forwarded, injected);
  EXPECT_EQ(out.account().free + out.account().fill, out.frames());  // out lent nothing
  expect_accounted(in);
  expect_accounted(out);
}

// One completion batch of out's ring holds out's own frames and in's forwarded ones, in runs that
// switch queues, a duplicate and an address no queue lent: each frame goes home once.
TEST(Queue, CompletionsOfSeveralQueuesInOneBatchEachGoHomeOnce) {
  Loopback lb({.queues = 2, .frames_per_queue = 32, .ring_size = 16, .shared_umem = true});
  Queue& in = lb.port().queues()[0];
  Queue& out = lb.port().queues()[1];
  lb.delay_completions(true);
  const auto send_own = [&out] {
    afxdp::TxBatch batch = out.allocate(1);
    ASSERT_TRUE(batch[0].resize(60));
    ASSERT_EQ(batch.send(), 1U);
  };
  send_own();
  for (std::uint32_t i = 0; i < 2; ++i) ASSERT_TRUE(lb.inject(0, packet(i)));
  std::vector<std::uint64_t> forwarded;
  in.forward(out, [&](Frame& f) {
    forwarded.push_back(f.address());
    return Verdict::send;
  });
  send_own();
  out.flush();
  ASSERT_EQ(lb.transmitted(1).size(), 4U);
  lb.complete_delayed(1);                              // own, in's, in's, own
  ASSERT_TRUE(lb.inject_completion(1, forwarded[0]));  // a duplicate
  ASSERT_TRUE(lb.inject_completion(1, 1ULL << 40));
  EXPECT_TRUE(out.drain(1000ms));
  EXPECT_EQ(out.stats().completed, 4U);
  EXPECT_EQ(out.stats().refused, 2U);
  EXPECT_EQ(in.account().tx, 0U);
  EXPECT_EQ(out.account().tx, 0U);
  expect_accounted(in);
  expect_accounted(out);
}

// Runs of one queue's completions broken by an address no queue lent, and duplicates of frames
// already accepted, own and forwarded, in the same batch: each frame back in its pool once.
TEST(Queue, RefusedCompletionsAmidRunsLeaveEachFrameInItsPoolOnce) {
  Loopback lb({.queues = 2, .frames_per_queue = 32, .ring_size = 16, .shared_umem = true});
  Queue& in = lb.port().queues()[0];
  Queue& out = lb.port().queues()[1];
  lb.delay_completions(true);
  std::vector<std::uint64_t> own;
  const auto send_own = [&] {
    afxdp::TxBatch batch = out.allocate(1);
    ASSERT_TRUE(batch[0].resize(60));
    own.push_back(batch[0].address());
    ASSERT_EQ(batch.send(), 1U);
  };
  send_own();
  ASSERT_TRUE(lb.inject(0, packet(0)));
  std::uint64_t forwarded = 0;
  in.forward(out, [&](Frame& f) {
    forwarded = f.address();
    return Verdict::send;
  });
  send_own();
  send_own();
  out.flush();
  ASSERT_EQ(lb.transmitted(1).size(), 4U);
  ASSERT_TRUE(lb.inject_completion(1, own[0]));
  ASSERT_TRUE(lb.inject_completion(1, 1ULL << 40));  // between two of out's own
  ASSERT_TRUE(lb.inject_completion(1, own[1]));
  ASSERT_TRUE(lb.inject_completion(1, own[0]));  // duplicates, own and forwarded
  ASSERT_TRUE(lb.inject_completion(1, forwarded));
  ASSERT_TRUE(lb.inject_completion(1, forwarded));
  lb.complete_delayed(1);  // own[0], forwarded, own[1], own[2]: all but own[2] again
  EXPECT_TRUE(out.drain(1000ms));
  EXPECT_EQ(out.stats().completed, 4U);
  EXPECT_EQ(out.stats().refused, 6U);
  expect_accounted(in);
  expect_accounted(out);
  for (Queue* q : {&in, &out}) {
    std::vector<std::uint64_t> free;
    q->for_each_free_frame([&](Frame& f) { free.push_back(f.address()); });
    std::sort(free.begin(), free.end());
    EXPECT_EQ(std::adjacent_find(free.begin(), free.end()), free.end()) << q->name();
    EXPECT_EQ(free.size(), q->account().free);
  }
}

// Linux 6.18's copy mode completes an odd unaligned tx address one lower. A frame another queue
// lent below this one's range comes back to its lender as its frame start too: rounding only the
// queue's own range once handed the lender a frame one byte early, which its ledger refused and
// which it would have lent to the kernel.
TEST(Queue, AForwardedOddFrameCompletedOneLowerGoesHomeAsItsFrameStart) {
  constexpr std::uint64_t frame = 3001;  // odd: every other frame starts at an odd address
  Loopback lb({.queues = 2,
               .frames_per_queue = 16,
               .frame_size = frame,
               .ring_size = 8,
               .shared_umem = true,
               .unaligned_chunks = true});
  Queue& in = lb.port().queues()[0];
  Queue& out = lb.port().queues()[1];
  lb.delay_completions(true);
  for (std::uint32_t i = 0; i < 4; ++i) ASSERT_TRUE(lb.inject(0, packet(i)));
  std::vector<std::uint64_t> forwarded;
  in.forward(out, [&](Frame& f) {
    forwarded.push_back(f.address());
    return Verdict::send;
  });
  out.flush();
  ASSERT_EQ(lb.transmitted(1).size(), 4U);
  std::uint32_t odd = 0;
  for (const std::uint64_t address : forwarded) {
    const std::uint64_t start = address & XSK_UNALIGNED_BUF_ADDR_MASK;  // base | offset << 48
    odd += start % 2;
    ASSERT_TRUE(lb.inject_completion(1, start % 2 == 1 ? start - 1 : start));
  }
  ASSERT_NE(odd, 0U);
  out.receive([](Frames) {});  // collects the completions
  EXPECT_EQ(out.stats().completed, 4U);
  EXPECT_EQ(out.stats().refused, 0U);
  EXPECT_EQ(in.account().tx, 0U);
  expect_accounted(in);
  expect_accounted(out);
}

TEST(Queue, ForwardWithoutASharedUmemCopiesAndLosesNothing) {
  Loopback lb({.queues = 2, .frames_per_queue = 64, .ring_size = 32});
  Queue& in = lb.port().queues()[0];
  Queue& out = lb.port().queues()[1];
  for (std::uint32_t i = 0; i < 20; ++i) ASSERT_TRUE(lb.inject(0, packet(i)));
  in.forward(out, [](Frame&) { return Verdict::send; });
  out.flush();
  const auto wire = lb.transmitted(1);
  ASSERT_EQ(wire.size(), 20U);
  for (std::uint32_t i = 0; i < 20; ++i) EXPECT_EQ(wire[i], packet(i));
  out.receive([](Frames) {});  // collects the completions
  expect_accounted(in);
  expect_accounted(out);
  EXPECT_EQ(out.account().tx, 0U);
}

TEST(Queue, AnAbandonedFrameRefIsCountedAndItsFrameReturned) {
  Loopback lb({.frames_per_queue = 16, .ring_size = 16});
  Queue& q = lb.port().queues()[0];
  ASSERT_TRUE(lb.inject(0, packet(1)));
  ASSERT_TRUE(lb.inject(0, packet(2)));
  std::vector<afxdp::FrameRef> kept;
  q.serve([&](Frame& f) {
    kept.push_back(q.keep(f));
    return Verdict::drop;  // ignored: the frame is kept
  });
  EXPECT_EQ(q.account().held, 2U);
  expect_accounted(q);
  EXPECT_TRUE(q.send(std::move(kept[0])));
  EXPECT_FALSE(kept[0]);
  kept.clear();  // the second is abandoned
  EXPECT_EQ(q.stats().abandoned, 1U);
  EXPECT_EQ(q.account().held, 0U);
  q.flush();
  const auto wire = lb.transmitted(0);
  ASSERT_EQ(wire.size(), 1U);
  EXPECT_EQ(wire[0], packet(1));
  q.receive([](Frames) {});
  expect_accounted(q);
  EXPECT_EQ(q.account().tx, 0U);
}

TEST(Queue, CopyModeKicksGoOnWhileTxIsOutstandingAndRxIsEmpty) {
  Loopback lb({.frames_per_queue = 128, .ring_size = 64, .tx_budget = 4});
  Queue& q = lb.port().queues()[0];
  for (std::uint32_t i = 0; i < 40; ++i) ASSERT_TRUE(lb.inject(0, packet(i)));
  q.serve(echo);  // 40 on tx; each kick sends 4
  std::size_t sent = lb.transmitted(0).size();
  for (int turn = 0; turn < 20; ++turn) {
    EXPECT_EQ(q.serve(echo), 0U);  // rx is empty
    sent += lb.transmitted(0).size();
  }
  EXPECT_EQ(sent, 40U);
  EXPECT_GE(lb.kicks(0), 10U);
}

TEST(Queue, WaitNeverSleepsWithFramesToKick) {
  Loopback lb({.frames_per_queue = 128, .ring_size = 64, .tx_budget = 4});
  Queue& q = lb.port().queues()[0];
  for (std::uint32_t i = 0; i < 8; ++i) ASSERT_TRUE(lb.inject(0, packet(i)));
  q.serve(echo);
  const std::uint64_t kicks = lb.kicks(0);
  // tx still holds frames (4 go per kick): wait() kicks and says there is work, at once.
  EXPECT_TRUE(q.wait(10'000ms));
  EXPECT_GT(lb.kicks(0), kicks);
  EXPECT_EQ(q.stats().polls, 0U);
}

TEST(Queue, ADescriptorOutsideTheUmemIsRefusedCountedAndNeverRecycled) {
  Loopback lb({.frames_per_queue = 16, .ring_size = 16});
  Queue& q = lb.port().queues()[0];
  ASSERT_TRUE(lb.inject_descriptor(0, xdp_desc{1ULL << 40, 64, 0}));
  ASSERT_TRUE(lb.inject_descriptor(0, xdp_desc{4096 * 15 + 4000, 200, 0}));  // crosses the end
  bool called = false;
  q.serve([&](Frame&) {
    called = true;
    return Verdict::send_back;
  });
  EXPECT_FALSE(called);
  EXPECT_EQ(q.stats().refused, 2U);
  expect_accounted(q);
  q.flush();
  EXPECT_TRUE(lb.transmitted(0).empty());
  // Nothing bogus went onto the fill ring: every later receive lands in a real frame.
  for (std::uint32_t i = 0; i < 14; ++i) ASSERT_TRUE(lb.inject(0, packet(i)));
  EXPECT_EQ(lb.statistics(0).rx_invalid_descs, 0U);
}

TEST(Queue, AHostileRxProducerIndexIsIgnored) {
  Loopback lb({.frames_per_queue = 16, .ring_size = 16});
  Queue& q = lb.port().queues()[0];
  lb.force_rx_producer(0, 1'000'000);
  bool called = false;
  EXPECT_EQ(q.serve([&](Frame&) {
    called = true;
    return Verdict::drop;
  }),
            0U);
  EXPECT_FALSE(called);
  expect_accounted(q);
}

TEST(Queue, AllocateBuildsFramesAndUnsentOnesGoBackToThePool) {
  Loopback lb({.frames_per_queue = 32, .ring_size = 16});
  Queue& q = lb.port().queues()[0];
  const std::uint32_t free_before = q.account().free;
  {
    afxdp::TxBatch batch = q.allocate(8);
    ASSERT_EQ(batch.size(), 8U);
    EXPECT_EQ(q.allocate(1).size(), 0U);  // one batch at a time
    for (std::uint32_t i = 0; i < batch.size(); ++i) {
      const auto bytes = packet(i, 60);
      ASSERT_TRUE(batch[i].resize(60));
      std::memcpy(batch[i].data().data(), bytes.data(), bytes.size());
    }
    EXPECT_FALSE(batch[0].resize(4097));
    EXPECT_EQ(batch.send(5), 5U);
    EXPECT_EQ(batch.size(), 3U);
  }
  expect_accounted(q);
  EXPECT_EQ(q.account().tx, 5U);
  q.flush();
  const auto wire = lb.transmitted(0);
  ASSERT_EQ(wire.size(), 5U);
  for (std::uint32_t i = 0; i < 5; ++i) EXPECT_EQ(wire[i], packet(i, 60));
  EXPECT_TRUE(q.drain(1000ms));
  EXPECT_EQ(q.account().free, free_before);
  expect_accounted(q);
}

TEST(Queue, EveryAllocatedFrameStartsEmptyAndWholeBatchAfterBatch) {
  Loopback lb({.frames_per_queue = 32, .ring_size = 16});
  Queue& q = lb.port().queues()[0];
  for (int round = 0; round < 3; ++round) {
    afxdp::TxBatch batch = q.allocate(8);
    ASSERT_EQ(batch.size(), 8U);
    for (afxdp::TxFrame f : batch) {
      EXPECT_EQ(f.size(), 0U);
      EXPECT_EQ(f.capacity(), 4096U);
      EXPECT_EQ(f.address() % 4096, 0U);  // the whole frame, from its start
      EXPECT_EQ(f.data().data(), lb.rings(0).area + f.address());
      ASSERT_TRUE(f.resize(60));
    }
    EXPECT_EQ(batch.send(4), 4U);  // the rest go back to the pool, resized
    q.flush();
    (void)lb.transmitted(0);
    EXPECT_TRUE(q.drain(1000ms));
  }
  expect_accounted(q);
}

// A batch's empty frames are refused where they stand and the rest go out in order, also when the
// batch's tx slots wrap round the ring's end.
TEST(Queue, EmptyFramesAmidABatchAreRefusedAndTheRestGoOutInOrderAcrossTheRingsEnd) {
  Loopback lb({.frames_per_queue = 64, .ring_size = 16});
  Queue& q = lb.port().queues()[0];
  {
    afxdp::TxBatch batch = q.allocate(10);  // moves tx to slot 10 of 16
    for (afxdp::TxFrame f : batch) ASSERT_TRUE(f.resize(60));
    ASSERT_EQ(batch.send(), 10U);
  }
  q.flush();
  ASSERT_EQ(lb.transmitted(0).size(), 10U);
  ASSERT_TRUE(q.drain(1000ms));
  std::vector<std::vector<std::byte>> expected;
  {
    afxdp::TxBatch batch = q.allocate(12);
    ASSERT_EQ(batch.size(), 12U);
    for (std::uint32_t i = 0; i < 12; ++i) {
      if (i == 2 || i == 7 || i == 11) continue;  // left empty
      const auto bytes = packet(i, 60);
      ASSERT_TRUE(batch[i].resize(60));
      std::memcpy(batch[i].data().data(), bytes.data(), bytes.size());
      expected.push_back(bytes);
    }
    EXPECT_EQ(batch.send(), 12U);
  }
  expect_accounted(q);
  EXPECT_EQ(q.account().tx, 9U);
  EXPECT_EQ(q.stats().refused, 3U);
  q.flush();
  EXPECT_EQ(lb.transmitted(0), expected);
  EXPECT_EQ(lb.statistics(0).tx_invalid_descs, 0U);
  EXPECT_TRUE(q.drain(1000ms));
  EXPECT_EQ(q.stats().completed, 19U);
  expect_accounted(q);
}

TEST(Queue, TheRxOffsetIsThePacketHeadroomPlusTheUmemHeadroom) {
  Loopback lb({.frames_per_queue = 16, .ring_size = 16, .headroom = 128});
  Queue& q = lb.port().queues()[0];
  ASSERT_TRUE(lb.inject(0, packet(7)));
  q.receive([](Frames frames) {
    ASSERT_EQ(frames.size(), 1U);
    EXPECT_EQ(frames[0].headroom(), 256U + 128U);
    EXPECT_EQ(frames[0].address() % 4096, 256U + 128U);
    EXPECT_EQ(std::vector<std::byte>(frames[0].data().begin(), frames[0].data().end()), packet(7));
    EXPECT_EQ(frames[0].metadata(384).size(), 384U);
    EXPECT_TRUE(frames[0].metadata(385).empty());
  });
}

// Issue 28 builds the reader's Frames in one pass over the descriptors, with the frame size stored
// and the capacity derived, and gives the fill ring back the frame starts it noted there: every
// field right, in both UMEM modes, on a queue whose frames do not start at 0, round after round.
TEST(Queue, AReceivedFrameHasItsBytesPlaceAndRoomInBothUmemModes) {
  for (const bool unaligned : {false, true}) {
    const std::uint32_t frame_size = unaligned ? 3000 : 4096;
    Loopback lb({.queues = 2,
                 .frames_per_queue = 16,
                 .frame_size = frame_size,
                 .ring_size = 8,
                 .headroom = 128,
                 .shared_umem = true,
                 .unaligned_chunks = unaligned});
    Queue& q = lb.port().queues()[1];
    std::byte* const area = lb.rings(1).area;
    const std::uint32_t lent = q.account().fill;
    for (std::uint32_t round = 0; round < 4; ++round) {  // every frame lent again, twice
      for (std::uint32_t i = 0; i < 6; ++i)
        ASSERT_TRUE(lb.inject(1, packet(round * 8 + i, 60 + i)));
      std::uint32_t seen = 0;
      q.receive([&](Frames frames) {
        ASSERT_EQ(frames.size(), 6U);
        for (std::uint32_t i = 0; i < 6; ++i) {
          Frame f = frames[i];
          const std::uint64_t start =
              unaligned ? f.address() & XSK_UNALIGNED_BUF_ADDR_MASK : f.address() / 4096 * 4096;
          const std::uint64_t offset =
              unaligned ? f.address() >> XSK_UNALIGNED_BUF_OFFSET_SHIFT : f.address() % 4096;
          EXPECT_EQ(offset, 256U + 128U) << unaligned;
          EXPECT_EQ((start - std::uint64_t{16} * frame_size) % frame_size, 0U)
              << unaligned;  // queue 1's
          EXPECT_LT(start - std::uint64_t{16} * frame_size, std::uint64_t{16} * frame_size)
              << unaligned;
          EXPECT_EQ(f.headroom(), 256U + 128U) << unaligned;
          EXPECT_EQ(f.capacity(), frame_size - 256U - 128U) << unaligned;
          EXPECT_EQ(f.size(), 60U + i) << unaligned;
          EXPECT_EQ(f.data().data(), area + start + offset) << unaligned;
          EXPECT_EQ(std::vector<std::byte>(f.data().begin(), f.data().end()),
                    packet(round * 8 + i, 60 + i));
          EXPECT_EQ(f.metadata(384).data(), area + start) << unaligned;
          EXPECT_TRUE(f.metadata(385).empty()) << unaligned;
          EXPECT_FALSE(f.resize(f.capacity() + 1)) << unaligned;
          EXPECT_TRUE(f.resize(f.capacity())) << unaligned;
          ++seen;
        }
      });
      EXPECT_EQ(seen, 6U);
      expect_accounted(q);
      EXPECT_EQ(q.account().fill, lent) << unaligned;  // all back on the fill ring
    }
    EXPECT_EQ(q.stats().refused, 0U) << unaligned;
  }
}

// A receive does not write kept_ per frame: a frame slot kept in one batch is handed out again in
// the next, and must not look kept there (it would be neither recycled nor held).
TEST(Queue, AFrameKeptInOneReceiveLeavesNextBatchsFramesToBeRecycled) {
  Loopback lb({.frames_per_queue = 16, .ring_size = 8});
  Queue& q = lb.port().queues()[0];
  std::vector<afxdp::FrameRef> kept;
  for (std::uint32_t round = 0; round < 2; ++round) {
    for (std::uint32_t i = 0; i < 4; ++i) ASSERT_TRUE(lb.inject(0, packet(round * 4 + i)));
    EXPECT_EQ(q.receive([&](Frames frames) { kept.push_back(q.keep(frames[round])); }), 4U);
    expect_accounted(q);
    EXPECT_EQ(q.account().held, round + 1);
  }
  for (afxdp::FrameRef& ref : kept) q.recycle(std::move(ref));
  expect_accounted(q);
  EXPECT_EQ(q.account().held, 0U);
}

// A reader reads its Frames in any order: the one it keeps is the one it read, and no other.
TEST(Queue, AReaderThatReadsItsFramesOutOfOrderKeepsTheOneItReadAndNoOther) {
  Loopback lb({.frames_per_queue = 16, .ring_size = 8});
  Queue& q = lb.port().queues()[0];
  for (std::uint32_t i = 0; i < 4; ++i) ASSERT_TRUE(lb.inject(0, packet(i)));
  afxdp::FrameRef kept;
  EXPECT_EQ(q.receive([&](Frames frames) {
    for (std::uint32_t i = frames.size(); i-- > 0;) {
      const Frame f = frames[i];
      EXPECT_EQ(std::vector<std::byte>(f.data().begin(), f.data().end()), packet(i));
    }
    kept = q.keep(frames[3]);  // the last received, read last
  }),
            4U);
  expect_accounted(q);
  const auto bytes = [&] {
    return std::vector<std::byte>(kept.frame().data().begin(), kept.frame().data().end());
  };
  EXPECT_EQ(bytes(), packet(3));
  const std::uint64_t held = kept.frame().address() / 4096;
  for (std::uint32_t round = 0; round < 4; ++round) {  // every fill ring frame received again
    for (std::uint32_t i = 0; i < 4; ++i) ASSERT_TRUE(lb.inject(0, packet(10 + i)));
    q.receive([&](Frames frames) {
      for (const Frame& f : frames) EXPECT_NE(f.address() / 4096, held) << "lent twice";
    });
  }
  EXPECT_EQ(bytes(), packet(3));  // not received into while held
  q.recycle(std::move(kept));
  expect_accounted(q);
  EXPECT_EQ(q.account().held, 0U);
}

// A Frame is not the application's to make, copy, assign or swap. A copy kept while the Queue
// recycled the original lent that frame twice; a frame assigned into a TxBatch slot was sent in
// the place of the slot's pool frame, which was lost.
static_assert(!std::is_default_constructible_v<Frame>);
static_assert(!std::is_copy_constructible_v<Frame>);
static_assert(!std::is_move_constructible_v<Frame>);
static_assert(!std::is_copy_assignable_v<Frame>);
static_assert(!std::is_move_assignable_v<Frame>);
static_assert(!std::is_swappable_v<Frame>);

// keep() takes only a frame this queue handed to the reader, once. Each refusal is an empty
// FrameRef, counted in `refused`; the frame stays where it was, and no frame is lent twice.
TEST(Queue, KeepRefusesAFrameKeptAlreadyAndAFrameRefsFrame) {
  Loopback lb({.frames_per_queue = 16, .ring_size = 8});
  Queue& q = lb.port().queues()[0];
  for (std::uint32_t i = 0; i < 4; ++i) ASSERT_TRUE(lb.inject(0, packet(i)));
  afxdp::FrameRef kept;
  afxdp::FrameRef twice;
  EXPECT_EQ(q.receive([&](Frames frames) {
    kept = q.keep(frames[2]);
    twice = q.keep(frames[2]);
  }),
            4U);
  EXPECT_TRUE(kept);
  EXPECT_FALSE(twice) << "a frame kept twice";
  afxdp::FrameRef again = q.keep(kept.frame());
  EXPECT_FALSE(again) << "a FrameRef's frame kept again";
  EXPECT_EQ(q.stats().refused, 2U);
  expect_accounted(q);
  EXPECT_EQ(q.account().held, 1U);
  q.recycle(std::move(kept));
  expect_accounted(q);
  EXPECT_EQ(q.account().held, 0U);
  EXPECT_EQ(q.stats().abandoned, 0U);
}

// A TxBatch's frame kept would be sent by the batch and held by a FrameRef: keep() takes no
// TxFrame (it does not compile).
template <class F>
concept Keepable = requires(Queue& q, F f) {
  q.keep(f);
};
static_assert(Keepable<Frame&> && !Keepable<afxdp::TxFrame>);

TEST(Queue, KeepRefusesAPoolFrameAndAnotherQueuesFrame) {
  Loopback lb({.queues = 2, .frames_per_queue = 16, .ring_size = 8});
  Queue& q = lb.port().queues()[0];
  Queue& other = lb.port().queues()[1];
  afxdp::FrameRef ref;
  bool tried = false;
  q.for_each_free_frame([&](Frame& f) {
    if (!std::exchange(tried, true)) ref = q.keep(f);
  });
  EXPECT_TRUE(tried);
  EXPECT_FALSE(ref) << "a pool frame kept";
  ASSERT_TRUE(lb.inject(0, packet(7)));
  EXPECT_EQ(q.receive([&](Frames frames) { ref = other.keep(frames[0]); }), 1U);
  EXPECT_FALSE(ref) << "another queue's frame kept";
  EXPECT_EQ(q.stats().refused + other.stats().refused, 2U);
  expect_accounted(q);
  expect_accounted(other);
  EXPECT_EQ(q.account().held + other.account().held, 0U);
}

// Issue 17 item 9: txpush fed completion addresses to its frame pool (and, with --pcap, to a
// memcpy) unchecked. A completion the queue never sent, or outside its frames, is refused: the
// checked build's rule (every test preset's), where Release trusts the kernel (docs/library.md).
TEST(Queue, ACompletionForAFrameNeverSentIsRefused) {
  Loopback lb({.frames_per_queue = 32, .ring_size = 16});
  Queue& q = lb.port().queues()[0];
  const std::uint32_t free_before = q.account().free;
  {
    afxdp::TxBatch batch = q.allocate(1);
    ASSERT_TRUE(batch[0].resize(60));
    ASSERT_EQ(batch.send(), 1U);
  }
  q.flush();
  ASSERT_TRUE(lb.inject_completion(0, 1ULL << 40));  // before the real one
  ASSERT_EQ(lb.transmitted(0).size(), 1U);
  EXPECT_TRUE(q.drain(1000ms));
  EXPECT_EQ(q.stats().refused, 1U);
  EXPECT_EQ(q.stats().completed, 1U);
  EXPECT_EQ(q.account().free, free_before);  // the real frame came back, the bogus one did not
  afxdp::TxBatch all = q.allocate(afxdp::max_batch);
  EXPECT_EQ(all.size(), free_before);
  expect_accounted(q);
}

}  // namespace
