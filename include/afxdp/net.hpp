// Packets: parse() a frame into bounds-checked header views, swap_endpoints() to answer it
// (swap_macs() for an l2fwd-style answer), update_checksums() before sending, resize_payload()
// to answer with another length. No allocation, no exception, never a read or write past the
// frame (docs/api.md, "Packets"). load_be16/32 and store_be16/32 read and write big-endian
// fields of a payload of your own, bounds-checked.
//
//   afxdp::net::Headers h = afxdp::net::parse(frame.data());
//   if (!h.udp || h.udp.destination_port() != 7777) return afxdp::Verdict::drop;
//   if (!afxdp::net::may_answer(h)) return afxdp::Verdict::drop;  // a group, a loop
//   if (!afxdp::net::addressed_to(h, me)) return afxdp::Verdict::drop;  // interface_addresses()
//   afxdp::net::swap_endpoints(h);
//   afxdp::net::update_checksums(h);
//   return afxdp::Verdict::send_back;
//
// Threading: the functions touch only the frame they are given.
#pragma once

#include <afxdp/frame.hpp>
#include <afxdp/net/bytes.hpp>
#include <afxdp/net/checksum.hpp>
#include <afxdp/net/headers.hpp>
#include <afxdp/net/parse.hpp>
#include <afxdp/xsk/interface.hpp>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>

namespace afxdp::net {

namespace detail {
// Swaps N bytes at a with N bytes at b (not overlapping): whole loads and stores, not N byte moves.
template <std::size_t N>
inline void swap_bytes(std::byte* a, std::byte* b) noexcept {
  std::array<std::byte, N> t;  // NOLINT(cppcoreguidelines-pro-type-member-init): written next
  std::memcpy(t.data(), a, N);
  std::memcpy(a, b, N);
  std::memcpy(b, t.data(), N);
}
}  // namespace detail

// Swaps a frame's Ethernet destination and source addresses, l2fwd's answer; false, and nothing
// changed, when the frame is shorter than an Ethernet header.
inline bool swap_macs(std::span<std::byte> frame) noexcept {
  if (frame.size() < 14) return false;
  detail::swap_bytes<6>(frame.data(), frame.data() + 6);
  return true;
}

// Swaps source and destination: the Ethernet addresses, the IPv4 or IPv6 addresses, the UDP or
// TCP ports; an ARP header is left alone. The checksums stay as valid as they were (the sums
// do not depend on the order), but see update_checksums(): what arrives may not be valid.
inline void swap_endpoints(Headers& h) noexcept {
  using detail::swap_bytes;
  if (h.ethernet) swap_bytes<6>(h.ethernet.data(), h.ethernet.data() + 6);
  if (h.ipv4) {
    swap_bytes<4>(h.ipv4.data() + 12, h.ipv4.data() + 16);
  } else if (h.ipv6) {
    swap_bytes<16>(h.ipv6.data() + 8, h.ipv6.data() + 24);
  }
  if (h.udp) {
    swap_bytes<2>(h.udp.data(), h.udp.data() + 2);
  } else if (h.tcp) {
    swap_bytes<2>(h.tcp.data(), h.tcp.data() + 2);
  }
}

// Was `h` sent to this interface itself: to its MAC and to one of its IP addresses
// (afxdp::interface_addresses, read at set-up)? False for a group or broadcast address, a
// subnet's broadcast (198.18.0.255 to a host that is 198.18.0.1) and another host's frame that the
// interface took in promiscuous mode; false without an IP header. A service answers only these.
[[nodiscard]] inline bool addressed_to(const Headers& h, const InterfaceAddresses& me) noexcept {
  if (!h.ethernet || h.ethernet.destination() != me.mac) return false;
  if (h.ipv4) {
    return std::find(me.ipv4.begin(), me.ipv4.end(), h.ipv4.destination()) != me.ipv4.end();
  }
  if (h.ipv6) {
    return std::find(me.ipv6.begin(), me.ipv6.end(), h.ipv6.destination()) != me.ipv6.end();
  }
  return false;
}

// What may_answer() lets through beyond what it always refuses.
struct AnswerPolicy {
  // Source ports below this are refused: a service's port (echo 7, chargen 19, DNS 53, ...)
  // could be another service that answers the answer, for ever. A service whose protocol tells
  // a question from an answer and never answers an answer lowers it: a DNS server answers
  // resolvers that query from port 53 with {.lowest_source_port = 0} (and drops responses, QR=1).
  std::uint16_t lowest_source_port = 1024;
};

// Whether a service may answer `h` by sending it back (swap_endpoints): false where the answer
// could start a loop or reflect onto a third party. Always refused: a group (multicast or
// broadcast) destination, Ethernet or IP (RFC 1122: a host does not answer those with an echo or
// an error; every host on the link would); a group source, Ethernet or IP; an unspecified,
// loopback or IPv4 broadcast source; a source equal to the destination (a datagram spoofed from
// the service's own address); no IP header. And, as `policy` says, a UDP or TCP source port
// below policy.lowest_source_port (1024 unless lowered).
[[nodiscard]] inline bool may_answer(const Headers& h, AnswerPolicy policy = {}) noexcept {
  if (!h.ethernet) return false;
  // The group bit: multicast, and broadcast (ff:ff:ff:ff:ff:ff) with it.
  if ((h.ethernet.source()[0] & 1U) != 0 || (h.ethernet.destination()[0] & 1U) != 0) return false;
  const std::uint16_t port = h.udp   ? h.udp.source_port()
                             : h.tcp ? h.tcp.source_port()
                                     : std::uint16_t{0xffff};
  if (port < policy.lowest_source_port) return false;
  if (h.ipv4) {
    const auto group = [](std::uint32_t a) {
      return (a >> 28) == 0xe || a == 0xffffffffU;  // 224/4, limited broadcast
    };
    const std::uint32_t source = h.ipv4.source();
    const std::uint32_t destination = h.ipv4.destination();
    const bool local = source == 0 || (source >> 24) == 127;
    return !group(source) && !group(destination) && !local && source != destination;
  }
  if (h.ipv6) {
    const Ipv6Address source = h.ipv6.source();
    const Ipv6Address destination = h.ipv6.destination();
    static constexpr Ipv6Address unspecified{},
        loopback{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
    return source[0] != 0xff && destination[0] != 0xff && source != unspecified &&
           source != loopback && source != destination;
  }
  return false;
}

// Makes the payload `size` bytes long: the frame is resized to end with it, IPv4's total length
// or IPv6's payload length and UDP's length follow, and h.payload (h.frame) with them. `h` must
// be parse(frame.data()) of this frame, with an IPv4 or IPv6 header, an L4 header parse() found
// (UDP, TCP, ICMP, ICMPv6) and not a fragment. False, and nothing changed, when that is not so
// or the frame's capacity or a length field is too small. Without an L4 view the payload is not
// known to be one: a TCP header cut off by the IP length, an extension chain cut short would be
// made whole out of payload bytes and read differently by the receiver. The checksums are not
// updated: call update_checksums() after writing the payload.
inline bool resize_payload(Frame& frame, Headers& h, std::size_t size) noexcept {
  std::byte* const base = frame.data().data();
  if (h.frame.data() != base || h.fragment || (!h.ipv4 && !h.ipv6)) return false;
  if (!h.udp && !h.tcp && !h.icmp && !h.icmpv6) return false;
  const auto start = static_cast<std::size_t>(h.payload.data() - base);
  if (size > frame.capacity() - start) return false;
  const std::size_t end = start + size;
  const std::size_t ip_length =
      h.ipv4 ? end - static_cast<std::size_t>(h.ipv4.data() - base)
             : end - static_cast<std::size_t>(h.ipv6.data() - base) - Ipv6::min_size;
  const std::size_t udp_length = h.udp ? end - static_cast<std::size_t>(h.udp.data() - base) : 0;
  if (ip_length > 0xffff || udp_length > 0xffff) return false;
  if (h.ipv4) h.ipv4.set_total_length(static_cast<std::uint16_t>(ip_length));
  if (h.ipv6) h.ipv6.set_payload_length(static_cast<std::uint16_t>(ip_length));
  if (h.udp) h.udp.set_length(static_cast<std::uint16_t>(udp_length));
  frame.resize(static_cast<std::uint32_t>(end));
  h.frame = frame.data();
  h.payload = {h.payload.data(), size};
  return true;
}

}  // namespace afxdp::net
