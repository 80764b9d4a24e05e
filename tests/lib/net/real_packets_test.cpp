// Frames Linux 6.x sent over a veth whose tx checksumming was off, so its own software computed
// every checksum in them: update_checksums() must write exactly those, and verify_checksums()
// accept them as they came.
#include <afxdp/net.hpp>

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace {

using afxdp::net::Headers;

std::vector<std::byte> from_hex(const std::string& hex) {
  std::vector<std::byte> bytes;
  for (std::size_t i = 0; i + 1 < hex.size(); i += 2) {
    bytes.push_back(static_cast<std::byte>(std::stoul(hex.substr(i, 2), nullptr, 16)));
  }
  return bytes;
}

struct RealFrame {
  const char* what;
  std::string hex;
  std::uint16_t ipv4_checksum;  // 0: no IPv4 header
  std::uint16_t l4_checksum;    // 0: no L4 checksum
};

const RealFrame frames[] = {
    {"UDP over IPv4, 'hello'",
     "16969afe09357a5a3cdcb9f2080045000021573240004011cf850a0900010a0900029c401e61000ded4b68656c6c"
     "6f",
     0xcf85, 0xed4b},
    {"UDP over IPv6, 'hello, v6'",
     "16969afe09357a5a3cdcb9f286dd600d3e2600111140fd000000000000000000000000000001fd00000000000000"
     "00000000000000029c411e610011b0b068656c6c6f2c207636",
     0, 0xb0b0},
    {"TCP SYN with MSS, SACK-permitted, timestamps, window scale",
     "16969afe09357a5a3cdcb9f208004500003c333340004006f3740a0900010a0900029c4200095290412300000000"
     "a002faf0fda40000020405b40402080acdcb3d88000000000103030a",
     0xf374, 0xfda4},
    {"ICMP echo request, 'ping!'",
     "16969afe09357a5a3cdcb9f20800450000214cc840004001d9ff0a0900010a09000208003132c6fb000170696e67"
     "21",
     0xd9ff, 0x3132},
    {"ICMPv6 echo request, 'ping6'",
     "16969afe09357a5a3cdcb9f286dd60048216000d3a40fd000000000000000000000000000001fd00000000000000"
     "00000000000000028000a9e4c6fc000170696e6736",
     0, 0xa9e4},
    {"MLDv2 report after a hop-by-hop header (router alert)",
     "3333000000167a90f1f2ca2986dd6000000000380001fe800000000000007890f1fffef2ca29ff02000000000000"
     "00000000000000163a000502000001008f0070240000000204000000ff0200000000000000000001fff2ca290400"
     "0000ff0200000000000000000001ff000002",
     0, 0x7024},
};

std::uint16_t l4_checksum(const Headers& h) {
  if (h.udp) return h.udp.checksum();
  if (h.tcp) return h.tcp.checksum();
  if (h.icmp) return h.icmp.checksum();
  return h.icmpv6.checksum();
}

void zero_checksums(const Headers& h) {
  if (h.ipv4) h.ipv4.set_checksum(0);
  if (h.udp) h.udp.set_checksum(0);
  if (h.tcp) h.tcp.set_checksum(0);
  if (h.icmp) h.icmp.set_checksum(0);
  if (h.icmpv6) h.icmpv6.set_checksum(0);
}

TEST(NetRealPackets, ChecksumsAreTheKernelsOwn) {
  for (const RealFrame& f : frames) {
    SCOPED_TRACE(f.what);
    std::vector<std::byte> bytes = from_hex(f.hex);
    Headers h = afxdp::net::parse(bytes);
    ASSERT_TRUE(h.udp || h.tcp || h.icmp || h.icmpv6);
    EXPECT_EQ(h.payload.data() + h.payload.size(), bytes.data() + bytes.size());
    EXPECT_TRUE(afxdp::net::verify_checksums(h));
    zero_checksums(h);
    EXPECT_FALSE(afxdp::net::verify_checksums(h));
    afxdp::net::update_checksums(h);
    if (f.ipv4_checksum != 0) {
      EXPECT_EQ(h.ipv4.checksum(), f.ipv4_checksum);
    }
    EXPECT_EQ(l4_checksum(h), f.l4_checksum);
  }
}

TEST(NetRealPackets, AnArpRequest) {
  std::vector<std::byte> bytes = from_hex(
      "ffffffffffff7a5a3cdcb9f2080600010800060400017a5a3cdcb9f20a0900010000000000000a090003");
  const Headers h = afxdp::net::parse(bytes);
  ASSERT_TRUE(h.arp);
  EXPECT_EQ(h.arp.operation(), afxdp::net::Arp::request);
  EXPECT_EQ(h.arp.sender_mac(), (afxdp::MacAddress{0x7a, 0x5a, 0x3c, 0xdc, 0xb9, 0xf2}));
  EXPECT_EQ(h.arp.sender_ip(), 0x0a090001U);
  EXPECT_EQ(h.arp.target_ip(), 0x0a090003U);
  EXPECT_TRUE(h.payload.empty());
}

}  // namespace
