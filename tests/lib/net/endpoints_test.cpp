// swap_endpoints() and resize_payload(), and the echo a UDP service writes with them, run in
// Queue::serve over the Loopback: what goes out is the answer, checksums verified.
#include "sample_frames.hpp"

#include <afxdp/net.hpp>
#include <afxdp/queue.hpp>
#include <afxdp/testing/loopback.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <string_view>

namespace {

using afxdp::net::Headers;
using net_test::Bytes;

TEST(NetSwapMacs, SwapsDestinationAndSourceAndNothingElse) {
  Bytes f(15);
  for (std::size_t i = 0; i < f.size(); ++i) f[i] = std::byte(i + 1);
  ASSERT_TRUE(afxdp::net::swap_macs(std::span(f).first(14)));
  const Bytes want{std::byte{7},  std::byte{8}, std::byte{9},  std::byte{10}, std::byte{11},
                   std::byte{12}, std::byte{1}, std::byte{2},  std::byte{3},  std::byte{4},
                   std::byte{5},  std::byte{6}, std::byte{13}, std::byte{14}, std::byte{15}};
  EXPECT_EQ(f, want);
}

// Shorter than an Ethernet header: nothing to answer, and not a byte written.
TEST(NetSwapMacs, RefusesAFrameShorterThanAnEthernetHeader) {
  Bytes f(13, std::byte{0xab});
  f[0] = std::byte{1};
  const Bytes before = f;
  EXPECT_FALSE(afxdp::net::swap_macs(f));
  EXPECT_EQ(f, before);
  EXPECT_FALSE(afxdp::net::swap_macs({}));
}

TEST(NetSwapEndpoints, SwapsMacsAddressesAndPortsAndKeepsChecksumsValid) {
  net_test::Sample v4 = net_test::udp4();
  Headers h = afxdp::net::parse(v4.frame);
  afxdp::net::update_checksums(h);
  afxdp::net::swap_endpoints(h);
  EXPECT_EQ(h.ethernet.destination(), (afxdp::MacAddress{2, 0, 0, 0, 0, 5}));
  EXPECT_EQ(h.ethernet.source(), (afxdp::MacAddress{2, 0, 0, 0, 0, 0x0d}));
  EXPECT_EQ(h.ipv4.source(), 0x0a00000dU);
  EXPECT_EQ(h.ipv4.destination(), 0x0a000005U);
  EXPECT_EQ(h.udp.source_port(), 7777);
  EXPECT_EQ(h.udp.destination_port(), 40000);
  EXPECT_TRUE(afxdp::net::verify_checksums(h));  // sums do not depend on the order

  net_test::Sample v6 = net_test::udp6_tagged();
  h = afxdp::net::parse(v6.frame);
  const afxdp::net::Ipv6Address source = h.ipv6.source();
  const afxdp::net::Ipv6Address destination = h.ipv6.destination();
  afxdp::net::swap_endpoints(h);
  EXPECT_EQ(h.ipv6.source(), destination);
  EXPECT_EQ(h.ipv6.destination(), source);
  EXPECT_EQ(h.udp.source_port(), 53);
  EXPECT_EQ(h.udp.destination_port(), 5353);
  EXPECT_EQ(h.vlans[0].id(), 100);  // tags are not endpoints

  net_test::Sample tcp = net_test::tcp4_options();
  h = afxdp::net::parse(tcp.frame);
  afxdp::net::swap_endpoints(h);
  EXPECT_EQ(h.tcp.source_port(), 51000);
  EXPECT_EQ(h.tcp.destination_port(), 443);

  net_test::Sample arp = net_test::arp();
  const Bytes before = arp.frame;
  h = afxdp::net::parse(arp.frame);
  afxdp::net::swap_endpoints(h);
  EXPECT_TRUE(std::equal(before.begin() + 12, before.end(), arp.frame.begin() + 12));
}

// The handler examples/udp_service.cpp's shape: parse, check, answer in place.
afxdp::Verdict echo_7777(afxdp::Frame& frame) {
  Headers h = afxdp::net::parse(frame.data());
  if (!h.udp || h.udp.destination_port() != 7777) return afxdp::Verdict::drop;
  afxdp::net::swap_endpoints(h);
  afxdp::net::update_checksums(h);
  return afxdp::Verdict::send_back;
}

// An answer longer than the question: "hello" becomes "hello, world".
afxdp::Verdict greet(afxdp::Frame& frame) {
  Headers h = afxdp::net::parse(frame.data());
  if (!h.udp) return afxdp::Verdict::drop;
  constexpr std::string_view answer = "hello, world";
  if (!afxdp::net::resize_payload(frame, h, answer.size())) return afxdp::Verdict::drop;
  std::memcpy(h.payload.data(), answer.data(), answer.size());
  afxdp::net::swap_endpoints(h);
  afxdp::net::update_checksums(h);
  return afxdp::Verdict::send_back;
}

TEST(NetEcho, AnEchoThroughServeAnswersWithValidChecksumsAndDropsTheRest) {
  afxdp::testing::Loopback lb({.frames_per_queue = 64, .ring_size = 32});
  afxdp::Queue& q = lb.port().queues()[0];
  ASSERT_TRUE(lb.inject(0, net_test::udp4().frame));  // checksums 0: as if offloaded
  ASSERT_TRUE(lb.inject(0, net_test::arp().frame));
  ASSERT_TRUE(lb.inject(0, net_test::udp6_tagged().frame));  // port 53
  EXPECT_EQ(q.serve(echo_7777), 3U);
  q.flush();
  auto sent = lb.transmitted(0);
  ASSERT_EQ(sent.size(), 1U);
  const Headers h = afxdp::net::parse(sent[0]);
  EXPECT_EQ(h.udp.source_port(), 7777);
  EXPECT_EQ(h.ipv4.destination(), 0x0a000005U);
  EXPECT_TRUE(afxdp::net::verify_checksums(h));
  EXPECT_NE(h.udp.checksum(), 0);
}

TEST(NetResizePayload, ALongerAnswerCarriesItsLengthsAndChecksums) {
  afxdp::testing::Loopback lb({.frames_per_queue = 64, .ring_size = 32});
  afxdp::Queue& q = lb.port().queues()[0];
  ASSERT_TRUE(lb.inject(0, net_test::udp4().frame));
  ASSERT_TRUE(lb.inject(0, net_test::udp6_tagged().frame));  // the trailer goes
  EXPECT_EQ(q.serve(greet), 2U);
  q.flush();
  auto sent = lb.transmitted(0);
  ASSERT_EQ(sent.size(), 2U);
  for (const Bytes& frame : sent) {
    Bytes copy = frame;
    const Headers h = afxdp::net::parse(copy);
    ASSERT_TRUE(h.udp);
    EXPECT_EQ(std::string_view(reinterpret_cast<const char*>(h.payload.data()), h.payload.size()),
              "hello, world");
    EXPECT_EQ(h.udp.length(), 8 + 12);
    EXPECT_EQ(h.payload.data() + h.payload.size(), copy.data() + copy.size());
    EXPECT_TRUE(afxdp::net::verify_checksums(h));
  }
  EXPECT_EQ(afxdp::net::parse(sent[0]).ipv4.total_length(), 20 + 8 + 12);
  EXPECT_EQ(afxdp::net::parse(sent[1]).ipv6.payload_length(), 48 + 8 + 12);
}

TEST(NetResizePayload, RefusesWhatItCannotDoAndChangesNothing) {
  afxdp::testing::Loopback lb({.frames_per_queue = 64, .ring_size = 32});
  afxdp::Queue& q = lb.port().queues()[0];
  ASSERT_TRUE(lb.inject(0, net_test::udp4().frame));
  ASSERT_TRUE(lb.inject(0, net_test::arp().frame));
  int refused = 0;
  EXPECT_EQ(q.serve([&](afxdp::Frame& frame) {
    Headers h = afxdp::net::parse(frame.data());
    const Bytes before(frame.data().begin(), frame.data().end());
    const std::uint32_t size = frame.size();
    Headers other = h;
    other.frame = other.frame.subspan(1);                                // not this frame's parse
    refused += !afxdp::net::resize_payload(frame, h, frame.capacity());  // too long
    refused += !afxdp::net::resize_payload(frame, other, 1);
    EXPECT_EQ(frame.size(), size);
    EXPECT_TRUE(std::equal(before.begin(), before.end(), frame.data().begin()));
    if (h.arp) refused += !afxdp::net::resize_payload(frame, h, 0);  // no IP
    return afxdp::Verdict::drop;
  }),
            2U);
  EXPECT_EQ(refused, 5);
}

// Issue 41 item 9: where parse() found no L4 header, resize_payload() moved the end all the same,
// and the receiver parsed the result differently: an IPv6 datagram that says TCP with a payload
// length of 0 grew a "TCP header" of payload bytes; an extension chain the payload length cut
// short became whole. Both are refused, the frame unchanged.
TEST(NetResizePayload, RefusesAFrameWithoutAnL4Header) {
  using net_test::Writer;
  Writer tcp_without_header = net_test::ethernet(0x86dd);
  net_test::ipv6(tcp_without_header, 6, 0);
  Writer cut_chain = net_test::ethernet(0x86dd);
  net_test::ipv6(cut_chain, 60, 8);              // destination options, said to be 8 bytes
  cut_chain.raw({17, 1, 1, 12}).fill(12, 0);     // but 16 long: UDP after it
  cut_chain.u16(40000).u16(7777).u16(8).u16(0);  // the UDP header past the payload length
  afxdp::testing::Loopback lb({.frames_per_queue = 64, .ring_size = 32});
  afxdp::Queue& q = lb.port().queues()[0];
  ASSERT_TRUE(lb.inject(0, tcp_without_header.bytes));
  ASSERT_TRUE(lb.inject(0, cut_chain.bytes));
  int refused = 0;
  EXPECT_EQ(q.serve([&](afxdp::Frame& frame) {
    Headers h = afxdp::net::parse(frame.data());
    EXPECT_TRUE(h.ipv6);
    EXPECT_FALSE(h.tcp || h.udp);
    const Bytes before(frame.data().begin(), frame.data().end());
    for (const std::size_t size : {0U, 8U, 20U, 24U}) {
      refused += !afxdp::net::resize_payload(frame, h, size);
      EXPECT_TRUE(std::ranges::equal(frame.data(), before)) << size;
    }
    return afxdp::Verdict::drop;
  }),
            2U);
  EXPECT_EQ(refused, 8);
}

// may_answer: each source a service must not answer, one field changed from a sample that it
// may answer.
TEST(NetMayAnswer, RefusesSourcesThatCouldStartALoopOrReflect) {
  const auto answerable = [](net_test::Sample sample, auto change) {
    Headers h = afxdp::net::parse(sample.frame);
    change(h);
    return afxdp::net::may_answer(h);
  };
  const auto unchanged = [](Headers&) {};
  EXPECT_TRUE(answerable(net_test::udp4(), unchanged));
  EXPECT_FALSE(answerable(net_test::tcp4_options(), unchanged));  // from port 443: a server
  EXPECT_TRUE(
      answerable(net_test::tcp4_options(), [](Headers& h) { h.tcp.set_source_port(51000); }));
  EXPECT_TRUE(answerable(net_test::udp6_tagged(), unchanged));
  EXPECT_FALSE(answerable(net_test::udp4(), [](Headers& h) { h.udp.set_source_port(7); }));
  EXPECT_FALSE(answerable(net_test::udp4(), [](Headers& h) { h.udp.set_source_port(1023); }));
  EXPECT_TRUE(answerable(net_test::udp4(), [](Headers& h) { h.udp.set_source_port(1024); }));
  EXPECT_FALSE(answerable(net_test::tcp4_options(), [](Headers& h) { h.tcp.set_source_port(80); }));
  EXPECT_FALSE(answerable(net_test::udp4(), [](Headers& h) {
    h.ethernet.set_source(afxdp::MacAddress{0x01, 0, 0x5e, 0, 0, 1});
  }));
  for (const std::uint32_t source : {0xe0000001U, 0xefffffffU, 0xffffffffU, 0U, 0x7f000001U}) {
    EXPECT_FALSE(answerable(net_test::udp4(), [&](Headers& h) { h.ipv4.set_source(source); }))
        << std::hex << source;
  }
  EXPECT_FALSE(
      answerable(net_test::udp4(), [](Headers& h) { h.ipv4.set_source(h.ipv4.destination()); }));
  EXPECT_FALSE(answerable(net_test::udp6_tagged(), [](Headers& h) {
    afxdp::net::Ipv6Address group{};
    group[0] = 0xff;
    group[15] = 1;
    h.ipv6.set_source(group);
  }));
  EXPECT_FALSE(answerable(net_test::udp6_tagged(),
                          [](Headers& h) { h.ipv6.set_source(h.ipv6.destination()); }));
  EXPECT_FALSE(answerable(net_test::udp6_tagged(),
                          [](Headers& h) { h.ipv6.set_source(afxdp::net::Ipv6Address{}); }));
  EXPECT_FALSE(answerable(net_test::arp(), unchanged));
}

// Issue 41 item 8: only the source was checked, so a query sent to a group (the subnet's
// broadcast 198.18.0.255 from ff:ff:ff:ff:ff:ff, mDNS's 224.0.0.251 at 01:00:5e:00:00:fb) was
// answered, which RFC 1122 forbids: every host on the link would answer one datagram.
TEST(NetMayAnswer, RefusesAGroupOrBroadcastDestination) {
  const auto answerable = [](net_test::Sample sample, auto change) {
    Headers h = afxdp::net::parse(sample.frame);
    change(h);
    return afxdp::net::may_answer(h);
  };
  EXPECT_FALSE(answerable(net_test::udp4(), [](Headers& h) {
    h.ethernet.set_destination(afxdp::MacAddress{0xff, 0xff, 0xff, 0xff, 0xff, 0xff});
    h.ipv4.set_destination(0xc61200ffU);  // 198.18.0.255: a broadcast only the netmask tells
  }));
  EXPECT_FALSE(answerable(net_test::udp4(), [](Headers& h) {
    h.ethernet.set_destination(afxdp::MacAddress{0x01, 0, 0x5e, 0, 0, 0xfb});
    h.ipv4.set_destination(0xe00000fbU);
  }));
  EXPECT_FALSE(answerable(net_test::udp6_tagged(), [](Headers& h) {
    h.ethernet.set_destination(afxdp::MacAddress{0x33, 0x33, 0, 0, 0, 1});
  }));
  // The IP destination alone (a group datagram in a unicast frame) is refused too.
  for (const std::uint32_t destination : {0xe00000fbU, 0xefffffffU, 0xffffffffU}) {
    EXPECT_FALSE(
        answerable(net_test::udp4(), [&](Headers& h) { h.ipv4.set_destination(destination); }))
        << std::hex << destination;
  }
  EXPECT_TRUE(
      answerable(net_test::udp4(), [](Headers& h) { h.ipv4.set_destination(0xdfffffffU); }));
  EXPECT_FALSE(answerable(net_test::udp6_tagged(), [](Headers& h) {
    afxdp::net::Ipv6Address group{};
    group[0] = 0xff;
    group[1] = 0x02;
    group[15] = 0xfb;
    h.ipv6.set_destination(group);
  }));
}

// Issue 41 item 8: the refusal of source ports below 1024 kept a DNS server from answering
// resolvers that query from port 53. The policy says how low a source port may be; the default
// stays safe.
TEST(NetMayAnswer, TheLowestSourcePortIsAPolicy) {
  net_test::Sample sample = net_test::udp4();
  Headers h = afxdp::net::parse(sample.frame);
  h.udp.set_source_port(53);
  EXPECT_FALSE(afxdp::net::may_answer(h));
  EXPECT_FALSE(afxdp::net::may_answer(h, {}));
  EXPECT_TRUE(afxdp::net::may_answer(h, {.lowest_source_port = 53}));
  EXPECT_TRUE(afxdp::net::may_answer(h, {.lowest_source_port = 0}));
  EXPECT_FALSE(afxdp::net::may_answer(h, {.lowest_source_port = 54}));
  // The policy lowers no other refusal.
  h.ipv4.set_source(h.ipv4.destination());
  EXPECT_FALSE(afxdp::net::may_answer(h, {.lowest_source_port = 0}));
}

}  // namespace

namespace {

// addressed_to: the interface's MAC and one of its IP addresses, nothing else (issue 41: a
// subnet's broadcast in a unicast-looking IP cannot be told without the interface's addresses).
TEST(NetAddressedTo, OnlyTheInterfacesOwnMacAndAddress) {
  net_test::Sample v4 = net_test::udp4();
  Headers h = afxdp::net::parse(v4.frame);
  afxdp::InterfaceAddresses me;
  me.mac = h.ethernet.destination();
  me.ipv4 = {0xc6120001U, h.ipv4.destination()};
  EXPECT_TRUE(afxdp::net::addressed_to(h, me));
  h.ipv4.set_destination(0xc61200ffU);  // the subnet's broadcast, our MAC
  EXPECT_FALSE(afxdp::net::addressed_to(h, me));
  h.ipv4.set_destination(me.ipv4[1]);
  h.ethernet.set_destination(afxdp::MacAddress{2, 0, 0, 0, 0, 0x77});  // promiscuous: another's
  EXPECT_FALSE(afxdp::net::addressed_to(h, me));

  net_test::Sample v6 = net_test::udp6_tagged();
  Headers h6 = afxdp::net::parse(v6.frame);
  afxdp::InterfaceAddresses me6;
  me6.mac = h6.ethernet.destination();
  EXPECT_FALSE(afxdp::net::addressed_to(h6, me6)) << "no address of ours";
  me6.ipv6 = {h6.ipv6.destination()};
  EXPECT_TRUE(afxdp::net::addressed_to(h6, me6));
  me6.ipv4 = {0x0a000005U};
  EXPECT_TRUE(afxdp::net::addressed_to(h6, me6));
  EXPECT_FALSE(afxdp::net::addressed_to(Headers{}, me6)) << "no Ethernet header";
}

}  // namespace
