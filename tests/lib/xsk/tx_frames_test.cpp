// 10,000 test frames written into UMEM frames and sent on an AF_XDP socket's tx ring arrive at
// the peer end intact, exactly once each, and every frame address comes back on the completion
// ring exactly as it was sent. Copy mode sends only when kicked, so every batch is woken.
#include "system_test.hpp"
#include "xsk_fixture.hpp"

#include <afxdp/rings/frame_pool.hpp>
#include <afxdp/xsk/socket.hpp>
#include <lab.hpp>

#include <cstring>

namespace {

TEST(TxFrames, TenThousandArriveAndEveryAddressCompletes) {
  AFXDP_REQUIRE_SYSTEM();
  constexpr std::uint32_t count = 10000;
  constexpr std::uint32_t in_flight = 128;  // inside the peer's socket buffer
  constexpr std::uint32_t frame_size = 4096;
  constexpr std::uint32_t frames = 1024;
  afxdp::lab::VethPair veth(afxdp::lab::unique_prefix());
  afxdp::Umem umem({.frame_count = frames});
  afxdp::Socket socket(
      umem, {.interface = veth.b(), .mode = afxdp::BindMode::skb, .rx_size = 0, .tx_size = 512});
  afxdp::lab::PacketSocket peer(veth.a());
  const auto dst = afxdp::mac_address(veth.a());
  const auto src = afxdp::mac_address(veth.b());

  afxdp::FramePool pool(frames, frame_size);
  std::vector<std::uint8_t> outstanding(frames, 0);  // per frame: sent, not yet completed
  std::uint32_t sent = 0, completed = 0, foreign_completions = 0;
  afxdp::test::Tally tally(count);
  std::vector<std::uint8_t> buffer;
  afxdp::test::StallGuard guard(std::chrono::seconds(5));
  afxdp::TxRing& tx = socket.tx();
  afxdp::CompletionRing& completion = socket.completion();

  while ((!tally.complete() || completed < sent) && !guard.stalled()) {
    // Queue a batch while the peer keeps up.
    std::uint32_t batch = 0;
    while (sent + batch < count && sent + batch - tally.unique() < in_flight && batch < 32 &&
           pool.available() > 0 && tx.reserve(1) == 1) {
      const std::uint64_t addr = pool.take();
      const auto frame = afxdp::test::frame_for(sent + batch, dst, src);
      std::memcpy(umem.data(addr), frame.data(), frame.size());
      tx.at(0) = xdp_desc{addr, static_cast<std::uint32_t>(frame.size()), 0};
      tx.submit(1);
      outstanding[addr / frame_size] = 1;
      ++batch;
    }
    sent += batch;
    // Copy mode transmits only inside sendto(): kick whenever anything waits on the ring.
    if (tx.outstanding() != 0 || tx.needs_wakeup()) {
      const afxdp::WakeStatus status = socket.wake_tx();
      ASSERT_TRUE(status.transient()) << "sendto: " << std::strerror(status.error);
    }
    // Every completed address must be one we sent and have not seen complete yet.
    const std::uint32_t done = completion.peek(64);
    for (std::uint32_t i = 0; i < done; ++i) {
      const std::uint64_t addr = completion.at(i);
      if (addr % frame_size != 0 || addr / frame_size >= frames ||
          !outstanding[addr / frame_size]) {
        ++foreign_completions;
        continue;
      }
      outstanding[addr / frame_size] = 0;
      pool.give(addr);
      ++completed;
    }
    completion.release(done);
    // The peer side: drain what arrived, waiting a little only when nothing else moved.
    const std::uint32_t before = tally.unique();
    const int wait_ms = (batch == 0 && done == 0) ? 20 : 0;
    for (std::size_t n = peer.receive(buffer, wait_ms); n != 0; n = peer.receive(buffer, 0)) {
      tally.add(buffer.data(), n);
    }
    if (batch != 0 || done != 0 || tally.unique() != before) guard.progress();
  }
  EXPECT_EQ(sent, count);
  EXPECT_TRUE(tally.complete()) << tally.summary();
  EXPECT_TRUE(tally.clean()) << tally.summary();
  EXPECT_EQ(completed, count);
  EXPECT_EQ(foreign_completions, 0U);
  EXPECT_EQ(socket.statistics().tx_invalid_descs, 0U);
}

}  // namespace
