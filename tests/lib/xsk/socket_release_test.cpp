// A destroyed Socket releases its kernel socket, so the kernel deletes it from the XSKMAP and the
// queue falls back to the program's default action (here XDP_PASS: the stack and packet sockets
// see the frames) rather than redirecting into a socket nobody reads. The same holds for the
// first Socket of a Umem that outlives it, and after a constructor that failed.
#include "system_test.hpp"
#include "xsk_fixture.hpp"

#include <afxdp/xsk/socket.hpp>
#include <afxdp/xsk/umem.hpp>
#include <afxdp/xsk/xsk_program.hpp>
#include <lab.hpp>

#include <poll.h>

#include <chrono>
#include <memory>
#include <system_error>
#include <thread>

namespace {

// Does a test frame sent from a to b reach a packet socket on b (that is, pass XDP)? A few tries,
// each waiting a while, so a slow machine does not fail it.
bool frames_reach_the_stack(const afxdp::lab::VethPair& veth) {
  afxdp::lab::PacketSocket capture(veth.b());
  afxdp::lab::PacketSocket peer(veth.a());
  const auto dst = afxdp::mac_address(veth.b());
  const auto src = afxdp::mac_address(veth.a());
  std::vector<std::uint8_t> buffer;
  for (std::uint32_t sequence = 0; sequence < 20; ++sequence) {
    const auto frame = afxdp::test::frame_for(sequence, dst, src);
    if (!peer.send(frame.data(), frame.size())) continue;
    for (std::size_t n = capture.receive(buffer, 100); n != 0; n = capture.receive(buffer, 0)) {
      std::uint32_t seen = 0;
      if (afxdp::lab::check_test_frame(buffer.data(), n, seen)) return true;
    }
  }
  return false;
}

// Frames reach the socket while it lives; lends it every frame so that redirects succeed.
bool socket_receives(afxdp::Socket& socket, const afxdp::lab::VethPair& veth) {
  afxdp::lab::PacketSocket peer(veth.a());
  const auto dst = afxdp::mac_address(veth.b());
  const auto src = afxdp::mac_address(veth.a());
  for (std::uint32_t sequence = 0; sequence < 20; ++sequence) {
    const auto frame = afxdp::test::frame_for(sequence, dst, src);
    if (!peer.send(frame.data(), frame.size())) continue;
    if (socket.poll(POLLIN, 100) > 0 && socket.rx().peek(64) > 0) return true;
  }
  return false;
}

// A socket on (interface, queue 0), retried while the queue is taken: the kernel allows one buffer
// pool per queue (xp_assign_dev: EBUSY) and frees a closed socket's pool from a work queue, so a
// queue stays taken for a moment after its socket is gone. Null after two seconds of EBUSY.
std::unique_ptr<afxdp::Socket> bind_when_free(afxdp::Umem& umem, const std::string& interface,
                                              afxdp::BindMode mode) {
  for (int attempt = 0; attempt < 40; ++attempt) {
    try {
      return std::make_unique<afxdp::Socket>(
          umem, afxdp::SocketConfig{.interface = interface, .mode = mode});
    } catch (const std::system_error& e) {
      if (e.code().value() != EBUSY) throw;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return nullptr;
}

// Does a socket of a UMEM of its own bind to (interface, queue 0) within two seconds?
bool queue_becomes_free(const std::string& interface, afxdp::BindMode mode) {
  afxdp::Umem probe({.frame_count = 64, .fill_size = 64, .completion_size = 64});
  return bind_when_free(probe, interface, mode) != nullptr;
}

class SocketRelease : public ::testing::TestWithParam<afxdp::test::CopyMode> {};

TEST_P(SocketRelease, DestroyedFirstSocketLeavesTheQueueToTheFallback) {
  AFXDP_REQUIRE_SYSTEM();
  afxdp::lab::VethPair veth(afxdp::lab::unique_prefix());
  afxdp::Umem umem({.frame_count = 4096});
  afxdp::XskProgram program({.interface = veth.b(), .mode = GetParam().attach});
  {
    afxdp::Socket socket(umem, {.interface = veth.b(), .mode = GetParam().bind});
    program.insert(0, socket.fd());
    ASSERT_EQ(afxdp::test::lend_frames(socket.fill(), {0, 2048ULL * 4096}, 4096), 2048U);
    ASSERT_TRUE(socket_receives(socket, veth)) << "the socket never received: the test is void";
  }
  EXPECT_TRUE(queue_becomes_free(veth.b(), GetParam().bind));
  EXPECT_TRUE(frames_reach_the_stack(veth))
      << "frames to the destroyed socket's queue vanish instead of passing";
}

TEST_P(SocketRelease, UmemBindsAgainAfterItsFirstSocketIsGone) {
  AFXDP_REQUIRE_SYSTEM();
  afxdp::lab::VethPair veth(afxdp::lab::unique_prefix());
  afxdp::Umem umem({.frame_count = 4096});
  afxdp::XskProgram program({.interface = veth.b(), .mode = GetParam().attach});
  { afxdp::Socket first(umem, {.interface = veth.b(), .mode = GetParam().bind}); }
  const auto second = bind_when_free(umem, veth.b(), GetParam().bind);
  ASSERT_NE(second, nullptr) << "the queue stayed taken";
  EXPECT_EQ(second->fd(), umem.fd());  // the Umem's first socket again, not a sharer
  program.insert(0, second->fd());
  ASSERT_EQ(afxdp::test::lend_frames(second->fill(), {0, 2048ULL * 4096}, 4096), 2048U);
  EXPECT_TRUE(socket_receives(*second, veth));
}

// A socket sharing the first one's queue uses its fill and completion rings, so the first kernel
// socket lives until the last of them goes; then it is released too.
TEST_P(SocketRelease, SameQueueSharerKeepsTheFirstUntilItGoes) {
  AFXDP_REQUIRE_SYSTEM();
  afxdp::lab::VethPair veth(afxdp::lab::unique_prefix());
  afxdp::Umem umem({.frame_count = 4096});
  afxdp::XskProgram program({.interface = veth.b(), .mode = GetParam().attach});
  auto first = std::make_unique<afxdp::Socket>(
      umem, afxdp::SocketConfig{.interface = veth.b(), .mode = GetParam().bind});
  {
    afxdp::Socket sharer(umem, {.interface = veth.b(), .mode = GetParam().bind});
    first.reset();
    // The sharer still receives through the first one's fill ring.
    program.insert(0, sharer.fd());
    ASSERT_EQ(afxdp::test::lend_frames(sharer.fill(), {0, 2048ULL * 4096}, 4096), 2048U);
    EXPECT_TRUE(socket_receives(sharer, veth));
  }
  EXPECT_TRUE(queue_becomes_free(veth.b(), GetParam().bind));
}

// A busy-poll budget the kernel refuses (SO_BUSY_POLL_BUDGET takes at most 65535) used to throw
// after bind, leaving the Umem's socket bound to the queue.
TEST_P(SocketRelease, FailedConstructorLeavesNothingBound) {
  AFXDP_REQUIRE_SYSTEM();
  afxdp::lab::VethPair veth(afxdp::lab::unique_prefix());
  afxdp::Umem umem({.frame_count = 4096});
  afxdp::SocketConfig config{.interface = veth.b(), .mode = GetParam().bind};
  config.busy_poll = true;
  config.busy_poll_budget = 65536;
  EXPECT_ANY_THROW(afxdp::Socket(umem, config));
  EXPECT_TRUE(queue_becomes_free(veth.b(), GetParam().bind));
}

INSTANTIATE_TEST_SUITE_P(Modes, SocketRelease,
                         ::testing::Values(afxdp::test::skb_mode, afxdp::test::native_mode),
                         afxdp::test::CopyModeName());

}  // namespace
