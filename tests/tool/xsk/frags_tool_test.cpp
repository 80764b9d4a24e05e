// The tool's -F on a veth pair with MTU 9000: l2fwd returns jumbo frames intact, dump writes one
// pcap record per whole packet, txpush sends 9000-byte chains that rxdrop counts as packets and
// fragments; and the bad input -F brings (one line each, nothing attached).
#include "jumbo.hpp"
#include "probes.hpp"
#include "system_test.hpp"
#include "tool_test.hpp"

#include "common/pcap.hpp"

#include <afxdp/xsk/interface.hpp>
#include <afxdp/xsk/xsk_program.hpp>
#include <lab.hpp>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <sys/socket.h>
#include <thread>
#include <unistd.h>

namespace {

using afxdp::test::Child;
using afxdp::test::json_number;
using afxdp::test::last_line_with;
using afxdp::test::run_tool;
using afxdp::test::start_tool;
using afxdp::test::ToolResult;
using afxdp::test::wait_for;
using afxdp::test::wait_until_running;
using namespace std::chrono_literals;

class FragsTool : public ::testing::TestWithParam<const char*> {
 protected:
  // "" (native) or "-S"; an empty argument is left out.
  [[nodiscard]] std::vector<std::string> with_mode(std::vector<std::string> args) const {
    if (std::string(GetParam()) == "-S") args.push_back("-S");
    return args;
  }
};

TEST_P(FragsTool, L2fwdReturnsJumboFramesIntact) {
  AFXDP_REQUIRE_SYSTEM();
  AFXDP_REQUIRE_FACILITY(afxdp::test::multi_buffer());
  afxdp::test::quiet_ipv6();
  afxdp::lab::VethPair veth = afxdp::test::jumbo_veth();
  constexpr std::uint32_t count = 600;
  Child l2fwd = start_tool(with_mode({"l2fwd", "-F", "-i", veth.b(), "-C", std::to_string(count),
                                      "-d", "120", "--json", "-n", "0.2"}));
  wait_until_running(l2fwd);
  afxdp::lab::PacketSocket peer(veth.a());
  // 32 jumbo frames outstanding are more than the default socket buffer holds.
  const int bytes = 8 << 20;
  ASSERT_EQ(::setsockopt(peer.fd(), SOL_SOCKET, SO_RCVBUFFORCE, &bytes, sizeof bytes), 0);
  const afxdp::test::Echo echo = afxdp::test::echo_through_l2fwd(
      peer, veth.a(), veth.b(), count, [](std::uint32_t i) { return afxdp::test::jumbo_size(i); });
  EXPECT_EQ(echo.returned, count);
  EXPECT_EQ(echo.wrong, 0U);
  const ToolResult result = wait_for(l2fwd, 30000);
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const std::string summary = last_line_with(result.out, "\"summary\"");
  EXPECT_EQ(json_number(summary, "rx_packets"), count) << summary;
  // 200 of the frames are 9014 bytes (3 fragments), the rest 1 to 3.
  EXPECT_GT(json_number(summary, "rx_frags"), count + 400) << summary;
  EXPECT_EQ(json_number(summary, "invalid_chains"), 0) << summary;
}

TEST_P(FragsTool, TxpushJumboChainsAreCountedByRxdropAsPacketsAndFragments) {
  AFXDP_REQUIRE_SYSTEM();
  AFXDP_REQUIRE_FACILITY(afxdp::test::multi_buffer());
  afxdp::test::quiet_ipv6();
  afxdp::lab::VethPair veth = afxdp::test::jumbo_veth();
  constexpr int count = 2000;
  Child rxdrop = start_tool(with_mode({"rxdrop", "-F", "-i", veth.b(), "-C", std::to_string(count),
                                       "-d", "120", "--json", "-x", "-n", "0.2"}));
  wait_until_running(rxdrop);
  const ToolResult tx = run_tool(with_mode({"txpush", "-F", "-i", veth.a(), "-s", "9014", "-C",
                                            std::to_string(count), "--rate", "4000", "--json"}),
                                 120000);
  ASSERT_EQ(tx.exit_code, 0) << tx.err;
  // Each packet is 3 descriptors of 4096, 4096 and 822 bytes, each completed: with -F the JSON
  // names them fragments, and has no tx_packets that would count them as packets.
  const std::string tx_summary = last_line_with(tx.out, "\"summary\"");
  EXPECT_EQ(json_number(tx_summary, "tx_frags"), 3 * count) << tx.out;
  EXPECT_EQ(json_number(tx_summary, "tx_packets"), -1) << tx.out;
  EXPECT_GT(json_number(tx_summary, "tx_frags_pps"), 0) << tx.out;
  const ToolResult rx = wait_for(rxdrop, 30000);
  ASSERT_EQ(rx.exit_code, 0) << rx.err;
  const std::string summary = last_line_with(rx.out, "\"summary\"");
  EXPECT_EQ(json_number(summary, "rx_packets"), count) << summary;
  EXPECT_EQ(json_number(summary, "rx_frags"), 3 * count) << summary;  // 3840-byte shares
  EXPECT_EQ(json_number(summary, "rx_dropped"), 0) << summary;
}

TEST_P(FragsTool, DumpWritesOneRecordPerWholePacket) {
  AFXDP_REQUIRE_SYSTEM();
  AFXDP_REQUIRE_FACILITY(afxdp::test::multi_buffer());
  afxdp::test::quiet_ipv6();
  afxdp::lab::VethPair veth = afxdp::test::jumbo_veth();
  const std::string path = (std::filesystem::temp_directory_path() /
                            ("afxdp_frags_dump_" + std::to_string(::getpid()) + ".pcap"))
                               .string();
  Child dump = start_tool(with_mode({"dump", "-F", "-i", veth.b(), "-w", path, "-C", "30"}));
  ASSERT_TRUE(afxdp::test::wait_attached(veth.b()));
  afxdp::lab::PacketSocket peer(veth.a());
  const auto dst = afxdp::mac_address(veth.b());
  const auto src = afxdp::mac_address(veth.a());
  // Frames sent before the socket's XSKMAP slot is set pass to the stack: send until dump has
  // its 30 (it exits then). The deadline only bounds a failure.
  ToolResult result;
  const auto deadline = std::chrono::steady_clock::now() + 20s;
  for (std::uint32_t i = 0; std::chrono::steady_clock::now() < deadline; ++i) {
    const auto frame = afxdp::lab::test_frame(i, afxdp::test::jumbo_size(i), dst, src);
    peer.send(frame.data(), frame.size());
    std::this_thread::sleep_for(2ms);
    if (dump.exited(0)) break;
  }
  result = wait_for(dump, 10000);
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const auto records = afxdp::tool::read_pcap(path);
  std::filesystem::remove(path);
  ASSERT_EQ(records.size(), 30U);
  std::size_t ours = 0, jumbo = 0;
  for (const std::span<const std::uint8_t> r : records) {
    std::uint32_t sequence = 0;
    if (!afxdp::lab::check_test_frame(r.data(), r.size(), sequence)) continue;  // IPv6 chatter
    EXPECT_EQ(std::vector<std::uint8_t>(r.begin(), r.end()),
              afxdp::lab::test_frame(sequence, afxdp::test::jumbo_size(sequence), dst, src));
    ++ours;
    if (r.size() == afxdp::test::jumbo_frame) ++jumbo;
  }
  EXPECT_GT(ours, 20U);
  EXPECT_GT(jumbo, 5U);
  EXPECT_EQ(afxdp::attached_xdp_program(afxdp::interface_index(veth.b())), 0U);
}

INSTANTIATE_TEST_SUITE_P(Modes, FragsTool, ::testing::Values("", "-S"), [](const auto& param_info) {
  return std::string(*param_info.param == '\0' ? "native" : "skb");
});

void expect_one_line_failure(const std::vector<std::string>& args, const std::string& says,
                             const std::string& interface) {
  const ToolResult r = run_tool(args, 30000);
  EXPECT_NE(r.exit_code, 0) << args[0];
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_NE(r.err.find(says), std::string::npos) << r.err;
  EXPECT_EQ(afxdp::attached_xdp_program(afxdp::interface_index(interface)), 0U);
}

TEST(FragsBadInput, OneLineEachNothingAttached) {
  AFXDP_REQUIRE_SYSTEM();
  afxdp::lab::VethPair veth = afxdp::test::jumbo_veth();
  const std::string& a = veth.a();
  const std::string& b = veth.b();
  // Frames too small for MTU 9000 without -F: said before anything is attached.
  expect_one_line_failure({"rxdrop", "-i", b, "-d", "1"}, "use -F", b);
  expect_one_line_failure({"l2fwd", "-i", b, "-S", "-d", "1"}, "MTU 9000", b);
  expect_one_line_failure({"dump", "-i", b, "-w", "/dev/null", "-C", "1"}, "use -F", b);
  // -s beyond what one frame (without -F) or 18 frames (with -F) hold.
  expect_one_line_failure({"txpush", "-i", a, "-s", "9014", "-d", "1"}, "larger packets need -F",
                          a);
  expect_one_line_failure({"txpush", "-F", "-i", a, "-s", "80000", "-d", "1"}, "longest chain", a);
  // -F where the driver lacks it: veth has no zero-copy, let alone zero-copy multi-buffer.
  expect_one_line_failure({"rxdrop", "-F", "-z", "-i", b, "-d", "1"}, "XDP_USE_SG", b);
}

}  // namespace
