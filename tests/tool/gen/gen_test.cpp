// `afxdp gen` on a real veth pair: with each engine it sends exactly the count asked for, its
// frames carry correct IPv4 and UDP checksums (checked here with independent arithmetic) and
// --rate spaces them; auto falls back from live frames where the kernel refuses them, saying so;
// bad input is one line on stderr with a non-zero exit.
#include "forked_child.hpp"
#include "probes.hpp"
#include "system_test.hpp"
#include "tool_test.hpp"

#include <afxdp/xsk/xsk_program.hpp>
#include <lab.hpp>

#include <poll.h>
#include <sched.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstring>
#include <ctime>
#include <string>
#include <thread>
#include <vector>

namespace {

using afxdp::test::interface_counter;
using afxdp::test::start_tool;

// The peer takes XDP-transmitted frames only with a native XDP program on it: the redirect
// program with no sockets applies its fallback to every frame.
afxdp::XskProgram verdict_program(const std::string& interface, afxdp::XdpAction action) {
  return afxdp::XskProgram(
      {.interface = interface, .mode = afxdp::AttachMode::native, .fallback = action});
}

std::uint32_t sum_words(const std::vector<std::uint8_t>& f, std::size_t from, std::size_t to) {
  std::uint32_t sum = 0;
  for (std::size_t i = from; i < to; i += 2) {
    sum += (std::uint32_t{f[i]} << 8) | (i + 1 < to ? f[i + 1] : 0U);
  }
  while (sum > 0xffff) sum = (sum & 0xffff) + (sum >> 16);
  return sum;
}

// An Ethernet frame carrying IPv4 and UDP, as gen sends (the kernel's own frames are not).
bool is_udp_over_ipv4(const std::vector<std::uint8_t>& f) {
  return f.size() >= 42 && f[12] == 0x08 && f[13] == 0x00 && f[23] == 17;
}

// The engine's tests run for each engine by name (whatever AFXDP_GEN_ENGINE says); live skips
// where the kernel refuses live frames, with the kernel's words.
class GenEngine : public testing::TestWithParam<const char*> {
 protected:
  void SetUp() override {
    AFXDP_REQUIRE_SYSTEM();
    if (std::string(GetParam()) == "live") AFXDP_REQUIRE_FACILITY(afxdp::test::live_frames());
  }
  // gen with this engine and `args`.
  static std::vector<std::string> gen(std::vector<std::string> args) {
    args.insert(args.begin(), {"gen", "--engine", GetParam()});
    return args;
  }
};

INSTANTIATE_TEST_SUITE_P(Engines, GenEngine, testing::Values("xsk", "live"),
                         [](const testing::TestParamInfo<const char*>& engine) {
                           return std::string(engine.param);
                         });

TEST_P(GenEngine, PeerReceivesExactlyTheCount) {
  afxdp::test::quiet_ipv6();
  afxdp::lab::VethPair veth(afxdp::lab::unique_prefix());
  const auto program = verdict_program(veth.b(), afxdp::XdpAction::drop);
  // veth counts a frame in the receiver's rx_packets once its XDP program has run on it.
  const std::uint64_t before = interface_counter(veth.b(), "rx_packets");
  auto gen = start_tool(GenEngine::gen({"-i", veth.a(), "-C", "100000", "--json"}));
  ASSERT_EQ(gen.wait(60000), 0) << gen.err();
  EXPECT_NE(gen.out().find("\"sent\":100000"), std::string::npos) << gen.out();
  EXPECT_NE(gen.out().find(std::string("\"engine\":\"") + GetParam() + "\""), std::string::npos)
      << gen.out();
  EXPECT_EQ(afxdp::test::wait_statistic(veth.b(), "rx_packets", before + 100000) - before, 100000U);
  // Nothing more trickles in afterwards: the count is exact, not a lower bound.
  EXPECT_EQ(interface_counter(veth.b(), "rx_packets") - before, 100000U);
}

TEST_P(GenEngine, FramesCarryCorrectChecksums) {
  afxdp::test::quiet_ipv6();
  afxdp::lab::VethPair veth(afxdp::lab::unique_prefix());
  const auto program = verdict_program(veth.b(), afxdp::XdpAction::pass);
  afxdp::lab::PacketSocket capture(veth.b());
  auto gen = start_tool(GenEngine::gen({"-i", veth.a(), "-C", "20", "--rate", "1000", "-s", "101",
                                        "--src-ip", "10.1.2.3", "--dst-ip", "10.4.5.6",
                                        "--src-port", "1234", "--dst-port", "5678"}));
  ASSERT_EQ(gen.wait(30000), 0) << gen.err();

  const auto mac_a = afxdp::mac_address(veth.a());
  const auto mac_b = afxdp::mac_address(veth.b());
  std::vector<std::uint8_t> f;
  int checked = 0;
  while (checked < 20 && capture.receive(f, 2000) > 0) {
    if (!is_udp_over_ipv4(f)) continue;  // not ours
    ASSERT_EQ(f.size(), 101U);
    EXPECT_TRUE(std::equal(mac_b.begin(), mac_b.end(), f.begin())) << "dst: the peer, default";
    EXPECT_TRUE(std::equal(mac_a.begin(), mac_a.end(), f.begin() + 6)) << "src";
    EXPECT_EQ(f[14], 0x45);
    EXPECT_EQ((f[16] << 8) | f[17], 87);
    EXPECT_EQ(std::vector<std::uint8_t>(f.begin() + 26, f.begin() + 34),
              (std::vector<std::uint8_t>{10, 1, 2, 3, 10, 4, 5, 6}));
    EXPECT_EQ(sum_words(f, 14, 34), 0xffffU) << "IPv4 header checksum";
    EXPECT_EQ((f[34] << 8) | f[35], 1234);
    EXPECT_EQ((f[36] << 8) | f[37], 5678);
    EXPECT_EQ((f[38] << 8) | f[39], 67);
    // UDP: pseudo-header (addresses, protocol, UDP length) plus the datagram folds to 0xffff.
    std::vector<std::uint8_t> pseudo(f.begin() + 26, f.begin() + 34);
    pseudo.insert(pseudo.end(), {0, 17, 0, 67});
    pseudo.insert(pseudo.end(), f.begin() + 34, f.end());
    EXPECT_EQ(sum_words(pseudo, 0, pseudo.size()), 0xffffU) << "UDP checksum";
    ++checked;
  }
  EXPECT_EQ(checked, 20);
}

// One frame from a socket with SO_TIMESTAMPNS on, and the kernel's receive time in seconds;
// false after 3 s without one.
bool receive_stamped(int fd, std::vector<std::uint8_t>& frame, double& stamp) {
  pollfd p{.fd = fd, .events = POLLIN, .revents = 0};
  if (poll(&p, 1, 3000) != 1) return false;
  frame.resize(2048);
  iovec data{.iov_base = frame.data(), .iov_len = frame.size()};
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(timespec))];
  msghdr message{};
  message.msg_iov = &data;
  message.msg_iovlen = 1;
  message.msg_control = control;
  message.msg_controllen = sizeof control;
  const ssize_t n = recvmsg(fd, &message, 0);
  if (n < 0) return false;
  frame.resize(static_cast<std::size_t>(n));
  for (cmsghdr* c = CMSG_FIRSTHDR(&message); c != nullptr; c = CMSG_NXTHDR(&message, c)) {
    if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_TIMESTAMPNS) {
      timespec ts{};
      std::memcpy(&ts, CMSG_DATA(c), sizeof ts);
      stamp = static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
      return true;
    }
  }
  return false;
}

// --rate spaces frames one by one (live: the program waits for each frame's slot; xsk: a frame
// goes to the tx ring when it is due), not in bursts between sleeps: with one frame per kernel
// batch, the receiver's timestamps are spread out.
TEST_P(GenEngine, RateSpacesEveryFrame) {
  afxdp::test::quiet_ipv6();
  afxdp::lab::VethPair veth(afxdp::lab::unique_prefix());
  const auto program = verdict_program(veth.b(), afxdp::XdpAction::pass);
  afxdp::lab::PacketSocket capture(veth.b());
  const int on = 1;
  ASSERT_EQ(setsockopt(capture.fd(), SOL_SOCKET, SO_TIMESTAMPNS, &on, sizeof on), 0);
  constexpr int frames = 200;
  constexpr double rate = 5000;  // 200 us apart
  auto gen = start_tool(GenEngine::gen({"-i", veth.a(), "-C", std::to_string(frames), "--rate",
                                        "5000", "--batch-size", "1", "--dst-port", "4242"}));

  std::vector<double> arrivals;  // seconds, the kernel's receive timestamps
  std::vector<std::uint8_t> f;
  double stamp = 0;
  while (arrivals.size() < frames && receive_stamped(capture.fd(), f, stamp)) {
    if (!is_udp_over_ipv4(f)) continue;  // not gen's
    if (((f[36] << 8) | f[37]) != 4242) continue;
    arrivals.push_back(stamp);
  }
  ASSERT_EQ(gen.wait(30000), 0) << gen.err();
  ASSERT_EQ(arrivals.size(), static_cast<std::size_t>(frames));
  std::vector<double> gaps;
  for (std::size_t i = 1; i < arrivals.size(); ++i) gaps.push_back(arrivals[i] - arrivals[i - 1]);
  std::sort(gaps.begin(), gaps.end());
  // The median gap, which a scheduling hiccup (a late frame, then a short catch-up) cannot move:
  // about 1 / rate when each frame is paced, microseconds when frames leave in bursts.
  EXPECT_GT(gaps[gaps.size() / 2], 0.5 / rate);
  EXPECT_GT(arrivals.back() - arrivals.front(), 0.5 * frames / rate);
}

// At a low rate each test run is one frame and gen sleeps between runs: the program no longer
// waits a whole interval (125 ms here) with bottom halves disabled. The bound is generous: a run
// costs up to 25 ms of the kernel's own set-up when a virtual machine is busy.
TEST(Gen, LowRateRunsStayShort) {
  AFXDP_REQUIRE_SYSTEM();
  AFXDP_REQUIRE_FACILITY(afxdp::test::live_frames());  // a test run's length: live's alone
  afxdp::test::quiet_ipv6();
  afxdp::lab::VethPair veth(afxdp::lab::unique_prefix());
  const auto program = verdict_program(veth.b(), afxdp::XdpAction::drop);
  const auto result = afxdp::test::run_tool(
      {"gen", "--engine", "live", "-i", veth.a(), "-C", "5", "--rate", "8", "--json"}, 30000);
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const std::string summary = afxdp::test::last_line_with(result.out, "\"summary\"");
  const double longest = afxdp::test::json_number(summary, "longest_run_ms");
  EXPECT_GE(longest, 0) << summary;
  EXPECT_LT(longest, 60) << summary;
  // Still paced: 5 frames at 8 per second take about half a second.
  EXPECT_GT(afxdp::test::json_number(summary, "duration_s"), 0.4) << summary;
}

// Interface names may hold quotes; the JSON lines stay JSON.
TEST(Gen, JsonEscapesTheInterfaceName) {
  AFXDP_REQUIRE_SYSTEM();
  afxdp::test::quiet_ipv6();
  afxdp::lab::VethPair veth("q\"" + std::to_string(::getpid() % 100000));
  const auto program = verdict_program(veth.b(), afxdp::XdpAction::drop);
  const auto result = afxdp::test::run_tool({"gen", "-i", veth.a(), "-C", "1000", "--json"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  std::string why;
  EXPECT_TRUE(afxdp::test::every_line_is_json(result.out, why)) << why << "\n" << result.out;
}

// gen reads the interface's counters (and its veth peer) through rtnetlink: in a namespace whose
// /sys was mounted by another (unshare -n without a remount), /sys/class/net shows the other's
// interfaces, and gen judged its peer as taking none of its frames. The child below enters a
// fresh namespace and makes the pair there; the exit code says how it went.
TEST(Gen, CountsInANamespaceWithoutItsOwnSysfs) {
  AFXDP_REQUIRE_SYSTEM();
  const auto end = afxdp::test::run_in_child([](const afxdp::test::ForkedChild::Pipe& pipe) {
    if (::unshare(CLONE_NEWNET) != 0) return pipe.say("E unshare") ? 2 : 3;
    afxdp::lab::VethPair veth(afxdp::lab::unique_prefix());
    const auto program = verdict_program(veth.b(), afxdp::XdpAction::drop);
    const auto result = afxdp::test::run_tool({"gen", "-i", veth.a(), "-C", "1000"});
    if (!pipe.say(result.err)) return 3;
    return result.exit_code == 0 ? 0 : 1;
  });
  ASSERT_TRUE(WIFEXITED(end.status)) << end.said;
  EXPECT_EQ(WEXITSTATUS(end.status), 0) << end.said;
}

// Live frames reach a veth peer only through its NAPI (an XDP program or GRO on it); AF_XDP's go
// through its ordinary receive path. So only live can be refused by the peer, and says so.
TEST(Gen, LiveSaysWhenTheVethPeerCannotReceive) {
  AFXDP_REQUIRE_SYSTEM();
  AFXDP_REQUIRE_FACILITY(afxdp::test::live_frames());
  afxdp::lab::VethPair veth(afxdp::lab::unique_prefix());
  auto gen = start_tool({"gen", "--engine", "live", "-i", veth.a(), "-C", "1000"});
  EXPECT_NE(gen.wait(30000), 0);
  EXPECT_NE(afxdp::test::lines_of(gen.err()).at(0).find("XDP program"), std::string::npos)
      << gen.err();
}

TEST(Gen, XskNeedsNothingOnTheVethPeer) {
  AFXDP_REQUIRE_SYSTEM();
  afxdp::test::quiet_ipv6();
  afxdp::lab::VethPair veth(afxdp::lab::unique_prefix());
  const std::uint64_t before = interface_counter(veth.b(), "rx_packets");
  const auto result =
      afxdp::test::run_tool({"gen", "--engine", "xsk", "-i", veth.a(), "-C", "1000"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(afxdp::test::wait_statistic(veth.b(), "rx_packets", before + 1000) - before, 1000U);
}

// auto on a kernel that refuses live frames (refuse-test-run plays one): one line naming the
// refusal and the engine used, and every frame through AF_XDP, exactly the count.
TEST(Gen, AutoFallsBackFromRefusedLiveFramesSayingSo) {
  AFXDP_REQUIRE_SYSTEM();
  afxdp::test::quiet_ipv6();
  afxdp::lab::VethPair veth(afxdp::lab::unique_prefix());
  const auto program = verdict_program(veth.b(), afxdp::XdpAction::drop);
  const std::uint64_t before = interface_counter(veth.b(), "rx_packets");
  const auto result = afxdp::test::run_tool(
      {"gen", "--engine", "auto", "-i", veth.a(), "-C", "1000", "--json", "-Q"}, 60000,
      afxdp::test::refuse_test_run());
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const std::string summary = afxdp::test::last_line_with(result.out, "\"summary\"");
  EXPECT_NE(summary.find("\"sent\":1000,"), std::string::npos) << summary;
  EXPECT_NE(summary.find("\"engine\":\"xsk\""), std::string::npos) << summary;
  EXPECT_EQ(afxdp::test::wait_statistic(veth.b(), "rx_packets", before + 1000) - before, 1000U);
  const auto lines = afxdp::test::lines_of(result.err);
  ASSERT_EQ(lines.size(), 1U) << result.err;
  EXPECT_NE(lines[0].find("XDP live frames"), std::string::npos) << lines[0];
  EXPECT_NE(lines[0].find("Operation not permitted"), std::string::npos) << lines[0];
  EXPECT_NE(lines[0].find("--engine xsk"), std::string::npos) << lines[0];
}

// SIGTERM ends a run without -C or -d at once, with the summary and exit 0, whichever engine.
TEST_P(GenEngine, SigtermEndsTheRunWithItsSummary) {
  afxdp::test::quiet_ipv6();
  afxdp::lab::VethPair veth(afxdp::lab::unique_prefix());
  const auto program = verdict_program(veth.b(), afxdp::XdpAction::drop);
  auto gen = start_tool(GenEngine::gen({"-i", veth.a(), "--json"}));
  std::this_thread::sleep_for(std::chrono::milliseconds(700));
  gen.signal(SIGTERM);
  EXPECT_EQ(gen.wait(10000), 0) << gen.err();
  EXPECT_LT(gen.waited(), std::chrono::seconds(5));
  EXPECT_NE(afxdp::test::last_line_with(gen.out(), "\"summary\""), "") << gen.out();
}

// auto where the kernel runs live frames but the veth peer takes none (no XDP program, no GRO
// on it): one line saying so, then every frame through AF_XDP, exactly the count.
TEST(Gen, AutoFallsBackWhenTheVethPeerTakesNoXdpFrames) {
  AFXDP_REQUIRE_SYSTEM();
  AFXDP_REQUIRE_FACILITY(afxdp::test::live_frames());
  afxdp::test::quiet_ipv6();
  afxdp::lab::VethPair veth(afxdp::lab::unique_prefix());
  const std::uint64_t before = interface_counter(veth.b(), "rx_packets");
  const auto result = afxdp::test::run_tool(
      {"gen", "--engine", "auto", "-i", veth.a(), "-C", "1000", "--json", "-Q"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const std::string summary = afxdp::test::last_line_with(result.out, "\"summary\"");
  EXPECT_NE(summary.find("\"engine\":\"xsk\""), std::string::npos) << summary;
  EXPECT_NE(summary.find("\"sent\":1000,"), std::string::npos) << summary;
  const auto lines = afxdp::test::lines_of(result.err);
  ASSERT_EQ(lines.size(), 1U) << result.err;
  EXPECT_NE(lines[0].find("transmitted none"), std::string::npos) << lines[0];
  EXPECT_NE(lines[0].find("--engine xsk"), std::string::npos) << lines[0];
  EXPECT_EQ(afxdp::test::wait_statistic(veth.b(), "rx_packets", before + 1000) - before, 1000U);
}

// auto where the kernel runs live frames: live, and nothing on stderr.
TEST(Gen, AutoUsesLiveFramesWhereTheKernelRunsThem) {
  AFXDP_REQUIRE_SYSTEM();
  AFXDP_REQUIRE_FACILITY(afxdp::test::live_frames());
  afxdp::test::quiet_ipv6();
  afxdp::lab::VethPair veth(afxdp::lab::unique_prefix());
  const auto program = verdict_program(veth.b(), afxdp::XdpAction::drop);
  const auto result = afxdp::test::run_tool(
      {"gen", "--engine", "auto", "-i", veth.a(), "-C", "1000", "--json", "-Q"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const std::string summary = afxdp::test::last_line_with(result.out, "\"summary\"");
  EXPECT_NE(summary.find("\"engine\":\"live\""), std::string::npos) << summary;
  EXPECT_EQ(result.err, "");
}

// --engine live where the kernel refuses live frames: the refusal in one line, exit 1.
TEST(Gen, LiveRefusedIsOneLineAndExit1) {
  AFXDP_REQUIRE_SYSTEM();
  afxdp::lab::VethPair veth(afxdp::lab::unique_prefix());
  const auto result = afxdp::test::run_tool({"gen", "--engine", "live", "-i", veth.a(), "-C", "10"},
                                            60000, afxdp::test::refuse_test_run());
  EXPECT_EQ(result.exit_code, 1);
  const auto lines = afxdp::test::lines_of(result.err);
  ASSERT_EQ(lines.size(), 1U) << result.err;
  EXPECT_NE(lines[0].find("XDP live frames"), std::string::npos) << lines[0];
  EXPECT_NE(lines[0].find("Operation not permitted"), std::string::npos) << lines[0];
}

TEST(Gen, BadInputIsOneLineAndAFailure) {
  AFXDP_REQUIRE_SYSTEM();
  afxdp::lab::VethPair veth(afxdp::lab::unique_prefix());
  const std::vector<std::vector<std::string>> cases = {
      {"gen"},
      {"gen", "-i", "nosuchif0"},
      {"gen", "-i", veth.a(), "-G", "02:00:00:00:00"},
      {"gen", "-i", veth.a(), "-H", "xx:00:00:00:00:01"},
      {"gen", "-i", veth.a(), "-s", "20"},
      {"gen", "-i", veth.a(), "-s", "9000"},
      {"gen", "-i", veth.a(), "-s", "2000"},  // over the MTU of 1500
      {"gen", "-i", veth.a(), "--engine", "pktgen"},
      {"gen", "-i", veth.a(), "--engine", "xsk", "-q", "1"},  // the pair has one queue
  };
  for (const auto& args : cases) {
    auto gen = start_tool(args);
    const int code = gen.wait(30000);
    EXPECT_NE(code, 0) << args.back();
    EXPECT_EQ(afxdp::test::lines_of(gen.err()).size(), 1U) << args.back() << ": " << gen.err();
  }
}

}  // namespace
