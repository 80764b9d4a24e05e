// 10,000 test frames sent from the peer end of a veth pair arrive on an AF_XDP socket, every one
// exactly once with every byte intact, in skb mode and in native (driver) copy mode. The sender
// keeps fewer than 256 frames in flight, so no ring can overflow and every loss is a bug.
#include "system_test.hpp"
#include "xsk_fixture.hpp"

#include <afxdp/xsk/socket.hpp>
#include <afxdp/xsk/xsk_program.hpp>
#include <lab.hpp>

#include <poll.h>

namespace {

class RxFrames : public ::testing::TestWithParam<afxdp::test::CopyMode> {};

TEST_P(RxFrames, TenThousandArriveIntactExactlyOnce) {
  AFXDP_REQUIRE_SYSTEM();
  constexpr std::uint32_t count = 10000;
  constexpr std::uint32_t in_flight = 256;
  afxdp::lab::VethPair veth(afxdp::lab::unique_prefix());
  afxdp::Umem umem({.frame_count = 4096});
  afxdp::Socket socket(umem, {.interface = veth.b(), .mode = GetParam().bind});
  afxdp::XskProgram program({.interface = veth.b(), .mode = GetParam().attach});
  program.insert(0, socket.fd());
  ASSERT_EQ(afxdp::test::lend_frames(socket.fill(), {0, 2048ULL * 4096}, 4096), 2048U);
  afxdp::test::Receiver receiver(socket);

  afxdp::lab::PacketSocket peer(veth.a());
  const auto dst = afxdp::mac_address(veth.b());
  const auto src = afxdp::mac_address(veth.a());
  afxdp::test::Tally tally(count);
  afxdp::test::StallGuard guard(std::chrono::seconds(5));
  std::uint32_t sent = 0;
  while (!tally.complete() && !guard.stalled()) {
    while (sent < count && sent - tally.unique() < in_flight) {
      const auto frame = afxdp::test::frame_for(sent, dst, src);
      if (!peer.send(frame.data(), frame.size())) break;  // ENOBUFS: drain, then try again
      ++sent;
    }
    if (receiver.drain(tally) != 0) {
      guard.progress();
    } else {
      if (socket.fill().needs_wakeup()) socket.wake_rx();
      socket.poll(POLLIN, 50);
    }
  }
  EXPECT_EQ(sent, count);
  EXPECT_TRUE(tally.complete()) << tally.summary();
  EXPECT_TRUE(tally.clean()) << tally.summary();
  const afxdp::XdpStatistics stats = socket.statistics();
  EXPECT_EQ(stats.rx_invalid_descs, 0U);
}

INSTANTIATE_TEST_SUITE_P(Modes, RxFrames,
                         ::testing::Values(afxdp::test::skb_mode, afxdp::test::native_mode),
                         afxdp::test::CopyModeName());

}  // namespace
