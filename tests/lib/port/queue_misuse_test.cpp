// Issue 27: the Queue when its user misbehaves (a throwing handler or reader, a send inside a
// batch, an empty frame, a verb the queue lacks, the frame API on a multi-buffer queue) or the
// kernel does (a duplicated completion), on testing::Loopback: every frame handled at most once,
// none lost, and the queue keeps working.
#include "expect_accounted.hpp"
#include "sequence_packet.hpp"

#include <afxdp/packet.hpp>
#include <afxdp/queue.hpp>
#include <afxdp/testing/loopback.hpp>

#include "expect_throw.hpp"
#include <gtest/gtest.h>

#include <cstring>
#include <map>
#include <set>
#include <stdexcept>
#include <vector>

namespace {

using afxdp::Frame;
using afxdp::Frames;
using afxdp::Packet;
using afxdp::Queue;
using afxdp::Verdict;
using afxdp::testing::Loopback;
using afxdp::testing::LoopbackConfig;
using namespace std::chrono_literals;

using queue_test::packet;

using queue_test::expect_accounted;

// Issue 27 item 4: a verb the queue has no ring for is one clear error, before any ring moves.
TEST(QueueMisuse, AVerbTheQueueHasNoRingForThrowsLogicError) {
  Loopback send_only({.frames_per_queue = 64, .ring_size = 32, .receive = false});
  Queue& s = send_only.port().queues()[0];
  EXPECT_THROW(s.receive([](Frames) {}), std::logic_error);
  EXPECT_THROW(s.receive_packets([](std::span<Packet>) {}), std::logic_error);
  EXPECT_THROW(s.serve([](Frame&) { return Verdict::send_back; }), std::logic_error);
  Loopback receive_only({.queues = 2, .frames_per_queue = 64, .ring_size = 32, .transmit = false});
  Queue& r = receive_only.port().queues()[0];
  ASSERT_TRUE(receive_only.inject(0, packet(1)));
  EXPECT_THROW_WITH((void)r.serve([](Frame&) { return Verdict::send_back; }), std::logic_error,
                    "serve");
  EXPECT_THROW_WITH((void)r.serve([](Frame&) { return Verdict::send_back; }), std::logic_error,
                    "loopback:0");
  EXPECT_THROW(r.serve_packets([](Packet&) { return Verdict::send_back; }), std::logic_error);
  EXPECT_THROW(r.forward(receive_only.port().queues()[1], [](Frame&) { return Verdict::send; }),
               std::logic_error);
  // Nothing was taken: the frame is still there for receive().
  std::uint32_t seen = 0;
  r.receive([&](Frames f) { seen += static_cast<std::uint32_t>(f.size()); });
  EXPECT_EQ(seen, 1U);
  expect_accounted(r);
}

// Issue 27 item 8: on a multi-buffer queue the frame API would hand over (and send) fragments
// as if they were packets.
TEST(QueueMisuse, TheFrameApiOnAMultiBufferQueueThrowsLogicError) {
  Loopback lb({.queues = 2,
               .frames_per_queue = 64,
               .frame_size = 2048,
               .ring_size = 32,
               .shared_umem = true,
               .multi_buffer = true});
  Queue& q = lb.port().queues()[0];
  ASSERT_TRUE(lb.inject(0, packet(1, 5000)));
  EXPECT_THROW(q.serve([](Frame&) { return Verdict::send_back; }), std::logic_error);
  EXPECT_THROW_WITH(q.receive([](Frames) {}), std::logic_error, "receive_packets");
  EXPECT_THROW(q.forward(lb.port().queues()[1], [](Frame&) { return Verdict::send; }),
               std::logic_error);
  EXPECT_TRUE(lb.transmitted(0).empty());
  std::uint32_t packets = 0;
  q.receive_packets([&](std::span<Packet> p) { packets += static_cast<std::uint32_t>(p.size()); });
  EXPECT_EQ(packets, 1U);  // whole, and only now
  expect_accounted(q);
}

// Issue 27 item 9: verdict_count is what the if-chains' static_asserts check; it must follow the
// enum, or a new Verdict slips past them.
TEST(QueueMisuse, VerdictCountIsTheLastVerdictPlusOne) {
  EXPECT_EQ(afxdp::verdict_count, static_cast<std::size_t>(Verdict::send) + 1);
}

std::uint32_t sequence_of(std::span<const std::byte> bytes) {
  std::uint32_t s = 0;
  std::memcpy(&s, bytes.data(), sizeof s);
  return s;
}

// Issue 27 item 3: an empty frame is not sent (the kernel skips it and, on drivers like the
// Loopback, never completes it): it goes back to receiving, counted.
TEST(QueueMisuse, AFrameResizedToZeroIsRecycledNotSent) {
  Loopback lb({.queues = 2, .frames_per_queue = 64, .ring_size = 32, .shared_umem = true});
  Queue& q = lb.port().queues()[0];
  Queue& out = lb.port().queues()[1];
  const auto empty_odd = [](Frame& f) {
    if (sequence_of(f.data()) % 2 == 1) {
      EXPECT_TRUE(f.resize(0));
    }
    return Verdict::send_back;
  };
  for (std::uint32_t i = 0; i < 10; ++i) ASSERT_TRUE(lb.inject(0, packet(i)));
  q.serve(empty_odd);
  q.flush();
  EXPECT_EQ(lb.transmitted(0).size(), 5U);
  EXPECT_TRUE(q.drain(1000ms));
  for (std::uint32_t i = 0; i < 10; ++i) ASSERT_TRUE(lb.inject(0, packet(i)));
  q.forward(out, [](Frame& f) {
    if (sequence_of(f.data()) % 2 == 1) {
      EXPECT_TRUE(f.resize(0));
    }
    return Verdict::send;
  });
  out.flush();
  EXPECT_EQ(lb.transmitted(1).size(), 5U);
  EXPECT_TRUE(out.drain(1000ms));
  EXPECT_EQ(q.stats().dropped, 10U);
  // A kept frame sent empty.
  ASSERT_TRUE(lb.inject(0, packet(1)));
  afxdp::FrameRef kept;
  q.serve([&](Frame& f) {
    kept = q.keep(f);
    return Verdict::drop;
  });
  ASSERT_TRUE(kept.frame().resize(0));
  const std::uint64_t refused = q.stats().refused;
  EXPECT_TRUE(q.send(std::move(kept)));
  EXPECT_FALSE(kept);  // NOLINT(bugprone-use-after-move): send() ended it
  EXPECT_EQ(q.stats().refused, refused + 1);
  EXPECT_TRUE(q.drain(1000ms));
  EXPECT_EQ(lb.statistics(0).tx_invalid_descs, 0U);
  EXPECT_EQ(lb.statistics(1).tx_invalid_descs, 0U);
  expect_accounted(q);
  expect_accounted(out);
  EXPECT_EQ(q.account().fill + q.account().free, q.frames());
}

TEST(QueueMisuse, AChainWithAnEmptyFragmentIsInvalidAndRecycled) {
  Loopback lb({.frames_per_queue = 64, .frame_size = 2048, .ring_size = 32, .multi_buffer = true});
  Queue& q = lb.port().queues()[0];
  ASSERT_TRUE(lb.inject(0, packet(1, 5000)));  // 3 fragments
  ASSERT_TRUE(lb.inject(0, packet(2, 64)));
  q.serve_packets([](Packet& p) {
    if (p.fragment_count() == 3) {
      EXPECT_TRUE(p[1].resize(0));
    }
    return Verdict::send_back;
  });
  q.flush();
  const auto wire = lb.transmitted(0);
  EXPECT_TRUE(q.drain(1000ms));
  ASSERT_EQ(wire.size(), 1U);
  EXPECT_EQ(wire[0], packet(2, 64));
  EXPECT_EQ(q.stats().invalid_chains, 1U);
  EXPECT_EQ(lb.statistics(0).tx_invalid_descs, 0U);
  expect_accounted(q);
  EXPECT_EQ(q.account().fill + q.account().free, q.frames());
}

// Issue 27 item 5: a completion for a frame that is not out on tx is refused, even while other
// frames are (the count alone cannot tell).
TEST(QueueMisuse, ADuplicatedCompletionIsRefusedWhileAnotherFrameIsInFlight) {
  Loopback lb({.frames_per_queue = 32, .ring_size = 16});
  Queue& q = lb.port().queues()[0];
  const std::uint32_t free_before = q.account().free;
  lb.delay_completions(true);
  std::uint64_t a = 0;
  std::uint64_t b = 0;
  {
    afxdp::TxBatch batch = q.allocate(2);
    ASSERT_EQ(batch.size(), 2U);
    a = batch[0].address();
    b = batch[1].address();
    ASSERT_TRUE(batch[0].resize(60));
    ASSERT_TRUE(batch[1].resize(60));
    ASSERT_EQ(batch.send(), 2U);
  }
  q.flush();
  ASSERT_EQ(lb.transmitted(0).size(), 2U);  // on the wire; completions held back
  ASSERT_TRUE(lb.inject_completion(0, a));
  ASSERT_TRUE(lb.inject_completion(0, a));  // the kernel completes A twice
  EXPECT_FALSE(q.drain(10ms));
  EXPECT_EQ(q.in_flight(), 1U);  // B is still out
  EXPECT_EQ(q.account().tx, 1U);
  EXPECT_EQ(q.stats().refused, 1U);
  ASSERT_TRUE(lb.inject_completion(0, b));
  EXPECT_TRUE(q.drain(1000ms));
  EXPECT_EQ(q.stats().completed, 2U);
  expect_accounted(q);
  EXPECT_EQ(q.account().free, free_before);
  afxdp::TxBatch all = q.allocate(afxdp::max_batch);
  std::set<std::uint64_t> distinct;
  for (const afxdp::TxFrame f : all) distinct.insert(f.address());
  EXPECT_EQ(distinct.size(), all.size());  // A once in the pool, B not lost
  EXPECT_TRUE(distinct.contains(a));
  EXPECT_TRUE(distinct.contains(b));
}

std::vector<std::byte> filled(std::byte value) { return std::vector<std::byte>(60, value); }

// allocate() inside a handler collects completions: it must not write over the list of frames
// the batch has dropped so far (both used the Queue's chunks_).
TEST(QueueMisuse, AllocateInsideAServeHandlerLosesNoDroppedFrame) {
  Loopback lb({.frames_per_queue = 64, .ring_size = 32});
  Queue& q = lb.port().queues()[0];
  lb.delay_completions(true);
  {
    afxdp::TxBatch batch = q.allocate(2);
    ASSERT_TRUE(batch[0].resize(60));
    ASSERT_TRUE(batch[1].resize(60));
    ASSERT_EQ(batch.send(), 2U);
  }
  q.flush();
  ASSERT_EQ(lb.transmitted(0).size(), 2U);  // their completions held back
  for (std::uint32_t i = 0; i < 4; ++i) ASSERT_TRUE(lb.inject(0, packet(i)));
  q.serve([&](Frame& f) {
    if (sequence_of(f.data()) == 2) {
      lb.complete_delayed(0);               // they arrive while the handler runs
      afxdp::TxBatch more = q.allocate(1);  // and allocate() collects them
      EXPECT_EQ(more.size(), 1U);
    }
    return sequence_of(f.data()) < 2 ? Verdict::drop : Verdict::send_back;
  });
  q.flush();
  EXPECT_EQ(lb.transmitted(0).size(), 2U);
  lb.complete_delayed(0);
  EXPECT_TRUE(q.drain(1000ms));
  expect_accounted(q);
  EXPECT_EQ(q.account().fill + q.account().free, q.frames());
  afxdp::TxBatch all = q.allocate(afxdp::max_batch);
  std::set<std::uint64_t> distinct;
  for (const afxdp::TxFrame f : all) distinct.insert(f.address());
  EXPECT_EQ(distinct.size(), all.size());
}

// Issue 27 item 2: a send inside serve()'s handler would overwrite the tx slot serve reserved.
TEST(QueueMisuse, ASendInsideAServeHandlerIsRefusedAndTheRingStaysRight) {
  Loopback lb({.frames_per_queue = 64, .ring_size = 32});
  Queue& q = lb.port().queues()[0];
  ASSERT_TRUE(lb.inject(0, filled(std::byte{0xEE})));
  afxdp::FrameRef kept;
  q.serve([&](Frame& f) {
    kept = q.keep(f);
    return Verdict::drop;
  });
  afxdp::TxBatch batch = q.allocate(1);
  ASSERT_EQ(batch.size(), 1U);
  ASSERT_TRUE(batch[0].resize(60));
  std::memset(batch[0].data().data(), 0xDD, 60);
  for (const auto b : {std::byte{0xAA}, std::byte{0xBB}, std::byte{0xCC}})
    ASSERT_TRUE(lb.inject(0, filled(b)));
  const std::uint64_t refused = q.stats().refused;
  q.serve([&](Frame& f) {
    if (f.data()[0] == std::byte{0xBB}) {
      EXPECT_FALSE(q.send(std::move(kept)));
      EXPECT_EQ(batch.send(), 0U);
    }
    return Verdict::send_back;
  });
  EXPECT_EQ(q.stats().refused, refused + 2);
  q.flush();
  const auto wire = lb.transmitted(0);
  ASSERT_EQ(wire.size(), 3U);
  EXPECT_EQ(wire[0], filled(std::byte{0xAA}));
  EXPECT_EQ(wire[1], filled(std::byte{0xBB}));
  EXPECT_EQ(wire[2], filled(std::byte{0xCC}));
  // Outside the batch both work, and every frame is where it should be.
  ASSERT_TRUE(kept);
  EXPECT_TRUE(q.send(std::move(kept)));
  EXPECT_EQ(batch.send(), 1U);
  q.flush();
  const auto later = lb.transmitted(0);
  ASSERT_EQ(later.size(), 2U);
  EXPECT_EQ(later[0], filled(std::byte{0xEE}));
  EXPECT_EQ(later[1], filled(std::byte{0xDD}));
  EXPECT_TRUE(q.drain(1000ms));
  expect_accounted(q);
  EXPECT_EQ(q.account().fill + q.account().free, q.frames());
}

// A forward() nested in another's handler, from the queue the outer one sends out of: the outer
// batch holds that queue's reserved tx slots, so its send_back may not reserve and publish there
// (it wrote the outer batch's first slot, and the outer batch then published one it never wrote:
// a frame lost and a stale descriptor sent). The nested send_back is dropped; nothing else moves.
TEST(QueueMisuse, ASendBackNestedInAnotherQueuesForwardLeavesItsTxSlotsAlone) {
  Loopback lb({.queues = 2, .frames_per_queue = 32, .ring_size = 16});
  Queue& a = lb.port().queues()[0];
  Queue& b = lb.port().queues()[1];
  for (std::uint32_t i = 0; i < 3; ++i) ASSERT_TRUE(lb.inject(0, packet(i)));
  ASSERT_TRUE(lb.inject(1, packet(100)));
  bool nested = false;
  EXPECT_EQ(a.forward(b,
                      [&](Frame&) {
                        if (!nested) {
                          nested = true;
                          EXPECT_EQ(b.forward(a, [](Frame&) { return Verdict::send_back; }), 1U);
                        }
                        return Verdict::send;
                      }),
            3U);
  b.flush();
  const auto wire = lb.transmitted(1);
  ASSERT_EQ(wire.size(), 3U);
  for (std::uint32_t i = 0; i < 3; ++i) EXPECT_EQ(wire[i], packet(i)) << i;
  EXPECT_EQ(b.stats().dropped, 1U);
  b.receive([](Frames) {});  // collects the completions
  a.receive([](Frames) {});
  expect_accounted(a);
  expect_accounted(b);
}

constexpr std::uint32_t offered = 200;
constexpr std::uint32_t runt_at = 57;  // the one frame too short for the parser
constexpr std::size_t runt_size = 10;

std::vector<std::byte> offer(std::uint32_t sequence) {
  return packet(sequence, sequence == runt_at ? runt_size : 64);
}

struct ParseError : std::runtime_error {
  ParseError() : std::runtime_error("runt") {}
};

// A parser that throws on a runt, as a user's would; counts what it handled.
struct Parser {
  std::map<std::uint32_t, int>* seen;
  void operator()(std::span<const std::byte> bytes) const {
    if (bytes.size() < 14) throw ParseError();
    ++(*seen)[sequence_of(bytes)];
  }
};

// Offer the 200 frames to queue 0 as room allows, one `turn` after each offer; a turn that
// throws is caught and the loop goes on. `wire` collects what queue `out` sent.
template <class Turn>
int offer_all(Loopback& lb, std::uint32_t out, Turn turn,
              std::vector<std::vector<std::byte>>& wire) {
  int thrown = 0;
  std::uint32_t next = 0;
  for (int t = 0; t < 400; ++t) {
    while (next < offered && lb.inject(0, offer(next))) ++next;
    try {
      turn();
    } catch (const ParseError&) {
      ++thrown;
    }
    lb.port().queues()[out].flush();
    for (auto& f : lb.transmitted(out)) wire.push_back(std::move(f));
  }
  EXPECT_EQ(next, offered);
  return thrown;
}

// Each of the 199 good frames handled once and on the wire once; the runt never.
void expect_each_once(const std::map<std::uint32_t, int>& seen,
                      const std::vector<std::vector<std::byte>>& wire) {
  std::map<std::uint32_t, int> sent;
  for (const auto& f : wire) ++sent[sequence_of(f)];
  for (std::uint32_t s = 0; s < offered; ++s) {
    const int want = s == runt_at ? 0 : 1;
    EXPECT_EQ(seen.contains(s) ? seen.at(s) : 0, want) << "handled, frame " << s;
    EXPECT_EQ(sent.contains(s) ? sent.at(s) : 0, want) << "sent, frame " << s;
  }
}

const LoopbackConfig small{.frames_per_queue = 128, .ring_size = 64, .tx_budget = 64};

TEST(QueueMisuse, AThrowingServeHandlerUnwindsAndTheQueueGoesOn) {
  Loopback lb(small);
  Queue& q = lb.port().queues()[0];
  std::map<std::uint32_t, int> seen;
  const Parser parse{&seen};
  std::vector<std::vector<std::byte>> wire;
  const int thrown = offer_all(
      lb, 0,
      [&] {
        q.serve([&](Frame& f) {
          parse(f.data());
          return Verdict::send_back;
        });
      },
      wire);
  EXPECT_EQ(thrown, 1);
  expect_each_once(seen, wire);
  EXPECT_TRUE(q.drain(1000ms));
  expect_accounted(q);
  EXPECT_EQ(q.stats().received, offered);
  EXPECT_EQ(q.account().tx + q.account().held, 0U);
}

// A throw after frames of the same batch were sent, kept and dropped: those keep their verdicts
// (what was sent is what was taken less the kept, the dropped and the one that threw).
TEST(QueueMisuse, AServeHandlerThrowingAfterKeepingAndDroppingKeepsEachVerdict) {
  Loopback lb(small);
  Queue& q = lb.port().queues()[0];
  for (std::uint32_t i = 0; i < 6; ++i) ASSERT_TRUE(lb.inject(0, packet(i)));
  afxdp::FrameRef kept;
  EXPECT_THROW(q.serve([&](Frame& f) {
    switch (sequence_of(f.data())) {
      case 1:
        kept = q.keep(f);
        return Verdict::send_back;
      case 2:
        return Verdict::drop;
      case 4:
        throw ParseError();
      default:
        return Verdict::send_back;
    }
  }),
               ParseError);
  expect_accounted(q);
  EXPECT_EQ(q.account().tx, 2U);
  EXPECT_EQ(q.account().held, 1U);
  EXPECT_EQ(q.stats().dropped, 2U);  // the drop, and the frame that threw
  q.flush();
  const auto wire = lb.transmitted(0);
  ASSERT_EQ(wire.size(), 2U);
  EXPECT_EQ(sequence_of(wire[0]), 0U);
  EXPECT_EQ(sequence_of(wire[1]), 3U);
  q.recycle(std::move(kept));
  EXPECT_EQ(q.serve([](Frame&) { return Verdict::send_back; }), 1U);  // the one left on rx
  q.flush();
  EXPECT_EQ(lb.transmitted(0).size(), 1U);
  EXPECT_TRUE(q.drain(1000ms));
  expect_accounted(q);
  EXPECT_EQ(q.account().tx + q.account().held, 0U);
}

TEST(QueueMisuse, AThrowingForwardHandlerUnwindsAndTheQueueGoesOn) {
  LoopbackConfig c = small;
  c.queues = 2;
  c.shared_umem = true;
  Loopback lb(c);
  Queue& in = lb.port().queues()[0];
  Queue& out = lb.port().queues()[1];
  std::map<std::uint32_t, int> seen;
  const Parser parse{&seen};
  std::vector<std::vector<std::byte>> wire;
  const int thrown = offer_all(
      lb, 1,
      [&] {
        in.forward(out, [&](Frame& f) {
          parse(f.data());
          return Verdict::send;
        });
      },
      wire);
  EXPECT_EQ(thrown, 1);
  expect_each_once(seen, wire);
  EXPECT_TRUE(out.drain(1000ms));
  expect_accounted(in);
  expect_accounted(out);
  EXPECT_EQ(in.account().tx, 0U);
}

TEST(QueueMisuse, AThrowingPacketHandlerUnwindsAndTheQueueGoesOn) {
  LoopbackConfig c = small;
  c.multi_buffer = true;
  Loopback lb(c);
  Queue& q = lb.port().queues()[0];
  std::map<std::uint32_t, int> seen;
  const Parser parse{&seen};
  std::vector<std::vector<std::byte>> wire;
  const int thrown = offer_all(
      lb, 0,
      [&] {
        q.serve_packets([&](Packet& p) {
          parse(p[0].data());
          return Verdict::send_back;
        });
      },
      wire);
  EXPECT_EQ(thrown, 1);
  expect_each_once(seen, wire);
  EXPECT_TRUE(q.drain(1000ms));
  expect_accounted(q);
  EXPECT_EQ(q.stats().received, offered);
}

// A reader is handed the whole batch at once: it sees each frame once, and after it threw the
// batch's frames go back to receiving.
TEST(QueueMisuse, AThrowingReaderUnwindsAndTheQueueGoesOn) {
  Loopback lb(small);
  Queue& q = lb.port().queues()[0];
  std::map<std::uint32_t, int> handed;
  std::vector<std::vector<std::byte>> wire;
  const int thrown = offer_all(
      lb, 0,
      [&] {
        q.receive([&](Frames frames) {
          for (const Frame& f : frames) ++handed[sequence_of(f.data())];
          for (const Frame& f : frames) {
            if (f.size() < 14) throw ParseError();
          }
        });
      },
      wire);
  EXPECT_EQ(thrown, 1);
  for (std::uint32_t s = 0; s < offered; ++s) EXPECT_EQ(handed[s], 1) << s;
  expect_accounted(q);
  EXPECT_EQ(q.account().fill + q.account().free, q.frames());
}

TEST(QueueMisuse, AThrowingPacketReaderUnwindsAndTheQueueGoesOn) {
  LoopbackConfig c = small;
  c.multi_buffer = true;
  Loopback lb(c);
  Queue& q = lb.port().queues()[0];
  std::map<std::uint32_t, int> handed;
  std::vector<std::vector<std::byte>> wire;
  const int thrown = offer_all(
      lb, 0,
      [&] {
        q.receive_packets([&](std::span<Packet> packets) {
          for (const Packet& p : packets) ++handed[sequence_of(p[0].data())];
          for (const Packet& p : packets) {
            if (p.size() < 14) throw ParseError();
          }
        });
      },
      wire);
  EXPECT_EQ(thrown, 1);
  for (std::uint32_t s = 0; s < offered; ++s) EXPECT_EQ(handed[s], 1) << s;
  expect_accounted(q);
  EXPECT_EQ(q.account().fill + q.account().free, q.frames());
}

// A nested call from a handler (item 2's rule) throws, and the throw unwinds as any other.
TEST(QueueMisuse, ANestedCallInsideAHandlerThrowsAndTheQueueGoesOn) {
  Loopback lb(small);
  Queue& q = lb.port().queues()[0];
  for (std::uint32_t i = 0; i < 4; ++i) ASSERT_TRUE(lb.inject(0, packet(i)));
  EXPECT_THROW(q.serve([&](Frame&) {
    q.receive([](Frames) {});
    return Verdict::send_back;
  }),
               std::logic_error);
  EXPECT_EQ(q.stats().dropped, 1U);  // the frame whose handler threw
  EXPECT_EQ(q.serve([](Frame&) { return Verdict::send_back; }), 3U);
  q.flush();
  EXPECT_EQ(lb.transmitted(0).size(), 3U);
  EXPECT_TRUE(q.drain(1000ms));
  expect_accounted(q);
  EXPECT_EQ(q.account().fill + q.account().free, q.frames());
}

}  // namespace
