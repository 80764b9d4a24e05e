// Multi-buffer on testing::Loopback: packets larger than a frame arrive as chains, are handed
// over whole (never half, whatever the batch size), go back out as chains, and every frame is
// accounted for after every call.
#include "expect_accounted.hpp"

#include <afxdp/detail/uapi.hpp>
#include <afxdp/packet.hpp>
#include <afxdp/queue.hpp>
#include <afxdp/rings/tx_descriptor.hpp>
#include <afxdp/testing/loopback.hpp>

#include <gtest/gtest.h>
#include <linux/bpf.h>

#include <cstring>
#include <optional>
#include <vector>

namespace {

using afxdp::Packet;
using afxdp::Queue;
using afxdp::Verdict;
using afxdp::testing::Loopback;
using afxdp::testing::LoopbackConfig;

constexpr std::uint32_t frame_size = 2048;
constexpr std::uint32_t per_fragment = frame_size - XDP_PACKET_HEADROOM;  // 1792

std::vector<std::byte> bytes_of(std::size_t seed, std::size_t size) {
  std::vector<std::byte> b(size);
  for (std::size_t i = 0; i < size; ++i)
    b[i] = std::byte(static_cast<unsigned char>(seed * 31 + i * 7));
  return b;
}

std::vector<std::byte> whole(const Packet& p) {
  std::vector<std::byte> out(p.size());
  EXPECT_EQ(p.copy_to(out), p.size());
  return out;
}

using queue_test::expect_accounted;

LoopbackConfig mb(std::uint32_t frames = 128, std::uint32_t ring = 64) {
  return {.frames_per_queue = frames,
          .frame_size = frame_size,
          .ring_size = ring,
          .multi_buffer = true};
}

TEST(Packets, InjectSplitsALongFrameIntoAChainAsTheKernelDoes) {
  Loopback lb(mb());
  Queue& q = lb.port().queues()[0];
  const auto sent = bytes_of(1, 9000);
  ASSERT_TRUE(lb.inject(0, sent));
  std::vector<std::vector<std::byte>> got;
  std::vector<std::uint32_t> fragments;
  EXPECT_EQ(q.receive_packets([&](std::span<Packet> packets) {
    for (const Packet& p : packets) {
      got.push_back(whole(p));
      fragments.push_back(p.fragment_count());
      for (std::uint32_t i = 0; i + 1 < p.fragment_count(); ++i) {
        EXPECT_EQ(p[i].size(), per_fragment);
      }
    }
  }),
            6U);  // ceil(9000 / 1792) descriptors
  ASSERT_EQ(got.size(), 1U);
  EXPECT_EQ(fragments[0], 6U);
  EXPECT_EQ(got[0], sent);
  EXPECT_EQ(q.stats().packets, 1U);
  EXPECT_EQ(q.stats().received, 6U);
  expect_accounted(q);
}

// take_chains does not write kept_ per fragment: a fragment slot kept in one call is handed out
// again in the next, and must not look kept there (it would be neither recycled nor held).
TEST(Packets, AFragmentKeptInOneCallLeavesTheNextCallsFragmentsToBeRecycled) {
  Loopback lb(mb());
  Queue& q = lb.port().queues()[0];
  std::vector<afxdp::FrameRef> kept;
  for (std::uint32_t round = 0; round < 2; ++round) {
    ASSERT_TRUE(lb.inject(0, bytes_of(round, 4000)));  // a chain of 3
    EXPECT_EQ(q.receive_packets([&](std::span<Packet> packets) {
      ASSERT_EQ(packets.size(), 1U);
      kept.push_back(q.keep(packets[0][round]));
    }),
              3U);
    expect_accounted(q);
    EXPECT_EQ(q.account().held, round + 1);
  }
  for (afxdp::FrameRef& ref : kept) q.recycle(std::move(ref));
  expect_accounted(q);
  EXPECT_EQ(q.account().held, 0U);
}

TEST(Packets, WithoutMultiBufferALongFrameIsDroppedAsTheKernelDoes) {
  Loopback lb({.frames_per_queue = 64, .frame_size = frame_size, .ring_size = 32});
  EXPECT_FALSE(lb.inject(0, bytes_of(1, 3000)));
  EXPECT_EQ(lb.statistics(0).rx_dropped, 1U);
}

TEST(Packets, AChainCutByTheBatchEndIsTakenWholeByTheNextCall) {
  Loopback lb(mb());
  Queue& q = lb.port().queues()[0];
  const std::vector<std::size_t> sizes{100, 4000, 9000, 60, 5000};  // 1, 3, 6, 1, 3 descriptors
  for (std::size_t i = 0; i < sizes.size(); ++i) ASSERT_TRUE(lb.inject(0, bytes_of(i, sizes[i])));
  std::vector<std::vector<std::byte>> got;
  std::vector<std::uint32_t> per_call;
  for (int call = 0; call < 20 && got.size() < sizes.size(); ++call) {
    // 5 descriptors a call: the 9000-byte chain never fits behind another, and alone it runs
    // past the limit (taken whole anyway).
    per_call.push_back(q.receive_packets(
        [&](std::span<Packet> packets) {
          for (const Packet& p : packets) got.push_back(whole(p));
        },
        5));
    expect_accounted(q);
  }
  ASSERT_EQ(got.size(), sizes.size());
  for (std::size_t i = 0; i < sizes.size(); ++i) EXPECT_EQ(got[i], bytes_of(i, sizes[i])) << i;
  EXPECT_EQ(per_call[0], 4U);  // 1 + 3: the 9000-byte chain would be cut, so it waits
  EXPECT_EQ(per_call[1], 6U);  // alone, past the limit of 5, but whole
  EXPECT_EQ(q.stats().invalid_chains, 0U);
}

// Every frame lent to the fill ring (ring == frames): any of the queue's addresses is one the
// kernel may publish, so a test can write rx descriptors by hand (inject_descriptor).
LoopbackConfig all_lent() {
  return {.frames_per_queue = 32, .frame_size = frame_size, .ring_size = 32, .multi_buffer = true};
}

xdp_desc fragment(std::uint32_t frame, std::uint32_t len, bool more) {
  return {std::uint64_t{frame} * frame_size + XDP_PACKET_HEADROOM, len,
          more ? afxdp::uapi::xdp_pkt_contd : 0U};
}

TEST(Packets, AChainWhoseEndHasNotArrivedIsLeftOnRx) {
  Loopback lb(all_lent());
  Queue& q = lb.port().queues()[0];
  ASSERT_TRUE(lb.inject_descriptor(0, fragment(0, 100, true)));
  ASSERT_TRUE(lb.inject_descriptor(0, fragment(1, 100, true)));
  std::uint32_t packets = 0;
  const auto count = [&](std::span<Packet> p) { packets += static_cast<std::uint32_t>(p.size()); };
  EXPECT_EQ(q.receive_packets(count), 0U);
  EXPECT_EQ(q.account().fill, 32U);  // nothing taken
  expect_accounted(q);
  ASSERT_TRUE(lb.inject_descriptor(0, fragment(2, 50, false)));
  EXPECT_EQ(q.receive_packets(count, 1), 3U);  // a limit of 1 does not split it either
  EXPECT_EQ(packets, 1U);
  EXPECT_EQ(q.stats().received, 3U);
  expect_accounted(q);
}

TEST(Packets, AChainLongerThanTheKernelAllowsIsRefusedCountedAndRecycled) {
  Loopback lb(all_lent());
  Queue& q = lb.port().queues()[0];
  // 20 descriptors in one chain (the kernel's limit is 18), then a packet of one.
  for (std::uint32_t i = 0; i < 20; ++i) {
    ASSERT_TRUE(lb.inject_descriptor(0, fragment(i, 100, i < 19)));
  }
  ASSERT_TRUE(lb.inject_descriptor(0, fragment(20, 60, false)));
  std::uint32_t packets = 0;
  std::uint32_t taken = 0;
  for (int call = 0; call < 5; ++call) {
    // 8 a call: the over-long chain is refused in pieces across calls, never handed over.
    taken += q.receive_packets(
        [&](std::span<Packet> p) {
          for (const Packet& one : p) {
            EXPECT_EQ(one.size(), 60U);
            ++packets;
          }
        },
        8);
    expect_accounted(q);
  }
  EXPECT_EQ(taken, 21U);
  EXPECT_EQ(packets, 1U);
  EXPECT_EQ(q.stats().invalid_chains, 1U);
  EXPECT_EQ(q.stats().received, 21U);
  EXPECT_EQ(q.account().fill + q.account().free, q.frames());  // every frame recycled
}

TEST(Packets, ARefusedDescriptorSpoilsItsWholeChain) {
  Loopback lb(all_lent());
  Queue& q = lb.port().queues()[0];
  ASSERT_TRUE(lb.inject_descriptor(0, fragment(0, 100, true)));
  ASSERT_TRUE(lb.inject_descriptor(0, {std::uint64_t{1} << 40, 100, afxdp::uapi::xdp_pkt_contd}));
  ASSERT_TRUE(lb.inject_descriptor(0, fragment(2, 100, false)));
  ASSERT_TRUE(lb.inject_descriptor(0, fragment(5, 70, false)));
  std::uint32_t packets = 0;
  EXPECT_EQ(q.receive_packets([&](std::span<Packet> p) {
    for (const Packet& one : p) {
      EXPECT_EQ(one.size(), 70U);
      ++packets;
    }
  }),
            4U);
  EXPECT_EQ(packets, 1U);
  EXPECT_EQ(q.stats().invalid_chains, 1U);
  EXPECT_EQ(q.stats().refused, 1U);
  expect_accounted(q);
}

TEST(Packets, ServeSendsTheWholeChainBackAsAChain) {
  Loopback lb(mb());
  Queue& q = lb.port().queues()[0];
  const std::vector<std::size_t> sizes{9000, 64, 3000};
  for (std::size_t i = 0; i < sizes.size(); ++i) ASSERT_TRUE(lb.inject(0, bytes_of(i, sizes[i])));
  std::uint32_t handled = 0;
  const auto echo = [&](Packet& p) {
    ++handled;
    // Touch the last fragment, as a handler that rewrites a trailer would.
    afxdp::Frame& last = p[p.fragment_count() - 1];
    last.data()[last.size() - 1] = std::byte{0xEE};
    return Verdict::send_back;
  };
  EXPECT_EQ(q.serve_packets(echo), 6U + 1U + 2U);
  expect_accounted(q);
  q.flush();
  const auto wire = lb.transmitted(0);
  ASSERT_EQ(wire.size(), sizes.size());
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    auto expected = bytes_of(i, sizes[i]);
    expected.back() = std::byte{0xEE};
    EXPECT_EQ(wire[i], expected) << i;
  }
  EXPECT_EQ(lb.statistics(0).tx_invalid_descs, 0U);
  ASSERT_TRUE(q.drain(std::chrono::milliseconds(100)));
  EXPECT_EQ(q.account().tx, 0U);
  expect_accounted(q);
}

// A handler that trims a trailer off the last fragment (or grows it) sees the packet's size
// follow, and what goes out is the packet as resized.
TEST(Packets, SizeFollowsAFragmentsResize) {
  Loopback lb(mb());
  Queue& q = lb.port().queues()[0];
  const auto sent = bytes_of(3, 4000);  // 1792 + 1792 + 416
  ASSERT_TRUE(lb.inject(0, sent));
  std::uint32_t seen_before = 0, seen_after = 0;
  EXPECT_EQ(q.serve_packets([&](Packet& p) {
    seen_before = p.size();
    afxdp::Frame& last = p[p.fragment_count() - 1];
    EXPECT_TRUE(last.resize(last.size() - 16));
    seen_after = p.size();
    return Verdict::send_back;
  }),
            3U);
  EXPECT_EQ(seen_before, 4000U);
  EXPECT_EQ(seen_after, 4000U - 16U);
  q.flush();
  const auto wire = lb.transmitted(0);
  ASSERT_EQ(wire.size(), 1U);
  EXPECT_EQ(wire[0], std::vector<std::byte>(sent.begin(), sent.end() - 16));
  ASSERT_TRUE(q.drain(std::chrono::milliseconds(100)));
  expect_accounted(q);
}

TEST(Packets, ServeDropRecyclesEveryFragment) {
  Loopback lb(mb(64, 32));
  Queue& q = lb.port().queues()[0];
  // More packets than frames: only recycling lets them all through.
  std::uint32_t handled = 0;
  for (std::uint32_t i = 0; i < 100; ++i) {
    ASSERT_TRUE(lb.inject(0, bytes_of(i, 5000))) << i;  // 3 fragments each
    EXPECT_EQ(q.serve_packets([&](Packet& p) {
      EXPECT_EQ(p.size(), 5000U);
      ++handled;
      return Verdict::drop;
    }),
              3U);
    expect_accounted(q);
  }
  EXPECT_EQ(handled, 100U);
  EXPECT_EQ(q.stats().dropped, 300U);
  EXPECT_EQ(q.stats().packets, 100U);
}

TEST(Packets, ServeHoldsAChainBackWhenTxHasNoRoomForAllOfIt) {
  // One descriptor per kick: tx drains slowly, so its room runs short.
  LoopbackConfig c = mb(128, 16);
  c.fill_size = 32;
  c.tx_budget = 1;
  Loopback lb(c);
  Queue& q = lb.port().queues()[0];
  ASSERT_TRUE(lb.inject(0, bytes_of(1, 9000)));  // 6 descriptors each
  ASSERT_TRUE(lb.inject(0, bytes_of(2, 9000)));
  {
    afxdp::TxBatch batch = q.allocate(8);
    for (afxdp::TxFrame f : batch) f.resize(60);
    ASSERT_EQ(batch.send(), 8U);  // 8 of tx's 16 slots, one of them sent by the kick
  }
  const auto echo = [](Packet&) { return Verdict::send_back; };
  EXPECT_EQ(q.serve_packets(echo), 6U);  // room for 9: the first chain only
  EXPECT_GT(q.stats().tx_full, 0U);
  expect_accounted(q);
  EXPECT_EQ(q.serve_packets(echo), 0U);  // no room for 6 more: the chain stays on rx, whole
  expect_accounted(q);
  for (int i = 0; i < 20; ++i) q.flush();
  auto wire = lb.transmitted(0);  // and their completions published
  EXPECT_EQ(q.serve_packets(echo), 6U);
  for (int i = 0; i < 20; ++i) q.flush();
  for (auto& frame : lb.transmitted(0)) wire.push_back(std::move(frame));
  ASSERT_EQ(wire.size(), 10U);
  EXPECT_EQ(wire[8], bytes_of(1, 9000));
  EXPECT_EQ(wire[9], bytes_of(2, 9000));
  ASSERT_TRUE(q.drain(std::chrono::milliseconds(100)));
  expect_accounted(q);
}

TEST(Packets, TxBatchBuildsAMultiFragmentPacket) {
  Loopback lb(mb());
  Queue& q = lb.port().queues()[0];
  const auto packet = bytes_of(5, 9000);
  std::optional<afxdp::TxBatch> open(q.allocate(8));
  afxdp::TxBatch& batch = *open;
  ASSERT_EQ(batch.size(), 8U);
  std::size_t at = 0;
  std::uint32_t fragments = 0;
  while (at < packet.size()) {
    afxdp::TxFrame f = batch[fragments++];
    const std::size_t n = std::min<std::size_t>(f.capacity(), packet.size() - at);
    ASSERT_TRUE(f.resize(static_cast<std::uint32_t>(n)));
    std::memcpy(f.data().data(), packet.data() + at, n);
    at += n;
  }
  ASSERT_EQ(fragments, 5U);  // 2048 bytes each: 4 * 2048 + 808
  EXPECT_EQ(batch.send_packet(fragments), fragments);
  EXPECT_EQ(batch.send_packet(afxdp::max_fragments + 1), 0U);  // never a chain the kernel drops
  EXPECT_EQ(batch.size(), 3U);
  open.reset();  // the 3 unsent frames back to the pool
  expect_accounted(q);
  q.flush();
  const auto wire = lb.transmitted(0);
  ASSERT_EQ(wire.size(), 1U);
  EXPECT_EQ(wire[0], packet);
  ASSERT_TRUE(q.drain(std::chrono::milliseconds(100)));
  expect_accounted(q);
}

TEST(Packets, FramePathsStayAsTheyWereWithMultiBufferOff) {
  Loopback lb({.frames_per_queue = 64, .frame_size = frame_size, .ring_size = 32});
  Queue& q = lb.port().queues()[0];
  ASSERT_TRUE(lb.inject(0, bytes_of(1, 100)));
  std::uint32_t packets = 0;
  EXPECT_EQ(q.receive_packets([&](std::span<Packet> p) {
    for (const Packet& one : p) {
      EXPECT_EQ(one.fragment_count(), 1U);
      ++packets;
    }
  }),
            1U);
  EXPECT_EQ(packets, 1U);
  expect_accounted(q);
}

}  // namespace

namespace {

TEST(Packets, TxDescriptorRulesAllowContdOnlyOnAMultiBufferSocket) {
  const xdp_desc contd{0, 100, afxdp::uapi::xdp_pkt_contd};
  const xdp_desc other{0, 100, 1U << 1};
  afxdp::TxDescriptorRules rules{.umem_size = 1 << 20, .chunk_size = 4096};
  EXPECT_EQ(afxdp::tx_descriptor_fault(contd, rules), afxdp::TxDescriptorFault::options);
  rules.multi_buffer = true;
  EXPECT_EQ(afxdp::tx_descriptor_fault(contd, rules), afxdp::TxDescriptorFault::none);
  EXPECT_EQ(afxdp::tx_descriptor_fault(other, rules), afxdp::TxDescriptorFault::options);
}

}  // namespace
