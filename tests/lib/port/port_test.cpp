// Port::open on a real veth pair: what it refuses (one exception naming the interface, the queue
// and the field, nothing left attached, no fd left open), and a Port that works end to end.
#include "probes.hpp"
#include "system_test.hpp"

#include <afxdp/port.hpp>
#include <afxdp/xsk/interface.hpp>
#include <afxdp/xsk/xsk_program.hpp>
#include <lab.hpp>

#include <cerrno>
#include <dirent.h>

#include <chrono>
#include <stdexcept>
#include <string>
#include <system_error>
#include <vector>

namespace {

using afxdp::Port;
using afxdp::PortConfig;

std::size_t open_fds() {
  std::size_t n = 0;
  DIR* dir = ::opendir("/proc/self/fd");
  while (const dirent* entry = ::readdir(dir)) n += entry->d_name[0] != '.';
  ::closedir(dir);
  return n;
}

// The message Port::open throws, or "opened".
std::string refusal(const std::string& interface, const PortConfig& config) {
  try {
    Port port = Port::open(interface, config);
  } catch (const std::exception& e) {
    return e.what();
  }
  return "opened";
}

struct Refused {
  std::string what;
  std::string interface;
  PortConfig config;
  std::vector<std::string> words;  // each must be in the message
};

TEST(PortOpen, RefusesNamingInterfaceQueueAndFieldAndLeavesNothing) {
  AFXDP_REQUIRE_SYSTEM();
  afxdp::lab::VethPair veth(afxdp::lab::unique_prefix());
  const std::string& b = veth.b();
  const std::vector<Refused> cases = {
      {"missing interface", b + "x", {}, {b + "x", "does not exist"}},
      {"queue out of range", b, {.queues = {3}}, {b, "queue 3", "queues"}},
      {"ring size", b, {.ring_size = 1000}, {b, "power of two"}},
      {"frame size", b, {.frame_size = 3000}, {b, "frame_size"}},
      {"zero-copy on veth",
       b,
       {.bind = afxdp::BindMode::native_zero_copy},
       {b, "zero-copy", "queue 0"}},
      {"busy-poll budget",
       b,
       {.busy_poll = true, .busy_poll_budget = 65536},
       {b, "busy_poll_budget"}},
  };
  const std::size_t fds = open_fds();
  for (const Refused& c : cases) {
    SCOPED_TRACE(c.what);
    const std::string message = refusal(c.interface, c.config);
    for (const std::string& word : c.words) {
      EXPECT_NE(message.find(word), std::string::npos) << message;
    }
    EXPECT_EQ(afxdp::attached_xdp_program(afxdp::interface_index(b)), 0U);
    EXPECT_EQ(open_fds(), fds);
  }
}

// Issue 41 item 13: a queue another socket holds was refused as "bind(... queue 0): Device or
// resource busy", no cause given. It says who holds it, and stays EBUSY (Port::open retries that).
TEST(PortOpen, AQueueAnotherSocketHoldsIsRefusedSayingSo) {
  AFXDP_REQUIRE_SYSTEM();
  afxdp::lab::VethPair veth(afxdp::lab::unique_prefix());
  Port first = Port::open(veth.b(), {.frames_per_queue = 256, .ring_size = 128});
  try {
    Port second = Port::open(veth.b(), {.frames_per_queue = 256,
                                        .ring_size = 128,
                                        .receive = false,  // no second program: the bind
                                        .busy_retry = std::chrono::milliseconds(50)});
    ADD_FAILURE() << "a second socket bound the same queue";
  } catch (const std::system_error& e) {
    EXPECT_EQ(e.code().value(), EBUSY) << e.what();
    EXPECT_NE(std::string(e.what()).find("another AF_XDP socket, perhaps another process, is bound "
                                         "to " +
                                         veth.b() + " queue 0"),
              std::string::npos)
        << e.what();
  }
}

TEST(PortOpen, ReceivesOnEveryQueueAndReleasesEverything) {
  AFXDP_REQUIRE_SYSTEM();
  afxdp::lab::VethPair veth(afxdp::lab::unique_prefix(), 2);
  const std::size_t fds = open_fds();
  {
    Port port = Port::open(veth.b(), {.frames_per_queue = 256, .ring_size = 128});
    ASSERT_EQ(port.queues().size(), 2U);
    EXPECT_EQ(port.queue(1).id(), 1U);
    EXPECT_THROW(port.queue(2), std::out_of_range);
    EXPECT_NE(afxdp::attached_xdp_program(afxdp::interface_index(veth.b())), 0U);
    afxdp::lab::PacketSocket peer(veth.a());
    const auto frame =
        afxdp::lab::test_frame(1, 64, afxdp::mac_address(veth.b()), afxdp::mac_address(veth.a()));
    std::uint32_t received = 0;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    for (int sent = 0; received < 100 && std::chrono::steady_clock::now() < deadline;) {
      if (sent < 100 && peer.send(frame.data(), frame.size())) ++sent;
      for (afxdp::Queue& q : port.queues()) {
        q.receive([&](afxdp::Frames frames) {
          for (const afxdp::Frame& f : frames) received += f.size() == frame.size();
        });
      }
    }
    EXPECT_EQ(received, 100U);
    for (const afxdp::Queue& q : port.queues()) EXPECT_EQ(q.account().total(), q.frames());
  }
  EXPECT_EQ(afxdp::attached_xdp_program(afxdp::interface_index(veth.b())), 0U);
  EXPECT_EQ(open_fds(), fds);
}

// A timeout under a millisecond sleeps in poll() for it, not zero (a paced sender waits for
// its next turn, microseconds away, this way): nothing arrives, so wait() ends in one poll().
TEST(PortOpen, WaitSleepsInPollForLessThanAMillisecond) {
  AFXDP_REQUIRE_SYSTEM();
  afxdp::lab::VethPair veth(afxdp::lab::unique_prefix());
  Port port = Port::open(veth.b(), {.frames_per_queue = 256, .ring_size = 128});
  afxdp::Queue& q = port.queues()[0];
  bool slept = false;
  for (int attempt = 0; attempt < 10 && !slept; ++attempt) {
    q.receive([](afxdp::Frames) {});  // the peer's IPv6 chatter, if any, first
    const std::uint64_t polls = q.stats().polls;
    if (!q.wait(std::chrono::microseconds(300))) {
      slept = true;
      EXPECT_EQ(q.stats().polls, polls + 1);
    }
  }
  EXPECT_TRUE(slept);
  EXPECT_EQ(q.error(), 0);
}

// Busy polling adds one recvfrom() (which runs the driver's poll) before the window; it does not
// keep wait() from sleeping: nothing arrives, so the wait ends in one poll(). It used to return
// after the recvfrom() whatever the timeout, so that a one-core receiver never gave its CPU to
// the NAPI thread that had to deliver to it.
TEST(PortOpen, WaitWithBusyPollPollsTheDriverThenSleeps) {
  AFXDP_REQUIRE_SYSTEM();
  AFXDP_REQUIRE_FACILITY(afxdp::test::busy_poll());
  afxdp::lab::VethPair veth(afxdp::lab::unique_prefix());
  Port port = Port::open(veth.b(), {.frames_per_queue = 256, .ring_size = 128, .busy_poll = true});
  afxdp::Queue& q = port.queues()[0];
  bool slept = false;
  for (int attempt = 0; attempt < 10 && !slept; ++attempt) {
    q.receive([](afxdp::Frames) {});  // the peer's IPv6 chatter, if any, first
    const afxdp::QueueStats before = q.stats();
    if (!q.wait(std::chrono::microseconds(300))) {
      slept = true;
      const afxdp::QueueStats waited = q.stats() - before;
      EXPECT_EQ(waited.polls, 1U);
      EXPECT_EQ(waited.wakeups, 1U);
    }
  }
  EXPECT_TRUE(slept);
  EXPECT_EQ(q.error(), 0);
}

}  // namespace
