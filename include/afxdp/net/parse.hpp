// parse(): the headers of one Ethernet frame, every length field checked against the bytes there
// are before a view is made. Inline, an if-chain per layer, no allocation, no exception.
#pragma once

#include <afxdp/net/headers.hpp>

#include <cstddef>
#include <cstdint>
#include <span>

namespace afxdp::net {
namespace detail {

// The bytes [at, end) of the frame still to parse.
struct Cursor {
  std::byte* base;
  std::size_t at;
  std::size_t end;
  [[nodiscard]] std::byte* here() const noexcept { return base + at; }
  [[nodiscard]] std::size_t left() const noexcept { return end - at; }
  [[nodiscard]] std::span<std::byte> rest() const noexcept { return {base + at, end - at}; }
};

// UDP, TCP, ICMP or ICMPv6 at c, the rest of the datagram; the payload follows a whole header.
inline void parse_l4(Headers& h, Cursor c, bool ipv6) noexcept {
  std::byte* p = c.here();
  if (h.ip_protocol == ip_protocol_udp) {
    if (c.left() < Udp::min_size) return;
    if (!h.fragment) {  // a first fragment's length is the whole datagram's
      const std::size_t length = load16(p + 4);
      if (length < Udp::min_size || length > c.left()) return;
      c.end = c.at + length;
    }
    h.udp = Udp(p, Udp::min_size);
    c.at += Udp::min_size;
  } else if (h.ip_protocol == ip_protocol_tcp) {
    if (c.left() < Tcp::min_size) return;
    const std::size_t length = (std::size_t{load8(p + 12)} >> 4) * 4;
    if (length < Tcp::min_size || length > c.left()) return;
    h.tcp = Tcp(p, length);
    c.at += length;
  } else if (h.ip_protocol == (ipv6 ? ip_protocol_icmpv6 : ip_protocol_icmp)) {
    if (c.left() < Icmp::min_size) return;
    (ipv6 ? h.icmpv6 : h.icmp) = Icmp(p, Icmp::min_size);
    c.at += Icmp::min_size;
  } else {
    return;
  }
  h.payload = c.rest();
}

inline void parse_ipv4(Headers& h, Cursor c) noexcept {
  std::byte* p = c.here();
  if (c.left() < Ipv4::min_size || load8(p) >> 4 != 4) return;
  const std::size_t header = std::size_t{load8(p) & 0x0fU} * 4;
  const std::size_t total = load16(p + 2);
  if (header < Ipv4::min_size || total < header || total > c.left()) return;
  h.ipv4 = Ipv4(p, header);
  h.ip_protocol = load8(p + 9);
  const std::uint16_t fragment = load16(p + 6);
  h.fragment = (fragment & 0x3fffU) != 0;  // more fragments, or an offset
  c.end = c.at + total;
  c.at += header;
  h.payload = c.rest();
  if ((fragment & 0x1fffU) == 0) parse_l4(h, c, false);
}

// Skips IPv6 extension headers from c.at on (next: the one there); false when one is truncated
// or the datagram is a later fragment, which carries no L4 header.
inline bool skip_ipv6_extensions(Headers& h, Cursor& c, std::uint8_t& next) noexcept {
  // Hop-by-hop (0), routing (43), destination options (60) share a shape: a bit each, so that
  // the test is a shift, never a jump table (no indirect jump per packet).
  constexpr std::uint64_t options_shaped = 1ULL << 0 | 1ULL << 43 | 1ULL << 60;
  constexpr std::uint8_t fragment = 44;
  for (int i = 0; i < 8; ++i) {  // a bound on the work; a real chain has two or three
    std::byte* p = c.here();
    std::size_t length = 8;
    bool later_fragment = false;
    if (next < 64 && ((options_shaped >> next) & 1U) != 0) {
      if (c.left() < 8) return false;
      length = (std::size_t{load8(p + 1)} + 1) * 8;
      if (length > c.left()) return false;
    } else if (next == fragment) {
      if (c.left() < 8) return false;
      h.fragment = true;
      later_fragment = (load16(p + 2) & 0xfff8U) != 0;  // an offset: no L4 header here
    } else {
      return true;
    }
    next = load8(p);
    c.at += length;
    h.ip_protocol = next;
    h.payload = c.rest();
    if (later_fragment) return false;
  }
  return false;
}

inline void parse_ipv6(Headers& h, Cursor c) noexcept {
  std::byte* p = c.here();
  if (c.left() < Ipv6::min_size || load8(p) >> 4 != 6) return;
  const std::size_t length = load16(p + 4);
  if (length > c.left() - Ipv6::min_size) return;
  h.ipv6 = Ipv6(p, Ipv6::min_size);
  std::uint8_t next = load8(p + 6);
  h.ip_protocol = next;
  c.at += Ipv6::min_size;
  c.end = c.at + length;
  h.payload = c.rest();
  if (skip_ipv6_extensions(h, c, next)) parse_l4(h, c, true);
}

inline void parse_arp(Headers& h, Cursor c) noexcept {
  std::byte* p = c.here();
  if (c.left() < Arp::min_size) return;
  // Ethernet hardware, IPv4 protocol, 6- and 4-byte addresses: the only ARP Arp's fields fit.
  if (load16(p) != 1 || load16(p + 2) != ether_type_ipv4 || load8(p + 4) != 6 ||
      load8(p + 5) != 4) {
    return;
  }
  h.arp = Arp(p, Arp::min_size);
  c.at += Arp::min_size;
  h.payload = {c.here(), 0};  // what follows is padding
}

}  // namespace detail

// The headers of the Ethernet frame `frame`: see Headers. Never reads outside `frame`.
[[nodiscard]] inline Headers parse(std::span<std::byte> frame) noexcept {
  Headers h;
  h.frame = frame;
  h.payload = frame;
  detail::Cursor c{frame.data(), 0, frame.size()};
  if (c.left() < Ethernet::min_size) return h;
  h.ethernet = Ethernet(c.here(), Ethernet::min_size);
  std::uint16_t type = detail::load16(c.here() + 12);
  c.at += Ethernet::min_size;
  for (Vlan& tag : h.vlans) {
    if (type != ether_type_vlan && type != ether_type_qinq) break;
    if (c.left() < Vlan::min_size) {
      h.payload = c.rest();
      return h;
    }
    tag = Vlan(c.here(), Vlan::min_size);
    type = detail::load16(c.here() + 2);
    c.at += Vlan::min_size;
  }
  h.ether_type = type;
  h.payload = c.rest();
  if (type == ether_type_ipv4) {
    detail::parse_ipv4(h, c);
  } else if (type == ether_type_ipv6) {
    detail::parse_ipv6(h, c);
  } else if (type == ether_type_arp) {
    detail::parse_arp(h, c);
  }
  return h;
}

}  // namespace afxdp::net
