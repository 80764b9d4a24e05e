// `afxdp gen` on a real veth pair: it sends exactly the count asked for, its frames carry
// correct IPv4 and UDP checksums (checked here with independent arithmetic), and bad input is
// one line on stderr with a non-zero exit.
#include "system_test.hpp"
#include "tool_test.hpp"

#include <afxdp/xsk_program.hpp>
#include <lab.hpp>

#include <string>
#include <vector>

namespace {

using afxdp::test::start_tool;
using afxdp::test::interface_counter;

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

TEST(Gen, PeerReceivesExactlyTheCount) {
  AFXDP_REQUIRE_SYSTEM();
  afxdp::test::quiet_ipv6();
  afxdp::lab::VethPair veth(afxdp::lab::unique_prefix());
  const auto program = verdict_program(veth.b(), afxdp::XdpAction::drop);
  // veth counts a frame in the receiver's rx_packets once its XDP program has run on it.
  const std::uint64_t before = interface_counter(veth.b(), "rx_packets");
  auto gen = start_tool({"gen", "-i", veth.a(), "-C", "100000", "--json"});
  ASSERT_EQ(gen.wait(60000), 0) << gen.err();
  EXPECT_NE(gen.out().find("\"sent\":100000"), std::string::npos) << gen.out();
  EXPECT_EQ(afxdp::test::wait_statistic(veth.b(), "rx_packets", before + 100000) - before,
            100000U);
  // Nothing more trickles in afterwards: the count is exact, not a lower bound.
  EXPECT_EQ(interface_counter(veth.b(), "rx_packets") - before, 100000U);
}

TEST(Gen, FramesCarryCorrectChecksums) {
  AFXDP_REQUIRE_SYSTEM();
  afxdp::test::quiet_ipv6();
  afxdp::lab::VethPair veth(afxdp::lab::unique_prefix());
  const auto program = verdict_program(veth.b(), afxdp::XdpAction::pass);
  afxdp::lab::PacketSocket capture(veth.b());
  auto gen =
      start_tool({"gen", "-i", veth.a(), "-C", "20", "--rate", "1000", "-s", "101", "--src-ip",
                  "10.1.2.3", "--dst-ip", "10.4.5.6", "--src-port", "1234", "--dst-port", "5678"});
  ASSERT_EQ(gen.wait(30000), 0) << gen.err();

  const auto mac_a = afxdp::lab::mac_address(veth.a());
  const auto mac_b = afxdp::lab::mac_address(veth.b());
  std::vector<std::uint8_t> f;
  int checked = 0;
  while (checked < 20 && capture.receive(f, 2000) > 0) {
    if (f.size() < 42 || f[12] != 0x08 || f[13] != 0x00 || f[23] != 17) continue;  // not ours
    ASSERT_EQ(f.size(), 101U);
    EXPECT_EQ(std::vector<std::uint8_t>(f.begin(), f.begin() + 6), mac_b);  // the peer, default
    EXPECT_EQ(std::vector<std::uint8_t>(f.begin() + 6, f.begin() + 12), mac_a);
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

TEST(Gen, SaysWhenTheVethPeerCannotReceive) {
  AFXDP_REQUIRE_SYSTEM();
  afxdp::lab::VethPair veth(afxdp::lab::unique_prefix());
  auto gen = start_tool({"gen", "-i", veth.a(), "-C", "1000"});
  EXPECT_NE(gen.wait(30000), 0);
  EXPECT_NE(afxdp::test::lines_of(gen.err()).at(0).find("XDP program"), std::string::npos) << gen.err();
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
  };
  for (const auto& args : cases) {
    auto gen = start_tool(args);
    const int code = gen.wait(30000);
    EXPECT_NE(code, 0) << args.back();
    EXPECT_EQ(afxdp::test::lines_of(gen.err()).size(), 1U) << args.back() << ": " << gen.err();
  }
}

}  // namespace
