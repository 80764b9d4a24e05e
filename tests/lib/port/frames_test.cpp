// afxdp::Frames, what receive hands its reader: a view over the batch's descriptors that builds a
// Frame per read. Each read is a new Frame, so what keeps a frame from being kept twice, or kept
// after the batch gave it back, is the Queue's (held marks, the batch's number), and a checked
// build reads each rx descriptor once.
#include "expect_accounted.hpp"
#include "sequence_packet.hpp"

#include <afxdp/frames.hpp>
#include <afxdp/queue.hpp>
#include <afxdp/testing/loopback.hpp>

#include <gtest/gtest.h>
#include <linux/if_xdp.h>

#include <algorithm>
#include <cstring>
#include <optional>
#include <ranges>
#include <vector>

namespace {

using afxdp::Frame;
using afxdp::FrameRef;
using afxdp::Frames;
using afxdp::Queue;
using afxdp::testing::Loopback;
using queue_test::expect_accounted;

using queue_test::packet;

std::vector<std::byte> bytes_of(const Frame& f) { return {f.data().begin(), f.data().end()}; }

// The rx slot the Loopback wrote last, to play a producer that rewrites it.
xdp_desc& last_rx_slot(Loopback& lb) {
  const Loopback::Rings rings = lb.rings(0);
  auto* const rx = static_cast<xdp_desc*>(rings.rx_layout.entries);
  return rx[(*rings.rx_layout.producer - 1) & (rings.rx_layout.size - 1)];
}

TEST(Frames, IsARandomAccessViewWhoseIteratorsOutliveTheViewObject) {
  static_assert(std::ranges::random_access_range<Frames>);
  static_assert(std::ranges::borrowed_range<Frames>);
  Loopback lb({.frames_per_queue = 16, .ring_size = 8});
  Queue& q = lb.port().queues()[0];
  for (std::uint32_t i = 0; i < 4; ++i) ASSERT_TRUE(lb.inject(0, packet(i)));
  const auto find_third = [](Frames frames) {  // returns an iterator into a copy it was given
    return std::ranges::find_if(frames, [](const Frame& f) { return bytes_of(f) == packet(2); });
  };
  EXPECT_EQ(q.receive([&](Frames frames) {
    const auto it = find_third(frames);
    ASSERT_NE(it, frames.end());
    EXPECT_EQ(it - frames.begin(), 2);
    EXPECT_EQ(bytes_of(*it), packet(2));
    EXPECT_EQ(bytes_of(it[-2]), packet(0));
    EXPECT_EQ(bytes_of(*(frames.end() - 1)), packet(3));
    std::vector<std::vector<std::byte>> reversed;
    for (auto at = frames.end(); at != frames.begin();) reversed.push_back(bytes_of(*--at));
    EXPECT_EQ(reversed,
              (std::vector<std::vector<std::byte>>{packet(3), packet(2), packet(1), packet(0)}));
  }),
            4U);
  expect_accounted(q);
}

// A reader's Frames builds a new Frame each time one is read: keeping the same frame through a
// second read is refused, also after the first FrameRef was sent inside the reader (the frame is
// then on tx, and the batch must not recycle it too).
TEST(Frames, AFrameKeptAndSentInsideTheReaderIsNeitherKeptAgainNorRecycled) {
  Loopback lb({.frames_per_queue = 16, .ring_size = 8});
  Queue& q = lb.port().queues()[0];
  for (std::uint32_t i = 0; i < 4; ++i) ASSERT_TRUE(lb.inject(0, packet(i)));
  afxdp::FrameRef again;
  EXPECT_EQ(q.receive([&](Frames frames) {
    afxdp::FrameRef kept = q.keep(frames[1]);
    ASSERT_TRUE(kept);
    EXPECT_FALSE(q.keep(frames[1])) << "kept twice while held";
    EXPECT_TRUE(q.send(std::move(kept)));
    again = q.keep(frames[1]);
  }),
            4U);
  EXPECT_FALSE(again) << "kept again after its FrameRef was sent: lent twice";
  EXPECT_EQ(q.stats().refused, 2U);
  expect_accounted(q);
  EXPECT_EQ(q.account().tx, 1U);
  q.flush();
  const auto wire = lb.transmitted(0);
  ASSERT_EQ(wire.size(), 1U);
  EXPECT_EQ(wire[0], packet(1));
}

// A FrameRef of an earlier batch that ends inside a reader is unmarked once that batch ends: its
// frame, received again later, is kept and given back like any other (none lost, none refused).
TEST(Frames, AFrameRefEndedInsideALaterReaderLeavesItsFrameFreeToKeepAgain) {
  Loopback lb({.frames_per_queue = 16, .ring_size = 8});
  Queue& q = lb.port().queues()[0];
  ASSERT_TRUE(lb.inject(0, packet(0)));
  afxdp::FrameRef kept;
  q.receive([&](Frames frames) { kept = q.keep(frames[0]); });
  ASSERT_TRUE(kept);
  const std::uint64_t address = kept.frame().address();
  ASSERT_TRUE(lb.inject(0, packet(1)));
  q.receive([&](Frames) { q.recycle(std::move(kept)); });
  expect_accounted(q);
  bool seen = false;
  for (std::uint32_t round = 0; round < 8; ++round) {  // every frame goes round again
    for (std::uint32_t i = 0; i < 4; ++i) ASSERT_TRUE(lb.inject(0, packet(10 + i)));
    std::vector<afxdp::FrameRef> refs;
    q.receive([&](Frames frames) {
      for (Frame f : frames) {
        seen |= f.address() == address;
        refs.push_back(q.keep(f));
        EXPECT_TRUE(refs.back()) << "a frame received again is refused";
      }
    });
    for (afxdp::FrameRef& ref : refs) q.recycle(std::move(ref));
    expect_accounted(q);
  }
  EXPECT_TRUE(seen) << "the recycled frame never came round";
  EXPECT_EQ(q.stats().refused, 0U);
}

// A checked build reads each rx descriptor once: a producer that rewrites a slot after the Queue
// admitted it (a kernel or Loopback fault) changes nothing the reader reads or the Queue gives
// back. (Found by a fresh reader: the first version of Frames read the ring again.)
TEST(Frames, ACheckedReceiveReadsOnlyTheDescriptorsItAdmitted) {
  if constexpr (!afxdp::detail::checks_kernel) GTEST_SKIP() << "a Release build trusts the kernel";
  Loopback lb({.frames_per_queue = 16, .ring_size = 8});
  Queue& q = lb.port().queues()[0];
  std::uint64_t pool_frame = 0;
  q.for_each_free_frame([&](Frame& f) { pool_frame = f.address(); });
  ASSERT_TRUE(lb.inject(0, packet(0)));
  xdp_desc& slot = last_rx_slot(lb);
  const std::uint64_t admitted = slot.addr;
  std::uint64_t seen = 0;
  EXPECT_EQ(q.receive([&](Frames frames) {
    slot.addr = pool_frame + 256;  // rewritten after the Queue admitted it
    seen = frames[0].address();
  }),
            1U);
  EXPECT_EQ(seen, admitted) << "the reader read a descriptor the Queue never admitted";
  expect_accounted(q);
}

TEST(Frames, ACheckedReceiveNeverIndexesItsMarksByAnUnadmittedAddress) {
  if constexpr (!afxdp::detail::checks_kernel) GTEST_SKIP() << "a Release build trusts the kernel";
  Loopback lb({.frames_per_queue = 16, .ring_size = 8});
  Queue& q = lb.port().queues()[0];
  ASSERT_TRUE(lb.inject(0, packet(0)));
  ASSERT_TRUE(lb.inject(0, packet(1)));
  xdp_desc& slot = last_rx_slot(lb);
  FrameRef kept;
  q.receive([&](Frames frames) {
    kept = q.keep(frames[0]);     // the batch's end then reads its marks
    slot.addr = 20 * 4096 + 256;  // past the queue's 16 frames
  });
  ASSERT_TRUE(kept);
  q.recycle(std::move(kept));
  expect_accounted(q);
}

// Frames is a value a reader can keep past its return; a Frame read from it then names a frame
// the Queue has given back (onto the fill ring), and keep() refuses it. (Found by a fresh reader;
// a saved std::span<Frame> had the same hole before Frames.)
TEST(Frames, KeepOnAFrameReadFromFramesKeptPastTheReaderIsRefused) {
  Loopback lb({.frames_per_queue = 16, .ring_size = 8});
  Queue& q = lb.port().queues()[0];
  ASSERT_TRUE(lb.inject(0, packet(0)));
  std::optional<Frames> saved;
  EXPECT_EQ(q.receive([&](Frames frames) { saved.emplace(frames); }), 1U);
  FrameRef late = q.keep((*saved)[0]);
  EXPECT_FALSE(late) << "a frame on the fill ring was kept";
  ASSERT_TRUE(lb.inject(0, packet(1)));
  q.receive([&](Frames) {
    FrameRef stale = q.keep((*saved)[0]);  // inside a later batch: not that batch's frame
    EXPECT_FALSE(stale) << "a frame of an earlier batch was kept in a later one";
  });
  EXPECT_EQ(q.stats().refused, 2U);
  expect_accounted(q);
}

}  // namespace
