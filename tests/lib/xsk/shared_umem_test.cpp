// Two sockets on one UMEM (XDP_SHARED_UMEM). On two queues of a two-queue veth each gets its own
// fill/completion rings and half of the frames, and both receive; on the same queue the second
// shares the first's fill/completion rings and receives from them.
#include "system_test.hpp"
#include "xsk_fixture.hpp"

#include <afxdp/run.hpp>
#include <afxdp/xsk/socket.hpp>
#include <afxdp/xsk/xsk_program.hpp>
#include <lab.hpp>

#include <atomic>
#include <linux/if_packet.h>
#include <poll.h>
#include <sys/socket.h>
#include <thread>

namespace {

constexpr std::uint32_t frame_size = 4096;

// veth hands a frame to the rx queue numbered like the tx queue it was sent on. A packet socket
// that bypasses the qdisc picks tx queue (sending CPU mod queues), so a sender pinned to CPU n
// feeds rx queue n. Sequences [first, end) go out paced by the receiver's progress.
void send_from_cpu(unsigned cpu, const afxdp::lab::VethPair& veth, std::uint32_t first,
                   std::uint32_t end, std::atomic<std::uint32_t>& sent,
                   const std::atomic<std::uint32_t>& received, const std::atomic<bool>& stop,
                   std::atomic<int>& failures) {
  if (!afxdp::pin_to_cpu(cpu)) {
    ++failures;
    return;
  }
  afxdp::lab::PacketSocket peer(veth.a());
  const int bypass = 1;
  if (::setsockopt(peer.fd(), SOL_PACKET, PACKET_QDISC_BYPASS, &bypass, sizeof bypass) != 0) {
    ++failures;
    return;
  }
  const auto dst = afxdp::mac_address(veth.b());
  const auto src = afxdp::mac_address(veth.a());
  for (std::uint32_t sequence = first; sequence < end && !stop.load();) {
    if (sent.load() - received.load() >= 256) {
      std::this_thread::sleep_for(std::chrono::microseconds(200));
      continue;
    }
    const auto frame = afxdp::test::frame_for(sequence, dst, src);
    if (peer.send(frame.data(), frame.size())) {
      ++sequence;
      ++sent;
    } else {
      std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
  }
}

TEST(SharedUmem, TwoQueuesBothReceiveEveryFrameOnce) {
  AFXDP_REQUIRE_SYSTEM();
  constexpr std::uint32_t count = 10000;
  constexpr std::uint64_t half = 2048ULL * frame_size;
  afxdp::lab::VethPair veth(afxdp::lab::unique_prefix(), 2);
  afxdp::Umem umem({.frame_count = 4096});
  afxdp::Socket first(umem,
                      {.interface = veth.b(), .queue = 0, .mode = afxdp::BindMode::native_copy});
  afxdp::Socket second(umem,
                       {.interface = veth.b(), .queue = 1, .mode = afxdp::BindMode::native_copy});
  ASSERT_NE(&first.fill(), &second.fill());
  ASSERT_NE(&first.completion(), &second.completion());
  afxdp::XskProgram program({.interface = veth.b(), .mode = afxdp::AttachMode::native});
  program.insert(0, first.fd());
  program.insert(1, second.fd());
  const afxdp::test::FrameRange low{0, half}, high{half, 2 * half};
  ASSERT_EQ(afxdp::test::lend_frames(first.fill(), low, frame_size), 2048U);
  ASSERT_EQ(afxdp::test::lend_frames(second.fill(), high, frame_size), 2048U);
  afxdp::test::Receiver on_low(first, low), on_high(second, high);

  std::atomic<std::uint32_t> sent{0}, received{0};
  std::atomic<bool> stop{false};
  std::atomic<int> failures{0};
  std::thread cpu0(send_from_cpu, 0U, std::cref(veth), 0U, count / 2, std::ref(sent),
                   std::cref(received), std::cref(stop), std::ref(failures));
  std::thread cpu1(send_from_cpu, 1U, std::cref(veth), count / 2, count, std::ref(sent),
                   std::cref(received), std::cref(stop), std::ref(failures));

  afxdp::test::Tally tally(count);
  std::uint32_t on_first = 0, on_second = 0;
  afxdp::test::StallGuard guard(std::chrono::seconds(5));
  while (!tally.complete() && !guard.stalled() && failures.load() == 0) {
    std::uint32_t before = tally.unique();
    const std::uint32_t n0 = on_low.drain(tally);
    on_first += tally.unique() - before;
    before = tally.unique();
    const std::uint32_t n1 = on_high.drain(tally);
    on_second += tally.unique() - before;
    received.store(tally.unique());
    if (n0 + n1 != 0) {
      guard.progress();
    } else {
      pollfd fds[2] = {{first.fd(), POLLIN, 0}, {second.fd(), POLLIN, 0}};
      ::poll(fds, 2, 20);
    }
  }
  stop.store(true);
  cpu0.join();
  cpu1.join();
  EXPECT_EQ(failures.load(), 0) << "a sender could not pin itself or bypass the qdisc";
  EXPECT_EQ(sent.load(), count);
  EXPECT_TRUE(tally.complete()) << tally.summary();
  EXPECT_TRUE(tally.clean()) << tally.summary();
  EXPECT_GT(on_first, 0U);
  EXPECT_GT(on_second, 0U);
  EXPECT_EQ(on_first + on_second, tally.unique());
}

// Send `count` test frames from sequence `first` and take them off `socket` (which recycles into
// the fill ring it uses); returns the tally's summary when not all arrive intact.
std::string round_trip(afxdp::lab::PacketSocket& peer, afxdp::Socket& socket,
                       const afxdp::MacAddress& dst, const afxdp::MacAddress& src,
                       std::uint32_t first, std::uint32_t count) {
  afxdp::test::Tally tally(first + count);
  for (std::uint32_t i = first; i < first + count; ++i) {
    const auto frame = afxdp::test::frame_for(i, dst, src);
    if (!peer.send(frame.data(), frame.size())) return "send failed";
  }
  afxdp::test::Receiver receiver(socket);
  afxdp::test::StallGuard guard(std::chrono::seconds(3));
  while ((tally.unique() < count || receiver.waiting() != 0) && !guard.stalled()) {
    if (receiver.drain(tally) == 0) socket.poll(POLLIN, 20);
  }
  return tally.unique() == count && tally.clean() ? "" : tally.summary();
}

TEST(SharedUmem, SameQueueSharesFillAndCompletionRings) {
  AFXDP_REQUIRE_SYSTEM();
  afxdp::lab::VethPair veth(afxdp::lab::unique_prefix());
  afxdp::Umem umem({.frame_count = 1024, .fill_size = 1024, .completion_size = 1024});
  afxdp::Socket first(umem, {.interface = veth.b(), .mode = afxdp::BindMode::skb});
  afxdp::Socket second(umem, {.interface = veth.b(), .mode = afxdp::BindMode::skb});
  EXPECT_NE(first.fd(), second.fd());
  EXPECT_EQ(&first.fill(), &umem.fill());
  EXPECT_EQ(&second.fill(), &umem.fill());
  EXPECT_EQ(&second.completion(), &umem.completion());

  afxdp::XskProgram program({.interface = veth.b(), .mode = afxdp::AttachMode::skb});
  ASSERT_EQ(afxdp::test::lend_frames(umem.fill(), {0, 1024ULL * frame_size}, frame_size), 1024U);
  afxdp::lab::PacketSocket peer(veth.a());
  const auto dst = afxdp::mac_address(veth.b());
  const auto src = afxdp::mac_address(veth.a());
  // The queue's frames go to whichever socket the program names; both draw on the shared fill.
  program.insert(0, second.fd());
  EXPECT_EQ(round_trip(peer, second, dst, src, 0, 100), "");
  program.insert(0, first.fd());
  EXPECT_EQ(round_trip(peer, first, dst, src, 100, 100), "");
}

}  // namespace
