// A fill ring left (almost) empty on purpose: frames the kernel has nowhere to put are dropped,
// and the socket's statistics say so. Lending frames again brings reception back.
#include "system_test.hpp"
#include "xsk_fixture.hpp"

#include <afxdp/xsk/socket.hpp>
#include <afxdp/xsk/xsk_program.hpp>
#include <lab.hpp>

#include <chrono>
#include <poll.h>

namespace {

std::uint64_t starvation(const afxdp::XdpStatistics& s) {
  return s.rx_fill_ring_empty_descs + s.rx_dropped;
}

class FillStarvation : public ::testing::TestWithParam<afxdp::test::CopyMode> {};

TEST_P(FillStarvation, ShowsInStatistics) {
  AFXDP_REQUIRE_SYSTEM();
  constexpr std::uint32_t lent = 4;
  constexpr std::uint32_t count = 64;
  afxdp::lab::VethPair veth(afxdp::lab::unique_prefix());
  afxdp::Umem umem({.frame_count = 1024});
  afxdp::Socket socket(umem, {.interface = veth.b(), .mode = GetParam().bind});
  afxdp::XskProgram program({.interface = veth.b(), .mode = GetParam().attach});
  program.insert(0, socket.fd());
  ASSERT_EQ(afxdp::test::lend_frames(socket.fill(), {0, lent * 4096ULL}, 4096), lent);
  const afxdp::XdpStatistics before = socket.statistics();

  afxdp::lab::PacketSocket peer(veth.a());
  const auto dst = afxdp::mac_address(veth.b());
  const auto src = afxdp::mac_address(veth.a());
  for (std::uint32_t i = 0; i < count; ++i) {
    const auto frame = afxdp::test::frame_for(i, dst, src);
    ASSERT_TRUE(peer.send(frame.data(), frame.size()));
  }
  // Take what arrived without giving anything back; wait until the kernel has counted drops.
  std::uint32_t received = 0;
  afxdp::XdpStatistics after = socket.statistics();
  for (int i = 0; i < 100 && starvation(after) == starvation(before); ++i) {
    const std::uint32_t n = socket.rx().peek(64);
    socket.rx().release(n);
    received += n;
    if (n == 0) socket.poll(POLLIN, 20);
    after = socket.statistics();
  }
  const std::uint32_t late = socket.rx().peek(64);
  socket.rx().release(late);
  received += late;
  EXPECT_LE(received, lent);
  EXPECT_GT(starvation(after), starvation(before))
      << "rx_fill_ring_empty_descs " << before.rx_fill_ring_empty_descs << " -> "
      << after.rx_fill_ring_empty_descs << ", rx_dropped " << before.rx_dropped << " -> "
      << after.rx_dropped;

  // Lend frames again: the next frames all arrive.
  ASSERT_GT(afxdp::test::lend_frames(socket.fill(), {lent * 4096ULL, 512 * 4096ULL}, 4096), 0U);
  constexpr std::uint32_t again = 16;
  afxdp::test::Tally tally(count + again);
  for (std::uint32_t i = count; i < count + again; ++i) {
    const auto frame = afxdp::test::frame_for(i, dst, src);
    ASSERT_TRUE(peer.send(frame.data(), frame.size()));
  }
  afxdp::test::Receiver receiver(socket);
  afxdp::test::StallGuard guard(std::chrono::seconds(3));
  while (tally.unique() < again && !guard.stalled()) {
    if (receiver.drain(tally) == 0) socket.poll(POLLIN, 20);
  }
  EXPECT_EQ(tally.unique(), again) << tally.summary();
  EXPECT_TRUE(tally.clean()) << tally.summary();
}

INSTANTIATE_TEST_SUITE_P(Modes, FillStarvation,
                         ::testing::Values(afxdp::test::skb_mode, afxdp::test::native_mode),
                         afxdp::test::CopyModeName());

}  // namespace
