// The benchmarks end to end: the real `afxdp` binary on a veth pair in the test's private
// network namespace, with counts, frames and checksums checked from the other side.
#include "system_test.hpp"
#include "tool_test.hpp"

#include <afxdp/xsk/interface.hpp>
#include <afxdp/xsk/xsk_program.hpp>
#include <lab.hpp>

#include <chrono>
#include <csignal>
#include <sys/socket.h>
#include <thread>

namespace {

using afxdp::test::Child;
using afxdp::test::json_number;
using afxdp::test::last_line_with;
using afxdp::test::start_tool;
using afxdp::test::ToolResult;
using afxdp::test::wait_for;
using afxdp::test::wait_until_running;

// Two CPUs when there are two, so that sender and receiver don't take turns on one.
std::vector<std::string> cpu_args(unsigned index) {
  if (std::thread::hardware_concurrency() < 2) return {};
  return {"--cpu", std::to_string(index % 2)};
}

std::vector<std::string> operator+(std::vector<std::string> a, const std::vector<std::string>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

TEST(ToolBench, TxpushCountIsReceivedExactlyByRxdrop) {
  AFXDP_REQUIRE_SYSTEM();
  afxdp::test::quiet_ipv6();
  afxdp::lab::VethPair veth(afxdp::lab::unique_prefix());
  Child rxdrop = start_tool(std::vector<std::string>{"rxdrop", "-i", veth.b(), "-C", "100000", "-d",
                                                     "120", "--json", "-x", "-a", "-n", "0.2"} +
                            cpu_args(0));
  wait_until_running(rxdrop);
  const unsigned sender = afxdp::interface_index(veth.a());
  const std::uint64_t veth_dropped_before = afxdp::interface_link(sender).tx_dropped;

  const ToolResult tx =
      afxdp::test::run_tool(std::vector<std::string>{"txpush", "-i", veth.a(), "-C", "100000",
                                                     "--rate", "50000", "--json", "-n", "0.5"} +
                                cpu_args(1),
                            120000);
  ASSERT_EQ(tx.exit_code, 0) << tx.err;
  const std::string tx_summary = last_line_with(tx.out, "\"summary\"");
  EXPECT_EQ(json_number(tx_summary, "tx_packets"), 100000) << tx_summary;

  // A frame veth itself drops (its ring towards the receiving NAPI full, when a loaded machine
  // starves that NAPI; counted in the sender's tx_dropped) never reaches the socket: rxdrop
  // then cannot count to 100000 and is stopped instead, and must have every other frame.
  const std::uint64_t veth_dropped = afxdp::interface_link(sender).tx_dropped - veth_dropped_before;
  if (veth_dropped != 0) {
    std::this_thread::sleep_for(std::chrono::seconds(2));
    rxdrop.signal(SIGINT);
  }
  const ToolResult rx = wait_for(rxdrop, 30000);
  ASSERT_EQ(rx.exit_code, 0) << "veth dropped " << veth_dropped << "\n" << rx.err << rx.out;
  const std::string rx_summary = last_line_with(rx.out, "\"summary\"");
  EXPECT_EQ(json_number(rx_summary, "rx_packets"), 100000.0 - static_cast<double>(veth_dropped))
      << "veth dropped " << veth_dropped << "\n"
      << rx.out;
  EXPECT_EQ(json_number(rx_summary, "rx_dropped"), 0) << rx_summary;

  std::string why;
  EXPECT_TRUE(afxdp::test::every_line_is_json(rx.out, why)) << why << rx.out;
  EXPECT_TRUE(afxdp::test::every_line_is_json(tx.out, why)) << why << tx.out;
  EXPECT_EQ(afxdp::attached_xdp_program(afxdp::interface_index(veth.b())), 0U);
}

TEST(ToolBench, SigtermAndSigintStopWithSummaryAndExitZero) {
  AFXDP_REQUIRE_SYSTEM();
  afxdp::lab::VethPair veth(afxdp::lab::unique_prefix());
  for (const int number : {SIGTERM, SIGINT}) {
    Child rxdrop = start_tool({"rxdrop", "-i", veth.b(), "--json", "-n", "0.1"});
    wait_until_running(rxdrop);
    rxdrop.signal(number);
    const ToolResult result = wait_for(rxdrop, 10000);
    EXPECT_EQ(result.exit_code, 0) << number << result.err;
    EXPECT_NE(last_line_with(result.out, "\"summary\":true"), "") << result.out;
    EXPECT_EQ(afxdp::attached_xdp_program(afxdp::interface_index(veth.b())), 0U);
  }
  // The text output: per-socket header, rows, summary.
  Child text = start_tool({"l2fwd", "-i", veth.b(), "-S", "-p", "-x", "-a", "-n", "0.1"});
  std::string line;
  ASSERT_TRUE(text.read_line(line, 20000));
  ASSERT_TRUE(text.read_line(line, 20000));
  EXPECT_EQ(line, " sock0@" + veth.b() + ":0 l2fwd xdp-skb poll()");
  text.signal(SIGINT);
  const ToolResult result = wait_for(text, 10000);
  EXPECT_EQ(result.exit_code, 0) << result.err;
  for (const char* row : {"\nrx ", "\ntx ", "\nrx dropped ", "\nfill ring empty ", "\nsyscalls ",
                          "\nempty polls ", " summary: l2fwd on "}) {
    EXPECT_NE(result.out.find(row), std::string::npos) << row << "\n" << result.out;
  }
}

TEST(ToolBench, L2fwdReturnsEveryFrameWithMacsSwapped) {
  AFXDP_REQUIRE_SYSTEM();
  afxdp::test::quiet_ipv6();
  afxdp::lab::VethPair veth(afxdp::lab::unique_prefix());
  constexpr std::uint32_t count = 2000;
  Child l2fwd =
      start_tool(std::vector<std::string>{"l2fwd", "-i", veth.b(), "-C", std::to_string(count),
                                          "-d", "120", "--json", "-n", "0.2"} +
                 cpu_args(0));
  wait_until_running(l2fwd);

  afxdp::lab::PacketSocket peer(veth.a());
  const afxdp::test::Echo echo = afxdp::test::echo_through_l2fwd(
      peer, veth.a(), veth.b(), count, [](std::uint32_t i) -> std::size_t { return 60 + i % 200; });
  EXPECT_EQ(echo.returned, count);
  EXPECT_EQ(echo.wrong, 0U);
  const ToolResult result = wait_for(l2fwd, 30000);
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const std::string summary = last_line_with(result.out, "\"summary\"");
  EXPECT_EQ(json_number(summary, "rx_packets"), count) << summary;
  EXPECT_EQ(json_number(summary, "tx_packets"), count) << summary;
}

// Checksums verified here, by code of the test's own, not the tool's builder.
std::uint32_t ones_sum(const std::uint8_t* p, std::size_t n, std::uint32_t sum) {
  for (std::size_t i = 0; i + 1 < n; i += 2) sum += std::uint32_t(p[i] << 8 | p[i + 1]);
  if (n % 2 != 0) sum += std::uint32_t(p[n - 1] << 8);
  while (sum > 0xFFFF) sum = (sum & 0xFFFF) + (sum >> 16);
  return sum;
}

struct Checked {
  bool udp = false;  // an IPv4/UDP frame of ours
  bool ip_ok = false;
  bool udp_ok = false;
  std::size_t ip_length = 0;
};

Checked check_frame(const std::uint8_t* f, std::size_t n) {
  Checked c;
  std::size_t at = 12;
  // The receiving stack may have taken an 802.1Q tag off into metadata; accept both.
  if (n >= 18 && f[12] == 0x81 && f[13] == 0x00) at = 16;
  if (n < at + 2 + 28 || f[at] != 0x08 || f[at + 1] != 0x00) return c;
  const std::uint8_t* ip = f + at + 2;
  if (ip[0] != 0x45 || ip[9] != 17) return c;
  c.udp = true;
  c.ip_length = std::size_t(ip[2] << 8 | ip[3]);
  c.ip_ok = ones_sum(ip, 20, 0) == 0xFFFF && c.ip_length <= n - at - 2;
  const std::uint8_t* udp = ip + 20;
  const std::size_t udp_length = std::size_t(udp[4] << 8 | udp[5]);
  if (udp_length + 20 != c.ip_length || (udp[6] == 0 && udp[7] == 0)) return c;
  std::uint32_t pseudo = ones_sum(ip + 12, 8, 0) + 17 + static_cast<std::uint32_t>(udp_length);
  c.udp_ok = ones_sum(udp, udp_length, pseudo) == 0xFFFF;
  return c;
}

TEST(ToolBench, TxpushFramesPassAnIndependentChecksumCheck) {
  AFXDP_REQUIRE_SYSTEM();
  afxdp::test::quiet_ipv6();
  afxdp::lab::VethPair veth(afxdp::lab::unique_prefix());
  afxdp::lab::PacketSocket capture(veth.a());
  const int buffer = 8 << 20;
  setsockopt(capture.fd(), SOL_SOCKET, SO_RCVBUFFORCE, &buffer, sizeof buffer);

  struct Run {
    std::vector<std::string> args;
    std::size_t size;
  };
  const std::vector<Run> runs = {
      {{"-s", "64"}, 64},
      {{"-s", "1001", "--src-ip", "10.9.8.7", "--dst-ip", "172.16.5.4", "--src-port", "65535",
        "--dst-port", "53"},
       1001},
      {{"-s", "300", "-V", "-J", "7", "-K", "6"}, 300},
  };
  for (const Run& run : runs) {
    constexpr int count = 200;
    Child txpush =
        start_tool(std::vector<std::string>{"txpush", "-i", veth.b(), "-C", std::to_string(count),
                                            "--rate", "5000", "-Q"} +
                   run.args);
    int udp = 0, ip_ok = 0, udp_ok = 0, sized = 0;
    std::vector<std::uint8_t> frame;
    while (udp < count) {
      const std::size_t n = capture.receive(frame, 3000);
      if (n == 0) break;
      const Checked c = check_frame(frame.data(), n);
      udp += c.udp;
      ip_ok += c.ip_ok;
      udp_ok += c.udp_ok;
      // A tag the stack moved into metadata makes the frame 4 bytes shorter.
      sized += n == run.size || n + 4 == run.size;
    }
    const ToolResult result = wait_for(txpush, 30000);
    EXPECT_EQ(result.exit_code, 0) << result.err;
    EXPECT_EQ(udp, count) << run.size;
    EXPECT_EQ(ip_ok, count) << run.size;
    EXPECT_EQ(udp_ok, count) << run.size;
    EXPECT_EQ(sized, count) << run.size;
  }
}

}  // namespace
