// parse() over sample frames cut at every length: a view is there exactly when its header (and,
// for IP, the whole datagram its length field announces) is, and nothing lies outside the bytes
// given. Each cut is copied to an allocation of exactly its size, so under ASan a read past it
// fails the test.
#include "../steering/test_frames.hpp"
#include "sample_frames.hpp"

#include <afxdp/net.hpp>

#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <span>

namespace {

using afxdp::net::Headers;
using afxdp::net::HeaderView;
using net_test::Bytes;
using net_test::Sample;

bool inside(std::span<const std::byte> part, std::span<const std::byte> whole) {
  return part.data() >= whole.data() && part.size() <= whole.size() &&
         part.data() - whole.data() <= static_cast<std::ptrdiff_t>(whole.size() - part.size());
}

bool inside(const HeaderView& view, std::span<const std::byte> whole) {
  return !view || inside(view.bytes(), whole);
}

// Whether each view is there, against the shortest prefix that has it (0: never).
void expect_views(const Headers& h, const Sample& s, std::size_t length) {
  const auto want = [&](std::size_t needs) { return needs != 0 && length >= needs; };
  EXPECT_EQ(bool(h.ethernet), want(s.ethernet));
  EXPECT_EQ(bool(h.vlans[0]), want(s.vlan0));
  EXPECT_EQ(bool(h.vlans[1]), want(s.vlan1));
  EXPECT_EQ(bool(h.arp), want(s.arp));
  EXPECT_EQ(bool(h.ipv4), want(s.ipv4));
  EXPECT_EQ(bool(h.ipv6), want(s.ipv6));
  EXPECT_EQ(bool(h.udp), want(s.udp));
  EXPECT_EQ(bool(h.tcp), want(s.tcp));
  EXPECT_EQ(bool(h.icmp), want(s.icmp));
  EXPECT_EQ(bool(h.icmpv6), want(s.icmpv6));
}

void expect_inside(const Headers& h, std::span<const std::byte> cut) {
  EXPECT_EQ(h.frame.data(), cut.data());
  EXPECT_EQ(h.frame.size(), cut.size());
  EXPECT_TRUE(inside(h.payload, cut));
  const HeaderView* views[] = {&h.ethernet, &h.vlans[0], &h.vlans[1], &h.arp,  &h.ipv4,
                               &h.ipv6,     &h.udp,      &h.tcp,      &h.icmp, &h.icmpv6};
  for (const HeaderView* v : views) EXPECT_TRUE(inside(*v, cut));
}

TEST(NetParse, EveryCutOfEverySampleHasTheViewsItsBytesHoldAndNothingPast) {
  for (const Sample& s : net_test::samples()) {
    for (std::size_t length = 0; length <= s.frame.size(); ++length) {
      SCOPED_TRACE(s.name + " cut to " + std::to_string(length));
      const std::unique_ptr<std::byte[]> cut(new std::byte[length]);  // exactly: ASan sees past it
      std::memcpy(cut.get(), s.frame.data(), length);
      const Headers h = afxdp::net::parse({cut.get(), length});
      expect_views(h, s, length);
      expect_inside(h, {cut.get(), length});
    }
  }
}

TEST(NetParse, TheWholeSampleGivesItsFieldsAndPayload) {
  for (Sample s : net_test::samples()) {
    SCOPED_TRACE(s.name);
    const Headers h = afxdp::net::parse(s.frame);
    EXPECT_EQ(h.ether_type, s.ether_type);
    if (h.ipv4 || h.ipv6) {
      EXPECT_EQ(h.ip_protocol, s.ip_protocol);
    }
    EXPECT_FALSE(h.fragment);
    EXPECT_EQ(h.payload.data(), s.frame.data() + s.payload_offset);
    EXPECT_EQ(h.payload.size(), s.payload_size);
    EXPECT_EQ(h.ethernet.destination(), (afxdp::MacAddress{2, 0, 0, 0, 0, 0x0d}));
    EXPECT_EQ(h.ethernet.source(), (afxdp::MacAddress{2, 0, 0, 0, 0, 5}));
  }
}

TEST(NetParse, Fields) {
  Sample udp4 = net_test::udp4();
  Headers h = afxdp::net::parse(udp4.frame);
  EXPECT_EQ(h.ipv4.version(), 4);
  EXPECT_EQ(h.ipv4.header_length(), 20U);
  EXPECT_EQ(h.ipv4.total_length(), 33);
  EXPECT_EQ(h.ipv4.identification(), 0x1234);
  EXPECT_TRUE(h.ipv4.dont_fragment());
  EXPECT_EQ(h.ipv4.ttl(), 64);
  EXPECT_EQ(h.ipv4.source(), 0x0a000005U);
  EXPECT_EQ(h.ipv4.destination(), 0x0a00000dU);
  EXPECT_EQ(h.udp.source_port(), 40000);
  EXPECT_EQ(h.udp.destination_port(), 7777);
  EXPECT_EQ(h.udp.length(), 13);
  EXPECT_EQ(std::string(reinterpret_cast<const char*>(h.payload.data()), h.payload.size()),
            "hello");

  Sample tagged = net_test::udp6_tagged();
  h = afxdp::net::parse(tagged.frame);
  EXPECT_EQ(h.ethernet.ether_type(), 0x88a8);
  EXPECT_EQ(h.vlans[0].id(), 100);
  EXPECT_EQ(h.vlans[0].priority(), 1);
  EXPECT_EQ(h.vlans[0].ether_type(), 0x8100);
  EXPECT_EQ(h.vlans[1].id(), 200);
  EXPECT_EQ(h.ipv6.version(), 6);
  EXPECT_EQ(h.ipv6.flow_label(), 0x12345U);
  EXPECT_EQ(h.ipv6.next_header(), 0);
  EXPECT_EQ(h.ipv6.hop_limit(), 64);
  EXPECT_EQ(h.ipv6.destination()[15], 0x0d);
  EXPECT_EQ(h.udp.destination_port(), 53);

  Sample tcp = net_test::tcp4_options();
  h = afxdp::net::parse(tcp.frame);
  EXPECT_EQ(h.ipv4.options().size(), 4U);
  EXPECT_EQ(h.tcp.header_length(), 32U);
  EXPECT_EQ(h.tcp.options().size(), 12U);
  EXPECT_EQ(h.tcp.sequence(), 0x01020304U);
  EXPECT_EQ(h.tcp.acknowledgment(), 0x0a0b0c0dU);
  EXPECT_EQ(h.tcp.flags(), afxdp::net::Tcp::ack | afxdp::net::Tcp::psh);
  EXPECT_EQ(h.tcp.window(), 64240);

  Sample arp = net_test::arp();
  h = afxdp::net::parse(arp.frame);
  EXPECT_EQ(h.arp.operation(), afxdp::net::Arp::request);
  EXPECT_EQ(h.arp.sender_ip(), 0x0a000005U);
  EXPECT_EQ(h.arp.target_ip(), 0x0a00000dU);

  Sample icmp6 = net_test::icmp6();
  h = afxdp::net::parse(icmp6.frame);
  EXPECT_EQ(h.icmpv6.type(), 128);
  EXPECT_EQ(h.icmpv6.identifier(), 0x4242);
  EXPECT_EQ(h.icmpv6.sequence(), 9);
}

TEST(NetParse, SettersWriteBigEndianFieldsInPlace) {
  Sample s = net_test::udp6_tagged();
  const Headers h = afxdp::net::parse(s.frame);
  h.vlans[1].set_id(0xabc);
  h.udp.set_destination_port(0x1234);
  h.ipv6.set_hop_limit(3);
  h.ipv6.set_traffic_class(0xa5);
  EXPECT_EQ(s.frame[18], std::byte{0x0a});
  EXPECT_EQ(s.frame[19], std::byte{0xbc});
  EXPECT_EQ(h.udp.data()[2], std::byte{0x12});
  EXPECT_EQ(h.udp.data()[3], std::byte{0x34});
  EXPECT_EQ(h.ipv6.hop_limit(), 3);
  EXPECT_EQ(h.ipv6.traffic_class(), 0xa5);
  EXPECT_EQ(h.ipv6.flow_label(), 0x12345U);
  EXPECT_EQ(h.ipv6.version(), 6);
}

// Length fields that promise more than the frame holds, or less than a header: the view is
// null, and what follows is not parsed.
TEST(NetParse, LengthFieldsAreNeverTrusted) {
  Sample s = net_test::udp4();
  Bytes f = s.frame;
  f[14] = std::byte{0x44};  // IHL 4: shorter than a header
  EXPECT_FALSE(afxdp::net::parse(f).ipv4);
  f = s.frame;
  f[14] = std::byte{0x4f};  // IHL 15: 60 bytes, past the datagram
  EXPECT_FALSE(afxdp::net::parse(f).ipv4);
  f = s.frame;
  f[14] = std::byte{0x65};  // version 6 in an IPv4 EtherType
  EXPECT_FALSE(afxdp::net::parse(f).ipv4);
  f = s.frame;
  f[17] = std::byte{34};  // total length one past the frame
  EXPECT_FALSE(afxdp::net::parse(f).ipv4);
  f = s.frame;
  f[17] = std::byte{19};  // total length shorter than the header
  EXPECT_FALSE(afxdp::net::parse(f).ipv4);
  f = s.frame;
  f[39] = std::byte{14};  // UDP length one past the datagram
  Headers h = afxdp::net::parse(f);
  EXPECT_TRUE(h.ipv4);
  EXPECT_FALSE(h.udp);
  EXPECT_EQ(h.payload.size(), 13U);  // the IP payload: what follows the last whole header
  f[39] = std::byte{7};              // UDP length shorter than its header
  EXPECT_FALSE(afxdp::net::parse(f).udp);
  f[39] = std::byte{10};  // shorter than the datagram: the payload follows UDP's length
  EXPECT_EQ(afxdp::net::parse(f).payload.size(), 2U);

  s = net_test::tcp4_options();
  f = s.frame;
  f[38 + 12] = std::byte{4U << 4};  // data offset 4: shorter than a header
  EXPECT_FALSE(afxdp::net::parse(f).tcp);
  f[38 + 12] = std::byte{9U << 4};  // 36 bytes: past the segment
  EXPECT_FALSE(afxdp::net::parse(f).tcp);

  s = net_test::udp6_tagged();
  f = s.frame;
  f[22 + 40 + 8 + 1] = std::byte{9};  // the routing header runs past the datagram
  h = afxdp::net::parse(f);
  EXPECT_TRUE(h.ipv6);
  EXPECT_FALSE(h.udp);
  EXPECT_EQ(h.ip_protocol, 43);  // the header that could not be skipped
}

TEST(NetParse, OnlyTheFirstFragmentCarriesL4) {
  Sample s = net_test::udp4();
  Bytes f = s.frame;
  f[20] = std::byte{0x20};  // more fragments, offset 0: the first
  f[39] = std::byte{200};   // its UDP length is the whole datagram's
  Headers h = afxdp::net::parse(f);
  EXPECT_TRUE(h.fragment);
  EXPECT_TRUE(h.udp);
  EXPECT_EQ(h.payload.size(), 5U);
  f[21] = std::byte{1};  // offset 8: a later fragment
  h = afxdp::net::parse(f);
  EXPECT_TRUE(h.fragment);
  EXPECT_FALSE(h.udp);
  EXPECT_EQ(h.payload.size(), 13U);

  // IPv6: a fragment header between IPv6 and UDP.
  net_test::Writer w = net_test::ethernet(0x86dd);
  net_test::ipv6(w, 44, 8 + 8 + 4);
  w.raw({17, 0, 0, 1, 0, 0, 0, 7});  // offset 0, more fragments
  w.u16(1).u16(2).u16(400).u16(0).text("frag");
  h = afxdp::net::parse(w.bytes);
  EXPECT_TRUE(h.fragment);
  EXPECT_TRUE(h.udp);
  EXPECT_EQ(h.ip_protocol, 17);
  w.bytes[54 + 3] = std::byte{0x09};  // offset 8
  h = afxdp::net::parse(w.bytes);
  EXPECT_TRUE(h.fragment);
  EXPECT_FALSE(h.udp);
  EXPECT_EQ(h.ip_protocol, 17);
  EXPECT_EQ(h.payload.size(), 12U);
}

TEST(NetParse, MoreThanTwoTagsOrOtherEtherTypesGiveThePayloadAfterWhatWasFound) {
  net_test::Writer w = net_test::ethernet(0x8100);
  w.u16(1).u16(0x8100).u16(2).u16(0x8100).u16(3).u16(0x0800);
  Headers h = afxdp::net::parse(w.bytes);
  EXPECT_TRUE(h.vlans[1]);
  EXPECT_EQ(h.ether_type, 0x8100);
  EXPECT_FALSE(h.ipv4);
  EXPECT_EQ(h.payload.size(), 4U);

  w = net_test::ethernet(0x88b5);
  w.text("local experimental");
  h = afxdp::net::parse(w.bytes);
  EXPECT_EQ(h.ether_type, 0x88b5);
  EXPECT_EQ(h.payload.size(), 18U);

  EXPECT_FALSE(afxdp::net::parse({}).ethernet);  // no bytes at all
}

// IPv6 AH ends the walk (issue 41 item 7): the protocol is AH's and there is no UDP behind it.
// The steering program reads the same frame alike (SteerProgram.AhEndsTheHeaderWalkAsInNetParse):
// a port rule does not take it, `ip6 proto 51` does.
TEST(Parse, Ipv6AhEndsTheHeaderWalkAsInTheSteeringProgram) {
  for (const std::vector<std::uint8_t>& ext : {std::vector<std::uint8_t>{51}, {0, 51}}) {
    std::vector<std::uint8_t> frame = afxdp::test::frame({.ethertype = 0x86dd,
                                                          .src = "2001:db8::1",
                                                          .dst = "2001:db8::2",
                                                          .dport = 7777,
                                                          .ext = ext});
    const Headers h = afxdp::net::parse(std::as_writable_bytes(std::span(frame)));
    EXPECT_TRUE(h.ipv6);
    EXPECT_EQ(h.ip_protocol, 51);
    EXPECT_FALSE(h.udp);
  }
}

}  // namespace
