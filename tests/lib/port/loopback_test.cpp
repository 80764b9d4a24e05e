// testing::Loopback itself: what it counts, where the kernel counts it, and what it refuses.
#include <afxdp/queue.hpp>
#include <afxdp/testing/loopback.hpp>

#include <gtest/gtest.h>

#include <cstring>
#include <poll.h>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

using afxdp::Frame;
using afxdp::Verdict;
using afxdp::testing::Loopback;

std::vector<std::byte> bytes_of(std::size_t size, unsigned char fill) {
  return std::vector<std::byte>(size, std::byte{fill});
}

TEST(Loopback, SendBackComesOutByteForByte) {
  Loopback lb({.frames_per_queue = 64, .ring_size = 32});
  afxdp::Queue& q = lb.port().queues()[0];
  std::vector<std::vector<std::byte>> in;
  for (unsigned char i = 0; i < 20; ++i) {
    in.push_back(bytes_of(60 + i, i));
    ASSERT_TRUE(lb.inject(0, in.back()));
  }
  EXPECT_EQ(q.serve([](Frame&) { return Verdict::send_back; }), 20U);
  q.flush();
  EXPECT_EQ(lb.transmitted(0), in);
}

TEST(Loopback, FramesBeyondTheRingsAreCountedWhereTheKernelCountsThem) {
  // 8 frames, all on the fill ring; rx holds 8 too.
  Loopback lb({.frames_per_queue = 8, .ring_size = 8});
  std::uint32_t accepted = 0;
  for (int i = 0; i < 11; ++i) accepted += lb.inject(0, bytes_of(64, 1)) ? 1U : 0U;
  EXPECT_EQ(accepted, 8U);
  const afxdp::XdpStatistics s = lb.statistics(0);
  EXPECT_EQ(s.rx_fill_ring_empty_descs, 3U);
  EXPECT_EQ(s.rx_dropped, 3U);
  EXPECT_EQ(s.rx_ring_full, 0U);
  EXPECT_FALSE(lb.inject(0, bytes_of(4096, 1)));  // longer than the frame less its headroom
  EXPECT_EQ(lb.statistics(0).rx_dropped, 4U);
}

TEST(Loopback, RxFullKeepsTheBufferForTheNextFrame) {
  Loopback lb({.frames_per_queue = 16, .ring_size = 4, .fill_size = 8});
  for (int i = 0; i < 4; ++i) ASSERT_TRUE(lb.inject(0, bytes_of(64, 1)));
  EXPECT_FALSE(lb.inject(0, bytes_of(64, 2)));
  EXPECT_EQ(lb.statistics(0).rx_ring_full, 1U);
  EXPECT_EQ(lb.statistics(0).rx_fill_ring_empty_descs, 0U);
}

TEST(Loopback, TxMovesOnlyWhenKicked) {
  Loopback lb({.frames_per_queue = 64, .ring_size = 32, .tx_budget = 32});
  afxdp::Queue& q = lb.port().queues()[0];
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(lb.inject(0, bytes_of(64, 1)));
  // Fewer than the queue's kick threshold: serve leaves them on tx without a kick.
  q.serve([](Frame&) { return Verdict::send_back; });
  EXPECT_EQ(lb.kicks(0), 0U);
  EXPECT_TRUE(lb.transmitted(0).empty());
  q.flush();
  EXPECT_EQ(lb.kicks(0), 1U);
  EXPECT_EQ(lb.transmitted(0).size(), 3U);
}

// The kernel skips an empty tx descriptor (xp_aligned_validate_desc) and never completes it, so
// a Queue never submits one: the frame goes back to the pool, counted as refused.
TEST(Loopback, AnEmptyFrameIsNeverSubmitted) {
  Loopback lb({.frames_per_queue = 32, .ring_size = 16});
  afxdp::Queue& q = lb.port().queues()[0];
  const std::uint32_t free_before = q.account().free;
  {
    afxdp::TxBatch batch = q.allocate(2);
    ASSERT_EQ(batch.size(), 2U);
    ASSERT_TRUE(batch[1].resize(64));
    EXPECT_EQ(batch.send(2), 2U);
  }
  q.flush();
  EXPECT_EQ(lb.transmitted(0).size(), 1U);
  EXPECT_EQ(lb.statistics(0).tx_invalid_descs, 0U);
  EXPECT_EQ(q.stats().refused, 1U);
  EXPECT_TRUE(q.drain(std::chrono::milliseconds(1000)));
  EXPECT_EQ(q.account().free, free_before);
}

TEST(Loopback, SizesThePortRefusesAreRefusedNamingTheField) {
  const auto message = [](const afxdp::testing::LoopbackConfig& c) {
    try {
      Loopback lb(c);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_NE(message({.ring_size = 1000}).find("power of two"), std::string::npos);
  EXPECT_NE(message({.frame_size = 3000}).find("frame_size"), std::string::npos);
  EXPECT_NE(message({.queues = 0}).find("queues"), std::string::npos);
  EXPECT_NE(message({.frames_per_queue = 0}).find("frames_per_queue"), std::string::npos);
  EXPECT_NE(message({.completion_size = 48}).find("completion_size"), std::string::npos);
  EXPECT_EQ(message({.frames_per_queue = 16, .ring_size = 16}), "accepted");
}

// A loop of one's own (bench/cost's raw and libxdp loops) drives the very rings the kernel side
// uses: a frame received through rings() goes out again through tx and kick().
TEST(Loopback, RingsAreTheQueuesOwnAndKickSendsWhatTxHolds) {
  Loopback lb({.frames_per_queue = 64, .ring_size = 32});
  const Loopback::Rings r = lb.rings(0);
  const auto frame = bytes_of(60, 7);
  ASSERT_TRUE(lb.inject(0, frame));
  EXPECT_EQ(*r.rx_layout.producer, 1U);  // what a libxdp ring over the layout reads
  ASSERT_EQ(r.rx->peek(4), 1U);
  const xdp_desc d = r.rx->at(0);
  r.rx->release(1);
  ASSERT_LE(d.addr + d.len, r.umem_size);
  EXPECT_EQ(std::vector<std::byte>(r.area + d.addr, r.area + d.addr + d.len), frame);
  ASSERT_EQ(r.tx->reserve(1), 1U);
  r.tx->at(0) = d;
  r.tx->submit(1);
  EXPECT_TRUE(lb.transmitted(0).empty());  // copy mode: nothing moves before the kick
  lb.kick(0);
  EXPECT_EQ(lb.kicks(0), 1U);
  EXPECT_EQ(lb.transmitted(0), std::vector<std::vector<std::byte>>{frame});
  ASSERT_EQ(r.completion->peek(4), 1U);
  EXPECT_EQ(r.completion->at(0), d.addr);
  EXPECT_THROW((void)lb.rings(1), std::out_of_range);
  EXPECT_THROW(lb.kick(1), std::out_of_range);
}

// Unaligned chunks as the kernel's unaligned mode has them (xsk_buff_pool.c, xsk_queue.h): a fill
// address is a buffer's base as given (offset bits dropped), refused when a whole chunk from it
// would pass the UMEM's end; the rx descriptor carries the data's offset from the base in its
// upper 16 bits; tx data may lie anywhere inside the UMEM, across frames.
TEST(Loopback, UnalignedChunksTakeFillAddressesAsGiven) {
  constexpr std::uint64_t frame = 4001;  // no power of two: unaligned mode allows it
  Loopback lb(
      {.frames_per_queue = 8, .frame_size = frame, .ring_size = 8, .unaligned_chunks = true});
  const Loopback::Rings r = lb.rings(0);
  // Take back the 8 frames the Queue lent when it started.
  for (int i = 0; i < 8; ++i) ASSERT_TRUE(lb.inject(0, bytes_of(60, 0)));
  ASSERT_EQ(r.rx->peek(8), 8U);
  r.rx->release(8);
  ASSERT_EQ(r.fill->reserve(2), 2U);
  r.fill->at(0) = (2 * frame - 32) | std::uint64_t{5} << XSK_UNALIGNED_BUF_OFFSET_SHIFT;
  r.fill->at(1) = 7 * frame + 1;  // a chunk from here ends one byte past the UMEM
  r.fill->submit(2);

  const auto first = bytes_of(60, 1);
  ASSERT_TRUE(lb.inject(0, first));
  ASSERT_EQ(r.rx->peek(1), 1U);
  const xdp_desc d = r.rx->at(0);
  r.rx->release(1);
  EXPECT_EQ(d.addr, (2 * frame - 32) | std::uint64_t{256} << XSK_UNALIGNED_BUF_OFFSET_SHIFT);
  const std::byte* data = r.area + 2 * frame - 32 + 256;
  EXPECT_EQ(std::vector<std::byte>(data, data + d.len), first);
  EXPECT_FALSE(lb.inject(0, bytes_of(60, 2)));
  EXPECT_EQ(lb.statistics(0).rx_invalid_descs, 1U);

  // Across the boundary of frames 3 and 4, as base + offset and as a plain address.
  const std::uint64_t base = 4 * frame - 40;
  std::memcpy(r.area + base + 10, first.data(), first.size());
  ASSERT_EQ(r.tx->reserve(2), 2U);
  const std::uint64_t with_offset = base | std::uint64_t{10} << XSK_UNALIGNED_BUF_OFFSET_SHIFT;
  r.tx->at(0) = {with_offset, 60, 0};
  r.tx->at(1) = {base + 10, 60, 0};
  r.tx->submit(2);
  lb.kick(0);
  EXPECT_EQ(lb.transmitted(0), (std::vector<std::vector<std::byte>>{first, first}));
  EXPECT_EQ(lb.statistics(0).tx_invalid_descs, 0U);
  ASSERT_EQ(r.completion->peek(4), 2U);
  EXPECT_EQ(r.completion->at(0), with_offset);  // as submitted
  EXPECT_EQ(r.completion->at(1), base + 10);
}

// A Queue on unaligned chunks of an odd size runs over the Loopback as over a real port: the
// frames it lends, receives at base | offset << 48 and sends back come out byte for byte, again
// and again (every frame recycled through fill more than once).
TEST(Loopback, AQueueOnUnalignedChunksSendsBackByteForByte) {
  Loopback lb(
      {.frames_per_queue = 16, .frame_size = 3000, .ring_size = 8, .unaligned_chunks = true});
  afxdp::Queue& q = lb.port().queues()[0];
  for (unsigned char round = 0; round < 8; ++round) {
    std::vector<std::vector<std::byte>> in;
    for (unsigned char i = 0; i < 6; ++i) {
      in.push_back(bytes_of(60 + i, static_cast<unsigned char>(round * 8 + i)));
      ASSERT_TRUE(lb.inject(0, in.back())) << "round " << int{round};
    }
    EXPECT_EQ(q.serve([](Frame&) { return Verdict::send_back; }), 6U);
    q.flush();
    EXPECT_EQ(lb.transmitted(0), in) << "round " << int{round};
  }
  const afxdp::XdpStatistics s = lb.statistics(0);  // nothing refused or dropped
  EXPECT_EQ(s, afxdp::XdpStatistics{.tx_ring_empty_descs = s.tx_ring_empty_descs});
}

// poll(2) on a queue's raw rings as the kernel's xsk_poll answers it in copy mode: it drives tx
// (not a kick), then POLLOUT only while the tx ring holds at most half its size, POLLIN while rx
// holds entries. Waiting for POLLOUT it goes round while tx moves; with the completion ring full
// tx cannot move, and the poll ends without POLLOUT: a timeout.
TEST(Loopback, PollDrivesTxAndReportsAsTheKernelsXskPoll) {
  Loopback lb({.frames_per_queue = 64, .ring_size = 16, .completion_size = 4});
  const Loopback::Rings r = lb.rings(0);
  EXPECT_EQ(lb.poll(0, POLLIN | POLLOUT), POLLOUT);  // tx empty, nothing received
  ASSERT_EQ(r.tx->reserve(16), 16U);
  for (std::uint32_t i = 0; i < 16; ++i) r.tx->at(i) = {(32 + i) * 4096ULL, 60, 0};
  r.tx->submit(16);
  EXPECT_EQ(lb.readiness(0), 0);

  EXPECT_EQ(lb.poll(0, POLLOUT) & POLLOUT, 0);  // 4 sent, then the completion ring is full
  EXPECT_EQ(lb.transmitted(0).size(), 4U);
  EXPECT_EQ(lb.kicks(0), 0U);
  EXPECT_EQ(lb.poll(0, POLLOUT), 0);  // the 4 completions not taken: nothing moves
  EXPECT_TRUE(lb.transmitted(0).empty());
  ASSERT_EQ(r.completion->peek(4), 4U);
  r.completion->release(4);
  EXPECT_EQ(lb.poll(0, POLLOUT), POLLOUT);  // 4 more: 8 of 16 left, exactly half
  EXPECT_EQ(lb.transmitted(0).size(), 4U);

  ASSERT_TRUE(lb.inject(0, bytes_of(60, 3)));
  EXPECT_EQ(lb.readiness(0), POLLIN | POLLOUT);
  EXPECT_EQ(lb.poll(0, POLLIN), POLLIN | POLLOUT);  // every ready event, as xsk_poll's mask
  EXPECT_TRUE(lb.transmitted(0).empty());           // the 4 completions not taken yet
}

// The kernel's poll drives tx only for a socket bound with XDP_USE_NEED_WAKEUP (xsk_poll checks
// the pool's need_wakeup): without it, poll sends nothing and only reports.
TEST(Loopback, PollWithoutNeedWakeupSendsNothing) {
  Loopback lb({.frames_per_queue = 64, .ring_size = 16, .need_wakeup = false});
  const Loopback::Rings r = lb.rings(0);
  ASSERT_EQ(r.tx->reserve(4), 4U);
  for (std::uint32_t i = 0; i < 4; ++i) r.tx->at(i) = {(32 + i) * 4096ULL, 60, 0};
  r.tx->submit(4);
  EXPECT_EQ(lb.poll(0, POLLOUT), POLLOUT);  // 4 of 16 outstanding: writeable
  EXPECT_TRUE(lb.transmitted(0).empty());
}

}  // namespace
