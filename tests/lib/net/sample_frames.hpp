// Sample frames for the net tests, written byte by byte here (not with the library), and where
// each header starts and ends in them, so a test can say which views a truncated copy must have.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

namespace net_test {

using Bytes = std::vector<std::byte>;

struct Writer {
  Bytes bytes;
  Writer& u8(unsigned v) {
    bytes.push_back(static_cast<std::byte>(v));
    return *this;
  }
  Writer& u16(unsigned v) { return u8(v >> 8).u8(v & 0xffU); }
  Writer& u32(std::uint32_t v) { return u16(v >> 16).u16(v & 0xffffU); }
  Writer& raw(std::initializer_list<unsigned> list) {
    for (const unsigned v : list) u8(v);
    return *this;
  }
  Writer& fill(std::size_t n, unsigned v) {
    for (std::size_t i = 0; i < n; ++i) u8(v);
    return *this;
  }
  Writer& text(const std::string& s) {
    for (const char c : s) u8(static_cast<unsigned char>(c));
    return *this;
  }
  [[nodiscard]] std::size_t size() const { return bytes.size(); }
  void put16(std::size_t at, unsigned v) {
    bytes[at] = static_cast<std::byte>(v >> 8);
    bytes[at + 1] = static_cast<std::byte>(v & 0xffU);
  }
};

// What a sample holds: for each view, the shortest prefix of the frame that has it whole (0:
// never), and the payload the whole frame gives.
struct Sample {
  std::string name;
  Bytes frame;
  std::size_t ethernet = 0, vlan0 = 0, vlan1 = 0, arp = 0, ipv4 = 0, ipv6 = 0, udp = 0, tcp = 0,
              icmp = 0, icmpv6 = 0;
  std::size_t payload_offset = 0, payload_size = 0;
  std::uint16_t ether_type = 0;
  std::uint8_t ip_protocol = 0;
};

inline Writer ethernet(unsigned type) {
  Writer w;
  w.raw({0x02, 0, 0, 0, 0, 0x0d, 0x02, 0, 0, 0, 0, 0x05}).u16(type);
  return w;
}

// IPv4, 10.0.0.5 -> 10.0.0.13, TTL 64, checksum 0 (the tests compute it), `options` words of
// options (NOPs then an end-of-list).
inline void ipv4(Writer& w, unsigned protocol, unsigned total_length, unsigned options = 0) {
  w.u8(0x40U | (5U + options)).u8(0).u16(total_length).u16(0x1234).u16(0x4000);
  w.u8(64).u8(protocol).u16(0).u32(0x0a000005).u32(0x0a00000d);
  for (unsigned i = 0; i < options; ++i) w.raw({1, 1, 1, i + 1 == options ? 0U : 1U});
}

// IPv6, 2001:db8::5 -> 2001:db8::d, hop limit 64.
inline void ipv6(Writer& w, unsigned next_header, unsigned payload_length) {
  w.u32(0x60012345).u16(payload_length).u8(next_header).u8(64);
  w.raw({0x20, 0x01, 0x0d, 0xb8}).fill(11, 0).u8(0x05);
  w.raw({0x20, 0x01, 0x0d, 0xb8}).fill(11, 0).u8(0x0d);
}

// Ethernet, IPv4, UDP 40000 -> 7777, "hello": 47 bytes, an odd length.
inline Sample udp4() {
  Writer w = ethernet(0x0800);
  ipv4(w, 17, 20 + 8 + 5);
  w.u16(40000).u16(7777).u16(8 + 5).u16(0).text("hello");
  return {.name = "udp4",
          .frame = w.bytes,
          .ethernet = 14,
          .ipv4 = 47,
          .udp = 47,
          .payload_offset = 42,
          .payload_size = 5,
          .ether_type = 0x0800,
          .ip_protocol = 17};
}

// 802.1ad 100 and 802.1Q 200 tags, IPv6 with hop-by-hop (8), routing (24) and destination
// options (16) headers, UDP 5353 -> 53 with 7 bytes; then 3 bytes of trailer past the datagram.
inline Sample udp6_tagged() {
  Writer w = ethernet(0x88a8);
  w.u16(0x2064).u16(0x8100).u16(200).u16(0x86dd);  // PCP 1, VID 100; VID 200
  const unsigned payload_length = 8 + 24 + 16 + 8 + 7;
  ipv6(w, 0, payload_length);
  w.raw({43, 0, 1, 4, 0, 0, 0, 0});                       // hop-by-hop: PadN
  w.raw({60, 2, 0, 0, 0, 0, 0, 0}).fill(16, 0);           // routing type 0, nothing left
  w.raw({17, 1, 1, 12}).fill(12, 0);                      // destination options: PadN
  w.u16(5353).u16(53).u16(8 + 7).u16(0).text("example");  // UDP
  w.raw({0xee, 0xee, 0xee});
  return {.name = "udp6_tagged",
          .frame = w.bytes,
          .ethernet = 14,
          .vlan0 = 18,
          .vlan1 = 22,
          .ipv6 = 22 + 40 + payload_length,
          .udp = 22 + 40 + payload_length,
          .payload_offset = 22 + 40 + 48 + 8,
          .payload_size = 7,
          .ether_type = 0x86dd,
          .ip_protocol = 17};
}

// IPv4 with 4 bytes of options, TCP 443 -> 51000 with 12 bytes of options (MSS, SACK-permitted,
// window scale), ACK|PSH, 3 bytes of data.
inline Sample tcp4_options() {
  Writer w = ethernet(0x0800);
  ipv4(w, 6, 24 + 32 + 3, 1);
  w.u16(443).u16(51000).u32(0x01020304).u32(0x0a0b0c0d).u8(8U << 4).u8(0x18).u16(64240);
  w.u16(0).u16(0);
  w.raw({2, 4, 0x05, 0xb4, 4, 2, 1, 3, 3, 7, 1, 0});
  w.text("abc");
  return {.name = "tcp4_options",
          .frame = w.bytes,
          .ethernet = 14,
          .ipv4 = 73,
          .tcp = 73,
          .payload_offset = 70,
          .payload_size = 3,
          .ether_type = 0x0800,
          .ip_protocol = 6};
}

// An ARP request for 10.0.0.13 from 10.0.0.5, padded to 60 bytes as on the wire.
inline Sample arp() {
  Writer w = ethernet(0x0806);
  w.u16(1).u16(0x0800).u8(6).u8(4).u16(1);
  w.raw({0x02, 0, 0, 0, 0, 0x05}).u32(0x0a000005).fill(6, 0).u32(0x0a00000d);
  w.fill(60 - w.size(), 0);
  return {.name = "arp",
          .frame = w.bytes,
          .ethernet = 14,
          .arp = 42,
          .payload_offset = 42,
          .payload_size = 0,
          .ether_type = 0x0806};
}

// An ICMP echo request with 4 bytes of data, padded to 60 bytes.
inline Sample icmp4() {
  Writer w = ethernet(0x0800);
  ipv4(w, 1, 20 + 8 + 4);
  w.u8(8).u8(0).u16(0).u16(0x4242).u16(7).text("ping");
  w.fill(60 - w.size(), 0);
  return {.name = "icmp4",
          .frame = w.bytes,
          .ethernet = 14,
          .ipv4 = 46,
          .icmp = 46,
          .payload_offset = 42,
          .payload_size = 4,
          .ether_type = 0x0800,
          .ip_protocol = 1};
}

// An ICMPv6 echo request with 5 bytes of data (an odd length).
inline Sample icmp6() {
  Writer w = ethernet(0x86dd);
  ipv6(w, 58, 8 + 5);
  w.u8(128).u8(0).u16(0).u16(0x4242).u16(9).text("ping6");
  return {.name = "icmp6",
          .frame = w.bytes,
          .ethernet = 14,
          .ipv6 = 67,
          .icmpv6 = 67,
          .payload_offset = 62,
          .payload_size = 5,
          .ether_type = 0x86dd,
          .ip_protocol = 58};
}

inline std::vector<Sample> samples() {
  return {udp4(), udp6_tagged(), tcp4_options(), arp(), icmp4(), icmp6()};
}

}  // namespace net_test
