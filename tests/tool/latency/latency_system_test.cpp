// `afxdp latency` on a veth pair in the test's private namespace: through `afxdp l2fwd` (every
// wait mode) and through `afxdp udp-echo` (the UDP baseline, the echo in a namespace of its own),
// every probe is counted exactly at a low rate; a reflector that answers nothing, or stops
// answering, ends the run with one line and a non-zero exit, within its timeout. Percentiles are
// checked for presence and order only: speed belongs in benchmarks.
#include "probes.hpp"
#include "system_test.hpp"
#include "tool_test.hpp"

#include <afxdp/xsk/interface.hpp>
#include <afxdp/xsk/xsk_program.hpp>
#include <lab.hpp>

#include <arpa/inet.h>
#include <array>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <optional>
#include <poll.h>
#include <sys/socket.h>
#include <thread>
#include <unistd.h>

namespace {

using afxdp::test::Child;
using afxdp::test::json_number;
using afxdp::test::last_line_with;
using afxdp::test::lines_of;
using afxdp::test::run_tool;
using afxdp::test::start_tool;
using afxdp::test::ToolResult;
using afxdp::test::wait_for;

constexpr int probes = 500;

// The one JSON line of a run: counts exact, percentiles present and ordered, histogram whole.
void expect_every_probe_counted(const ToolResult& r, const std::string& label) {
  ASSERT_EQ(r.exit_code, 0) << label << ": " << r.err;
  std::string why;
  EXPECT_TRUE(afxdp::test::every_line_is_json(r.out, why)) << label << ": " << why << r.out;
  const std::string line = last_line_with(r.out, "\"latency\":true");
  ASSERT_FALSE(line.empty()) << label << ": " << r.out;
  EXPECT_EQ(json_number(line, "sent"), probes) << label;
  EXPECT_EQ(json_number(line, "received"), probes) << label;
  EXPECT_EQ(json_number(line, "lost"), 0) << label;
  EXPECT_EQ(json_number(line, "duplicates"), 0) << label;
  double previous = 0;
  for (const char* key : {"min_us", "p50_us", "p90_us", "p99_us", "p99_9_us", "max_us"}) {
    const double value = json_number(line, key);
    EXPECT_GT(value, 0) << label << " " << key << ": " << line;
    EXPECT_GE(value, previous) << label << " " << key << ": " << line;
    previous = value;
  }
  double counted = 0;
  for (std::size_t at = line.find("\"count\":"); at != std::string::npos;
       at = line.find("\"count\":", at + 1)) {
    counted += json_number(line.substr(at), "count");
  }
  EXPECT_EQ(counted, probes) << label << ": " << line;
}

std::vector<std::string> latency_args(const std::string& interface, const std::string& wait) {
  return {"latency", "-i", interface, "--rate", "1000", "-C", std::to_string(probes),
          "--wait",  wait, "--json"};
}

// One wait mode at both ends: l2fwd reflects, latency counts every probe once.
void every_probe_counted_through_l2fwd(const afxdp::lab::VethPair& veth, const std::string& wait) {
  std::vector<std::string> reflector_args{"l2fwd", "-i", veth.b(), "--json", "-n", "0.2"};
  if (wait == "poll") reflector_args.push_back("-p");
  if (wait == "busy-poll") reflector_args.push_back("-B");
  Child l2fwd = start_tool(reflector_args);
  afxdp::test::wait_until_running(l2fwd);
  expect_every_probe_counted(run_tool(latency_args(veth.a(), wait), 60000), wait);
  l2fwd.terminate();
  EXPECT_EQ(wait_for(l2fwd, 30000).exit_code, 0) << wait;
}

TEST(Latency, ThroughL2fwdEveryProbeCountedSpinningAndPolling) {
  AFXDP_REQUIRE_SYSTEM();
  afxdp::test::quiet_ipv6();
  afxdp::lab::VethPair veth(afxdp::lab::unique_prefix());
  for (const std::string wait : {"spin", "poll"}) every_probe_counted_through_l2fwd(veth, wait);
  EXPECT_EQ(afxdp::attached_xdp_program(afxdp::interface_index(veth.a())), 0U);
}

TEST(Latency, ThroughL2fwdEveryProbeCountedBusyPolling) {
  AFXDP_REQUIRE_SYSTEM();
  AFXDP_REQUIRE_FACILITY(afxdp::test::busy_poll());
  afxdp::test::quiet_ipv6();
  afxdp::lab::VethPair veth(afxdp::lab::unique_prefix());
  every_probe_counted_through_l2fwd(veth, "busy-poll");
  EXPECT_EQ(afxdp::attached_xdp_program(afxdp::interface_index(veth.a())), 0U);
}

// PortConfig::spin_before_sleep at both ends (l2fwd's and latency's --spin-before-sleep):
// Queue::wait spins, then sleeps in poll(); every probe still counted once.
TEST(Latency, SpinBeforeSleepAtBothEndsCountsEveryProbe) {
  AFXDP_REQUIRE_SYSTEM();
  afxdp::test::quiet_ipv6();
  afxdp::lab::VethPair veth(afxdp::lab::unique_prefix());
  Child l2fwd = start_tool(
      {"l2fwd", "-i", veth.b(), "-p", "--spin-before-sleep", "50", "--json", "-n", "0.2"});
  afxdp::test::wait_until_running(l2fwd);
  std::vector<std::string> args = latency_args(veth.a(), "poll");
  args.insert(args.end(), {"--spin-before-sleep", "50"});
  expect_every_probe_counted(run_tool(args, 60000), "spin before sleep");
  l2fwd.terminate();
  EXPECT_EQ(wait_for(l2fwd, 30000).exit_code, 0);
}

TEST(Latency, TextReportHasPercentilesAndAHistogram) {
  AFXDP_REQUIRE_SYSTEM();
  afxdp::test::quiet_ipv6();
  afxdp::lab::VethPair veth(afxdp::lab::unique_prefix());
  Child l2fwd = start_tool({"l2fwd", "-i", veth.b(), "--json", "-n", "0.2"});
  afxdp::test::wait_until_running(l2fwd);
  const ToolResult r = run_tool({"latency", "-i", veth.a(), "--rate", "1000", "-C", "200"}, 60000);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("sent 200, received 200, lost 0"), std::string::npos) << r.out;
  const std::string line = last_line_with(r.out, "round trip (us):");
  for (const char* part : {"min ", "p50 ", "p90 ", "p99 ", "p99.9 ", "max "}) {
    EXPECT_NE(line.find(part), std::string::npos) << part << " in " << line;
  }
  // The histogram's rows ("  FROM - TO  COUNT ###") add up to the probes received.
  std::uint64_t counted = 0;
  bool inside = false;
  for (const std::string& row : lines_of(r.out)) {
    if (inside) {
      char from[32], to[32];
      unsigned long long count = 0;
      ASSERT_EQ(std::sscanf(row.c_str(), " %31s - %31s %llu", from, to, &count), 3) << row;
      counted += count;
    }
    inside = inside || row == "histogram (us)";
  }
  EXPECT_EQ(counted, 200U) << r.out;
  EXPECT_EQ(r.err, "");
  l2fwd.terminate();
  wait_for(l2fwd, 30000);
}

TEST(Latency, NoReflectorIsOneLineWithinTheTimeout) {
  AFXDP_REQUIRE_SYSTEM();
  afxdp::lab::VethPair veth(afxdp::lab::unique_prefix());
  // 100 s of probes asked for: only the timeout can end this run within the test's 30 s.
  const ToolResult r = run_tool(
      {"latency", "-i", veth.a(), "--rate", "1000", "-C", "100000", "--timeout", "0.5", "--json"},
      30000);
  EXPECT_TRUE(r.exit_code > 0 && r.exit_code < 128) << "exit " << r.exit_code << ": " << r.err;
  EXPECT_EQ(lines_of(r.err).size(), 1U) << r.err;
  EXPECT_NE(r.err.find("no reply from the reflector on " + veth.a() + " within 0.5 s"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(afxdp::attached_xdp_program(afxdp::interface_index(veth.a())), 0U);
}

TEST(Latency, AReflectorThatStopsAnsweringIsReportedAsLoss) {
  AFXDP_REQUIRE_SYSTEM();
  afxdp::test::quiet_ipv6();
  afxdp::lab::VethPair veth(afxdp::lab::unique_prefix());
  // l2fwd ends after 100 frames: the rest of the probes are lost.
  Child l2fwd = start_tool({"l2fwd", "-i", veth.b(), "-C", "100", "--json", "-n", "0.2"});
  afxdp::test::wait_until_running(l2fwd);
  const ToolResult r = run_tool(
      {"latency", "-i", veth.a(), "--rate", "1000", "-C", "400", "--timeout", "0.5", "--json"},
      30000);
  EXPECT_EQ(wait_for(l2fwd, 30000).exit_code, 0);
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_EQ(lines_of(r.err).size(), 1U) << r.err;
  EXPECT_NE(r.err.find("lost 300 of 400 probes"), std::string::npos) << r.err;
  // The report still comes, with the loss in it.
  const std::string line = last_line_with(r.out, "\"latency\":true");
  EXPECT_EQ(json_number(line, "received"), 100) << r.out;
  EXPECT_EQ(json_number(line, "lost"), 300) << r.out;
}

// Issue 27 item 16: with the link gone after the first echoes, latency spun on (a 6 s run still
// at ~70 % CPU after 23 s). It stops once no probe could be sent for --timeout, with one line.
TEST(Latency, ALinkThatGoesAwayEndsTheRunWithOneLine) {
  AFXDP_REQUIRE_SYSTEM();
  afxdp::test::quiet_ipv6();
  std::optional<afxdp::lab::VethPair> veth(afxdp::lab::unique_prefix());
  Child l2fwd = start_tool({"l2fwd", "-i", veth->b(), "--json", "-n", "0.2"});
  afxdp::test::wait_until_running(l2fwd);
  Child latency =
      start_tool({"latency", "-i", veth->a(), "--rate", "1000", "-C", "6000", "--timeout", "0.5"});
  std::this_thread::sleep_for(std::chrono::seconds(1));
  veth.reset();  // deletes the pair under both tools
  const ToolResult r = wait_for(latency, 5000);
  EXPECT_NE(r.exit_code, 137) << "still running 5 s after the link went away";
  EXPECT_NE(r.exit_code, 0) << r.err;
  EXPECT_EQ(lines_of(r.err).size(), 1U) << r.err;
  EXPECT_NE(r.err.find("is gone"), std::string::npos) << r.err;
  (void)wait_for(l2fwd, 5000);
}

TEST(Latency, WithoutPrivilegeNamesTheCapabilityBeforeTouchingAnything) {
  AFXDP_REQUIRE_SYSTEM();
  if (::access("/usr/bin/setpriv", X_OK) != 0) GTEST_SKIP() << "needs setpriv (util-linux)";
  afxdp::lab::VethPair veth(afxdp::lab::unique_prefix());
  Child tool = start_tool({"latency", "-i", veth.a(), "-C", "10"},
                          {"setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"});
  const ToolResult r = wait_for(tool, 30000);
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_EQ(lines_of(r.err).size(), 1U) << r.err;
  EXPECT_NE(r.err.find("latency needs CAP_NET_ADMIN"), std::string::npos) << r.err;
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(afxdp::attached_xdp_program(afxdp::interface_index(veth.a())), 0U);
}

// Waits (bounded) until /proc/PID/ns/net is another namespace than ours.
bool in_other_namespace(pid_t pid) {
  char own[64] = {}, theirs[64] = {};
  if (::readlink("/proc/self/ns/net", own, sizeof own - 1) < 0) return false;
  const std::string path = "/proc/" + std::to_string(pid) + "/ns/net";
  for (int waited = 0; waited < 10000; waited += 10) {
    std::fill(std::begin(theirs), std::end(theirs), '\0');
    if (::readlink(path.c_str(), theirs, sizeof theirs - 1) > 0 && std::string(own) != theirs) {
      return true;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return false;
}

// A datagram to `to` comes back (bounded): the echo is listening.
bool echoes(const std::string& address, int port) {
  const int fd = ::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  sockaddr_in to{};
  to.sin_family = AF_INET;
  to.sin_port = htons(static_cast<std::uint16_t>(port));
  ::inet_pton(AF_INET, address.c_str(), &to.sin_addr);
  bool answered = false;
  for (int tries = 0; tries < 100 && !answered; ++tries) {
    const char hello[] = "hello";
    ::sendto(fd, hello, sizeof hello, 0, reinterpret_cast<sockaddr*>(&to), sizeof to);
    pollfd p{fd, POLLIN, 0};
    char back[16];
    answered = ::poll(&p, 1, 100) == 1 && ::recv(fd, back, sizeof back, 0) == sizeof hello;
  }
  ::close(fd);
  return answered;
}

TEST(Latency, ThroughUdpEchoEveryProbeCounted) {
  AFXDP_REQUIRE_SYSTEM();
  afxdp::test::quiet_ipv6();
  afxdp::lab::VethPair veth(afxdp::lab::unique_prefix());
  // The echo in a namespace of its own, holding veth end b: through our namespace's IPv4 stack,
  // a datagram to an address of ours would never leave through the veth.
  Child echo = start_tool({"udp-echo", "--listen", "0.0.0.0:7007"}, {"unshare", "-n"});
  ASSERT_TRUE(in_other_namespace(echo.pid())) << echo.err();
  const std::string pid = std::to_string(echo.pid());
  afxdp::lab::run({"ip", "link", "set", veth.b(), "netns", pid});
  afxdp::lab::run(
      {"nsenter", "-t", pid, "-n", "ip", "addr", "add", "10.201.0.2/24", "dev", veth.b()});
  afxdp::lab::run({"nsenter", "-t", pid, "-n", "ip", "link", "set", veth.b(), "up"});
  afxdp::lab::run({"ip", "addr", "add", "10.201.0.1/24", "dev", veth.a()});
  ASSERT_TRUE(echoes("10.201.0.2", 7007));

  for (const std::string wait : {"spin", "poll"}) {
    expect_every_probe_counted(run_tool({"latency", "--udp", "10.201.0.2:7007", "--rate", "1000",
                                         "-C", std::to_string(probes), "--wait", wait, "--json"},
                                        60000),
                               "udp " + wait);
  }
  // Nothing listens on another port: ICMP port unreachable, then the one line.
  const ToolResult none =
      run_tool({"latency", "--udp", "10.201.0.2:7008", "--timeout", "0.3"}, 30000);
  EXPECT_EQ(none.exit_code, 1) << none.err;
  EXPECT_NE(none.err.find("no reply from the reflector at 10.201.0.2:7008 within 0.3 s"),
            std::string::npos)
      << none.err;
  EXPECT_EQ(none.out, "");

  echo.terminate();
  const ToolResult stopped = wait_for(echo, 30000);
  EXPECT_EQ(stopped.exit_code, 0) << stopped.err;
  EXPECT_NE(stopped.err.find("udp-echo: "), std::string::npos) << stopped.err;
}

// What a udp-echo said it echoed ("udp-echo: N datagrams echoed on ..."), or -1.
long long echoed_count(const std::string& err) {
  const std::size_t at = err.find("udp-echo: ");
  long long n = -1;
  if (at == std::string::npos || std::sscanf(err.c_str() + at, "udp-echo: %lld", &n) != 1) {
    return -1;
  }
  return n;
}

// One UDP datagram from `source` to `destination` (host order), both port `port`, through a raw
// socket: the source is whatever the test says, as a spoofer's would be.
void send_spoofed(std::uint32_t source, std::uint32_t destination, std::uint16_t port) {
  const int fd = ::socket(AF_INET, SOCK_RAW | SOCK_CLOEXEC, IPPROTO_RAW);  // IP_HDRINCL
  ASSERT_GE(fd, 0) << std::strerror(errno);
  std::array<unsigned char, 32> p{};
  const auto put16 = [&](std::size_t at, unsigned v) {
    p[at] = static_cast<unsigned char>(v >> 8);
    p[at + 1] = static_cast<unsigned char>(v);
  };
  const auto put32 = [&](std::size_t at, std::uint32_t v) {
    put16(at, v >> 16);
    put16(at + 2, v & 0xffffU);
  };
  p[0] = 0x45;
  put16(2, p.size());
  p[8] = 64;
  p[9] = IPPROTO_UDP;  // checksum and id: the kernel's
  put32(12, source);
  put32(16, destination);
  put16(20, port);
  put16(22, port);
  put16(24, 12);
  std::memcpy(&p[28], "loop", 4);  // UDP checksum 0: none
  sockaddr_in to{};
  to.sin_family = AF_INET;
  to.sin_addr.s_addr = htonl(destination);
  ASSERT_EQ(::sendto(fd, p.data(), p.size(), 0, reinterpret_cast<sockaddr*>(&to), sizeof to),
            static_cast<ssize_t>(p.size()))
      << std::strerror(errno);
  ::close(fd);
}

// Issue 41 item 12: two reflectors, one spoofed datagram from the one to the other, and they
// answered each other for as long as they ran (94,936 echoes in 2 s). The per-source rate empties
// a bucket, one echo is not sent, and the exchange ends: a bounded number of echoes, then silence.
TEST(UdpEcho, TwoReflectorsAndOneSpoofedDatagramStop) {
  AFXDP_REQUIRE_SYSTEM();
  afxdp::test::quiet_ipv6();
  afxdp::lab::VethPair veth(afxdp::lab::unique_prefix());
  Child far = start_tool({"udp-echo", "--listen", "0.0.0.0:7007"}, {"unshare", "-n"});
  ASSERT_TRUE(in_other_namespace(far.pid())) << far.err();
  const std::string pid = std::to_string(far.pid());
  afxdp::lab::run({"ip", "link", "set", veth.b(), "netns", pid});
  afxdp::lab::run(
      {"nsenter", "-t", pid, "-n", "ip", "addr", "add", "10.202.0.2/24", "dev", veth.b()});
  afxdp::lab::run({"nsenter", "-t", pid, "-n", "ip", "link", "set", veth.b(), "up"});
  afxdp::lab::run({"ip", "addr", "add", "10.202.0.1/24", "dev", veth.a()});
  ASSERT_TRUE(echoes("10.202.0.2", 7007));  // ARP both ways resolved, the far one listening
  Child near = start_tool({"udp-echo", "--listen", "10.202.0.1:7007"});
  std::this_thread::sleep_for(std::chrono::milliseconds(300));  // bound
  ASSERT_FALSE(near.exited(0)) << near.err();

  send_spoofed(0x0aca0001U, 0x0aca0002U, 7007);  // 10.202.0.1:7007 -> 10.202.0.2:7007
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  const std::uint64_t before = afxdp::test::interface_counter(veth.a(), "rx_packets");
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  const std::uint64_t after = afxdp::test::interface_counter(veth.a(), "rx_packets");
  EXPECT_LE(after - before, 2U) << "still bouncing after 1.5 s";

  near.terminate();
  far.terminate();
  const ToolResult near_end = wait_for(near, 30000);
  const ToolResult far_end = wait_for(far, 30000);
  EXPECT_EQ(near_end.exit_code, 0) << near_end.err;
  EXPECT_EQ(far_end.exit_code, 0) << far_end.err;
  const long long n = echoed_count(near_end.err), f = echoed_count(far_end.err);
  ASSERT_GE(n, 0) << near_end.err;
  ASSERT_GE(f, 0) << far_end.err;
  // A burst of a tenth of the default 1,000 a second, and what refills while it drains.
  EXPECT_LT(n + f, 1000) << near_end.err << far_end.err;
  EXPECT_NE(far_end.err.find("over the per-source rate"), std::string::npos) << far_end.err;
}

}  // namespace
