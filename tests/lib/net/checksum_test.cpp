// Checksums: the RFC 1071 example and a textbook IPv4 header, and every other case against a sum
// written here byte at a time (the library's sums native words); v4 and v6, odd lengths, a UDP
// result of 0, an offload's partial checksum, and RFC 1624 updates equal to full recomputation.
#include "sample_frames.hpp"

#include <afxdp/net.hpp>

#include <gtest/gtest.h>

#include <random>

namespace {

using afxdp::net::Headers;
using net_test::Bytes;

// The reference: big-endian words, a byte at a time, folded at the end.
std::uint32_t slow_sum(std::span<const std::byte> bytes, std::uint64_t sum = 0) {
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    const auto b = std::to_integer<std::uint64_t>(bytes[i]);
    sum += i % 2 == 0 ? b << 8 : b;
  }
  while (sum >> 16) sum = (sum & 0xffff) + (sum >> 16);
  return static_cast<std::uint32_t>(sum);
}

std::uint16_t field(const std::byte* p) {
  return static_cast<std::uint16_t>(std::to_integer<unsigned>(p[0]) << 8 |
                                    std::to_integer<unsigned>(p[1]));
}

Bytes hex(std::initializer_list<unsigned> list) {
  Bytes b;
  for (const unsigned v : list) b.push_back(static_cast<std::byte>(v));
  return b;
}

TEST(NetChecksum, Rfc1071Example) {
  // RFC 1071 section 3: the sum of 0001 f203 f4f5 f6f7 is ddf2.
  const Bytes b = hex({0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7});
  EXPECT_EQ(afxdp::net::ones_complement_sum(b), 0xddf2);
  EXPECT_EQ(afxdp::net::internet_checksum(b), 0x220d);
}

TEST(NetChecksum, TextbookIpv4Header) {
  // 192.168.0.1 -> 192.168.0.199, UDP, total length 115: checksum b861.
  Bytes f = net_test::ethernet(0x0800).bytes;
  const Bytes ip = hex({0x45, 0x00, 0x00, 0x73, 0x00, 0x00, 0x40, 0x00, 0x40, 0x11,
                        0x00, 0x00, 0xc0, 0xa8, 0x00, 0x01, 0xc0, 0xa8, 0x00, 0xc7});
  f.insert(f.end(), ip.begin(), ip.end());
  f.resize(14 + 0x73);
  Headers h = afxdp::net::parse(f);
  ASSERT_TRUE(h.ipv4);
  h.udp = {};  // the header alone
  afxdp::net::update_checksums(h);
  EXPECT_EQ(h.ipv4.checksum(), 0xb861);
}

TEST(NetChecksum, AnyLengthAnyAlignmentAnyInitialSumAsTheReference) {
  std::mt19937 random(1071);
  Bytes buffer(600);
  for (auto& b : buffer) b = static_cast<std::byte>(random() & 0xff);
  for (std::size_t offset = 0; offset < 8; ++offset) {
    for (std::size_t length = 0; length + offset <= 300; ++length) {
      const std::span<const std::byte> bytes(buffer.data() + offset, length);
      const auto initial =
          static_cast<std::uint32_t>(random() % 0x40000);  // a pseudo-header's sum, unfolded
      ASSERT_EQ(afxdp::net::ones_complement_sum(bytes, initial), slow_sum(bytes, initial))
          << "offset " << offset << " length " << length;
    }
  }
  const Bytes ones(4096, std::byte{0xff});  // the carries of a long run of 0xffff words
  EXPECT_EQ(afxdp::net::ones_complement_sum(ones), slow_sum(ones));
}

// What the L4 checksum field should hold, from the reference sum: the pseudo-header as bytes.
std::uint16_t reference_l4(const Headers& h, const afxdp::net::HeaderView& l4, std::size_t at,
                           std::uint8_t protocol, bool pseudo) {
  const std::byte* end = h.payload.data() + h.payload.size();
  Bytes segment(static_cast<const std::byte*>(l4.data()), end);
  segment[at] = segment[at + 1] = std::byte{0};
  std::uint64_t sum = 0;
  if (pseudo) {
    Bytes header;
    if (h.ipv4) header.assign(h.ipv4.data() + 12, h.ipv4.data() + 20);
    if (h.ipv6) header.assign(h.ipv6.data() + 8, h.ipv6.data() + 40);
    const Bytes tail = hex({0, 0, static_cast<unsigned>(segment.size() >> 8),
                            static_cast<unsigned>(segment.size() & 0xff), 0, 0, 0, protocol});
    header.insert(header.end(), tail.begin(), tail.end());
    sum = slow_sum(header);
  }
  return static_cast<std::uint16_t>(~slow_sum(segment, sum));
}

TEST(NetChecksum, EverySampleAsTheReferenceAndVerified) {
  for (net_test::Sample s : net_test::samples()) {
    SCOPED_TRACE(s.name);
    Headers h = afxdp::net::parse(s.frame);
    afxdp::net::update_checksums(h);
    if (h.ipv4) {
      Bytes header(h.ipv4.bytes().begin(), h.ipv4.bytes().end());
      header[10] = header[11] = std::byte{0};
      EXPECT_EQ(h.ipv4.checksum(), static_cast<std::uint16_t>(~slow_sum(header)));
    }
    if (h.udp) {
      EXPECT_EQ(h.udp.checksum(), reference_l4(h, h.udp, 6, 17, true));
    }
    if (h.tcp) {
      EXPECT_EQ(h.tcp.checksum(), reference_l4(h, h.tcp, 16, 6, true));
    }
    if (h.icmp) {
      EXPECT_EQ(h.icmp.checksum(), reference_l4(h, h.icmp, 2, 1, false));
    }
    if (h.icmpv6) {
      EXPECT_EQ(h.icmpv6.checksum(), reference_l4(h, h.icmpv6, 2, 58, true));
    }
    EXPECT_TRUE(afxdp::net::verify_checksums(h));
    if (!h.payload.empty() && (h.ipv4 || h.ipv6)) {
      h.payload[0] ^= std::byte{1};
      EXPECT_FALSE(afxdp::net::verify_checksums(h)) << "a flipped bit goes unnoticed";
    }
  }
}

// veth hands a datagram from the peer's kernel over with CHECKSUM_PARTIAL: the field holds the
// pseudo-header's sum only. A full computation fixes it; an update from it could not.
TEST(NetChecksum, APartialOffloadChecksumComesOutRight) {
  for (net_test::Sample s : {net_test::udp4(), net_test::udp6_tagged(), net_test::tcp4_options()}) {
    SCOPED_TRACE(s.name);
    Headers h = afxdp::net::parse(s.frame);
    afxdp::net::update_checksums(h);
    const std::uint16_t full = h.udp ? h.udp.checksum() : h.tcp.checksum();
    const afxdp::net::HeaderView& l4 = h.udp ? static_cast<afxdp::net::HeaderView&>(h.udp) : h.tcp;
    const std::size_t at = h.udp ? 6 : 16;
    const std::uint8_t protocol = h.udp ? 17 : 6;
    // What the offload leaves: the pseudo-header's sum, not complemented.
    const auto segment_size =
        static_cast<std::size_t>(h.payload.data() + h.payload.size() - l4.data());
    Bytes pseudo;
    if (h.ipv4) pseudo.assign(h.ipv4.data() + 12, h.ipv4.data() + 20);
    if (h.ipv6) pseudo.assign(h.ipv6.data() + 8, h.ipv6.data() + 40);
    const Bytes tail = hex({0, 0, static_cast<unsigned>(segment_size >> 8),
                            static_cast<unsigned>(segment_size & 0xff), 0, 0, 0, protocol});
    pseudo.insert(pseudo.end(), tail.begin(), tail.end());
    const auto pseudo_sum = static_cast<std::uint16_t>(slow_sum(pseudo));
    l4.data()[at] = static_cast<std::byte>(pseudo_sum >> 8);
    l4.data()[at + 1] = static_cast<std::byte>(pseudo_sum & 0xff);
    EXPECT_FALSE(afxdp::net::verify_checksums(h));
    afxdp::net::update_checksums(h);
    EXPECT_EQ(field(l4.data() + at), full);
    EXPECT_TRUE(afxdp::net::verify_checksums(h));
  }
}

// The two last payload bytes chosen so that the sum is 0xffff: the checksum computes to 0, which
// UDP sends as 0xffff (0 is "no checksum").
TEST(NetChecksum, AUdpChecksumOfZeroIsSentAsAllOnes) {
  for (net_test::Sample s : {net_test::udp4(), net_test::udp6_tagged()}) {
    SCOPED_TRACE(s.name);
    Headers h = afxdp::net::parse(s.frame);
    ASSERT_GE(h.payload.size(), 4U);
    // An even offset inside the segment: the word the two bytes make is summed as it is.
    const std::size_t at = (h.payload.size() - 2) & ~std::size_t{1};
    h.payload[at] = h.payload[at + 1] = std::byte{0};
    afxdp::net::update_checksums(h);
    const auto sum_without = static_cast<std::uint16_t>(~h.udp.checksum());
    const auto word = static_cast<std::uint16_t>(~sum_without);
    h.payload[at] = static_cast<std::byte>(word >> 8);
    h.payload[at + 1] = static_cast<std::byte>(word & 0xff);
    EXPECT_EQ(reference_l4(h, h.udp, 6, 17, true), 0);
    afxdp::net::update_checksums(h);
    EXPECT_EQ(h.udp.checksum(), 0xffff);
    EXPECT_TRUE(afxdp::net::verify_checksums(h));
  }
}

TEST(NetChecksum, AUdpChecksumOfZeroMeansNoneOverIpv4OnlyAndFragmentsKeepTheirs) {
  net_test::Sample v4 = net_test::udp4();
  Headers h = afxdp::net::parse(v4.frame);
  afxdp::net::update_checksums(h);
  h.udp.set_checksum(0);
  EXPECT_TRUE(afxdp::net::verify_checksums(h));
  net_test::Sample v6 = net_test::udp6_tagged();
  h = afxdp::net::parse(v6.frame);
  afxdp::net::update_checksums(h);
  h.udp.set_checksum(0);
  EXPECT_FALSE(afxdp::net::verify_checksums(h));  // mandatory over IPv6 (RFC 8200 8.1)

  v4.frame[20] = std::byte{0x20};  // a first fragment: its UDP checksum covers other frames too
  h = afxdp::net::parse(v4.frame);
  ASSERT_TRUE(h.fragment);
  h.udp.set_checksum(0x1234);
  afxdp::net::update_checksums(h);
  EXPECT_EQ(h.udp.checksum(), 0x1234);
  EXPECT_TRUE(afxdp::net::verify_checksums(h));  // the IPv4 header's was updated
}

// RFC 1624: rewrite an address, a port or TTL, update the checksums incrementally; a full
// recomputation of the same bytes gives the very same values.
TEST(NetChecksum, IncrementalUpdatesEqualFullRecomputation) {
  std::mt19937 random(1624);
  net_test::Sample s = net_test::udp4();
  Headers h = afxdp::net::parse(s.frame);
  afxdp::net::update_checksums(h);
  for (int i = 0; i < 10000; ++i) {
    std::uint16_t ip = h.ipv4.checksum();
    std::uint16_t udp = h.udp.checksum();
    const auto value = static_cast<std::uint32_t>(random());
    switch (i % 3) {
      case 0: {  // the destination address: in the IPv4 header and the UDP pseudo-header
        const std::uint32_t old = h.ipv4.destination();
        ip = afxdp::net::checksum_update32(ip, old, value);
        udp = afxdp::net::checksum_update32(udp, old, value);
        h.ipv4.set_destination(value);
        break;
      }
      case 1: {  // the source port: UDP only
        const std::uint16_t old = h.udp.source_port();
        udp = afxdp::net::checksum_update(udp, old, static_cast<std::uint16_t>(value));
        h.udp.set_source_port(static_cast<std::uint16_t>(value));
        break;
      }
      default: {  // TTL, the high byte of the word it shares with the protocol
        const auto old = static_cast<std::uint16_t>(h.ipv4.ttl() << 8 | h.ipv4.protocol());
        const auto ttl = static_cast<std::uint8_t>(value);
        ip = afxdp::net::checksum_update(ip, old,
                                         static_cast<std::uint16_t>(ttl << 8 | h.ipv4.protocol()));
        h.ipv4.set_ttl(ttl);
      }
    }
    if (udp == 0) udp = 0xffff;  // UDP's rule, as update_checksums applies it
    h.ipv4.set_checksum(ip);
    h.udp.set_checksum(udp);
    ASSERT_TRUE(afxdp::net::verify_checksums(h)) << "rewrite " << i;
    afxdp::net::update_checksums(h);
    ASSERT_EQ(h.ipv4.checksum(), ip) << "rewrite " << i;
    ASSERT_EQ(h.udp.checksum(), udp) << "rewrite " << i;
  }
}

}  // namespace
