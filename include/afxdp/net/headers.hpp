// Views of the headers of one frame: each holds a pointer into the frame and its header's length,
// reads big-endian fields byte by byte (no unaligned access) and writes them in place. A view is
// null (false) when parse() found its header absent, truncated or malformed; reading or writing
// a null view is a precondition violation, so test it first: `if (h.udp) ...`.
//
// Threading: a view is as good as the frame it points into (one Queue's thread, during the call).
#pragma once

#include <afxdp/net/bytes.hpp>
#include <afxdp/net/mac_address.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>

namespace afxdp::net {

using Ipv6Address = std::array<std::uint8_t, 16>;

// EtherTypes and IP protocol numbers parse() knows.
inline constexpr std::uint16_t ether_type_ipv4 = 0x0800;
inline constexpr std::uint16_t ether_type_arp = 0x0806;
inline constexpr std::uint16_t ether_type_vlan = 0x8100;  // 802.1Q
inline constexpr std::uint16_t ether_type_qinq = 0x88a8;  // 802.1ad, the outer (service) tag
inline constexpr std::uint16_t ether_type_ipv6 = 0x86dd;
inline constexpr std::uint8_t ip_protocol_icmp = 1;
inline constexpr std::uint8_t ip_protocol_tcp = 6;
inline constexpr std::uint8_t ip_protocol_udp = 17;
inline constexpr std::uint8_t ip_protocol_icmpv6 = 58;

// What every view has: where its header is, how long it is, and whether parse() found it.
class HeaderView {
 public:
  HeaderView() = default;
  // `size` bytes of this header at `data`; parse() is the usual maker.
  HeaderView(std::byte* data, std::size_t size) noexcept
      : data_(data), size_(static_cast<std::uint32_t>(size)) {}

  explicit operator bool() const noexcept { return data_ != nullptr; }
  [[nodiscard]] std::byte* data() const noexcept { return data_; }
  // The header's length, options included.
  [[nodiscard]] std::size_t size() const noexcept { return size_; }
  [[nodiscard]] std::span<std::byte> bytes() const noexcept { return {data_, size_}; }

 protected:
  [[nodiscard]] std::uint8_t u8(std::size_t at) const noexcept { return detail::load8(data_ + at); }
  [[nodiscard]] std::uint16_t u16(std::size_t at) const noexcept {
    return detail::load16(data_ + at);
  }
  [[nodiscard]] std::uint32_t u32(std::size_t at) const noexcept {
    return detail::load32(data_ + at);
  }
  void set8(std::size_t at, std::uint8_t v) const noexcept { detail::store8(data_ + at, v); }
  void set16(std::size_t at, std::uint16_t v) const noexcept { detail::store16(data_ + at, v); }
  void set32(std::size_t at, std::uint32_t v) const noexcept { detail::store32(data_ + at, v); }
  [[nodiscard]] MacAddress mac(std::size_t at) const noexcept {
    MacAddress m;
    std::memcpy(m.data(), data_ + at, m.size());
    return m;
  }
  void set_mac(std::size_t at, const MacAddress& m) const noexcept {
    std::memcpy(data_ + at, m.data(), m.size());
  }

 private:
  std::byte* data_ = nullptr;
  std::uint32_t size_ = 0;
};

// Ethernet II: destination, source, EtherType (the outer tag's TPID when the frame is tagged).
class Ethernet : public HeaderView {
 public:
  using HeaderView::HeaderView;
  static constexpr std::size_t min_size = 14;
  [[nodiscard]] MacAddress destination() const noexcept { return mac(0); }
  [[nodiscard]] MacAddress source() const noexcept { return mac(6); }
  [[nodiscard]] std::uint16_t ether_type() const noexcept { return u16(12); }
  void set_destination(const MacAddress& m) const noexcept { set_mac(0, m); }
  void set_source(const MacAddress& m) const noexcept { set_mac(6, m); }
  void set_ether_type(std::uint16_t t) const noexcept { set16(12, t); }
};

// One VLAN tag after its TPID (as Linux's struct vlan_hdr): the TCI, then the EtherType of what
// follows (the inner tag's TPID for a double-tagged frame).
class Vlan : public HeaderView {
 public:
  using HeaderView::HeaderView;
  static constexpr std::size_t min_size = 4;
  [[nodiscard]] std::uint16_t tci() const noexcept { return u16(0); }
  [[nodiscard]] std::uint16_t id() const noexcept { return tci() & 0x0fffU; }
  [[nodiscard]] std::uint8_t priority() const noexcept {
    return static_cast<std::uint8_t>(u8(0) >> 5);
  }
  [[nodiscard]] bool drop_eligible() const noexcept { return (u8(0) & 0x10U) != 0; }
  [[nodiscard]] std::uint16_t ether_type() const noexcept { return u16(2); }
  void set_tci(std::uint16_t tci) const noexcept { set16(0, tci); }
  void set_id(std::uint16_t id) const noexcept {
    set_tci(static_cast<std::uint16_t>((tci() & 0xf000U) | (id & 0x0fffU)));
  }
  void set_ether_type(std::uint16_t t) const noexcept { set16(2, t); }
};

// ARP for IPv4 over Ethernet (hardware type 1, protocol 0x0800, lengths 6 and 4), the only kind
// parse() gives.
class Arp : public HeaderView {
 public:
  using HeaderView::HeaderView;
  static constexpr std::size_t min_size = 28;
  static constexpr std::uint16_t request = 1;
  static constexpr std::uint16_t reply = 2;
  [[nodiscard]] std::uint16_t operation() const noexcept { return u16(6); }
  [[nodiscard]] MacAddress sender_mac() const noexcept { return mac(8); }
  [[nodiscard]] std::uint32_t sender_ip() const noexcept { return u32(14); }
  [[nodiscard]] MacAddress target_mac() const noexcept { return mac(18); }
  [[nodiscard]] std::uint32_t target_ip() const noexcept { return u32(24); }
  void set_operation(std::uint16_t op) const noexcept { set16(6, op); }
  void set_sender_mac(const MacAddress& m) const noexcept { set_mac(8, m); }
  void set_sender_ip(std::uint32_t ip) const noexcept { set32(14, ip); }
  void set_target_mac(const MacAddress& m) const noexcept { set_mac(18, m); }
  void set_target_ip(std::uint32_t ip) const noexcept { set32(24, ip); }
};

// IPv4, options included in size(); addresses in host byte order (10.0.0.1 is 0x0a000001).
class Ipv4 : public HeaderView {
 public:
  using HeaderView::HeaderView;
  static constexpr std::size_t min_size = 20;
  [[nodiscard]] std::uint8_t version() const noexcept {
    return static_cast<std::uint8_t>(u8(0) >> 4);
  }
  // IHL in bytes, as the header says (parse() checked it against the frame: it is size()).
  [[nodiscard]] std::size_t header_length() const noexcept {
    return std::size_t{u8(0) & 0x0fU} * 4;
  }
  [[nodiscard]] std::uint8_t tos() const noexcept { return u8(1); }
  [[nodiscard]] std::uint16_t total_length() const noexcept { return u16(2); }
  [[nodiscard]] std::uint16_t identification() const noexcept { return u16(4); }
  [[nodiscard]] bool dont_fragment() const noexcept { return (u8(6) & 0x40U) != 0; }
  [[nodiscard]] bool more_fragments() const noexcept { return (u8(6) & 0x20U) != 0; }
  // In units of 8 bytes.
  [[nodiscard]] std::uint16_t fragment_offset() const noexcept { return u16(6) & 0x1fffU; }
  [[nodiscard]] std::uint8_t ttl() const noexcept { return u8(8); }
  [[nodiscard]] std::uint8_t protocol() const noexcept { return u8(9); }
  [[nodiscard]] std::uint16_t checksum() const noexcept { return u16(10); }
  [[nodiscard]] std::uint32_t source() const noexcept { return u32(12); }
  [[nodiscard]] std::uint32_t destination() const noexcept { return u32(16); }
  [[nodiscard]] std::span<std::byte> options() const noexcept { return bytes().subspan(20); }
  void set_tos(std::uint8_t v) const noexcept { set8(1, v); }
  void set_total_length(std::uint16_t v) const noexcept { set16(2, v); }
  void set_identification(std::uint16_t v) const noexcept { set16(4, v); }
  void set_ttl(std::uint8_t v) const noexcept { set8(8, v); }
  void set_protocol(std::uint8_t v) const noexcept { set8(9, v); }
  void set_checksum(std::uint16_t v) const noexcept { set16(10, v); }
  void set_source(std::uint32_t ip) const noexcept { set32(12, ip); }
  void set_destination(std::uint32_t ip) const noexcept { set32(16, ip); }
};

// The fixed IPv6 header (40 bytes); extension headers are skipped by parse(), not viewed.
class Ipv6 : public HeaderView {
 public:
  using HeaderView::HeaderView;
  static constexpr std::size_t min_size = 40;
  [[nodiscard]] std::uint8_t version() const noexcept {
    return static_cast<std::uint8_t>(u8(0) >> 4);
  }
  [[nodiscard]] std::uint8_t traffic_class() const noexcept {
    return static_cast<std::uint8_t>(u16(0) >> 4);
  }
  [[nodiscard]] std::uint32_t flow_label() const noexcept { return u32(0) & 0xfffffU; }
  [[nodiscard]] std::uint16_t payload_length() const noexcept { return u16(4); }
  [[nodiscard]] std::uint8_t next_header() const noexcept { return u8(6); }
  [[nodiscard]] std::uint8_t hop_limit() const noexcept { return u8(7); }
  [[nodiscard]] Ipv6Address source() const noexcept { return address(8); }
  [[nodiscard]] Ipv6Address destination() const noexcept { return address(24); }
  void set_traffic_class(std::uint8_t v) const noexcept {
    set16(0, static_cast<std::uint16_t>((u16(0) & 0xf00fU) | (unsigned{v} << 4)));
  }
  void set_payload_length(std::uint16_t v) const noexcept { set16(4, v); }
  void set_next_header(std::uint8_t v) const noexcept { set8(6, v); }
  void set_hop_limit(std::uint8_t v) const noexcept { set8(7, v); }
  void set_source(const Ipv6Address& a) const noexcept { std::memcpy(data() + 8, a.data(), 16); }
  void set_destination(const Ipv6Address& a) const noexcept {
    std::memcpy(data() + 24, a.data(), 16);
  }

 private:
  [[nodiscard]] Ipv6Address address(std::size_t at) const noexcept {
    Ipv6Address a;
    std::memcpy(a.data(), data() + at, a.size());
    return a;
  }
};

class Udp : public HeaderView {
 public:
  using HeaderView::HeaderView;
  static constexpr std::size_t min_size = 8;
  [[nodiscard]] std::uint16_t source_port() const noexcept { return u16(0); }
  [[nodiscard]] std::uint16_t destination_port() const noexcept { return u16(2); }
  // Header and payload, as the header says (parse() checked it unless the datagram is a fragment).
  [[nodiscard]] std::uint16_t length() const noexcept { return u16(4); }
  [[nodiscard]] std::uint16_t checksum() const noexcept { return u16(6); }
  void set_source_port(std::uint16_t v) const noexcept { set16(0, v); }
  void set_destination_port(std::uint16_t v) const noexcept { set16(2, v); }
  void set_length(std::uint16_t v) const noexcept { set16(4, v); }
  void set_checksum(std::uint16_t v) const noexcept { set16(6, v); }
};

// TCP, options included in size().
class Tcp : public HeaderView {
 public:
  using HeaderView::HeaderView;
  static constexpr std::size_t min_size = 20;
  static constexpr std::uint8_t fin = 0x01, syn = 0x02, rst = 0x04, psh = 0x08, ack = 0x10,
                                urg = 0x20, ece = 0x40, cwr = 0x80;
  [[nodiscard]] std::uint16_t source_port() const noexcept { return u16(0); }
  [[nodiscard]] std::uint16_t destination_port() const noexcept { return u16(2); }
  [[nodiscard]] std::uint32_t sequence() const noexcept { return u32(4); }
  [[nodiscard]] std::uint32_t acknowledgment() const noexcept { return u32(8); }
  // The data offset in bytes, as the header says (parse() checked it: it is size()).
  [[nodiscard]] std::size_t header_length() const noexcept {
    return (std::size_t{u8(12)} >> 4) * 4;
  }
  [[nodiscard]] std::uint8_t flags() const noexcept { return u8(13); }
  [[nodiscard]] std::uint16_t window() const noexcept { return u16(14); }
  [[nodiscard]] std::uint16_t checksum() const noexcept { return u16(16); }
  [[nodiscard]] std::uint16_t urgent_pointer() const noexcept { return u16(18); }
  [[nodiscard]] std::span<std::byte> options() const noexcept { return bytes().subspan(20); }
  void set_source_port(std::uint16_t v) const noexcept { set16(0, v); }
  void set_destination_port(std::uint16_t v) const noexcept { set16(2, v); }
  void set_sequence(std::uint32_t v) const noexcept { set32(4, v); }
  void set_acknowledgment(std::uint32_t v) const noexcept { set32(8, v); }
  void set_flags(std::uint8_t v) const noexcept { set8(13, v); }
  void set_window(std::uint16_t v) const noexcept { set16(14, v); }
  void set_checksum(std::uint16_t v) const noexcept { set16(16, v); }
};

// ICMP and ICMPv6 share a shape: type, code, checksum, four bytes whose meaning the type gives
// (identifier and sequence for echo).
class Icmp : public HeaderView {
 public:
  using HeaderView::HeaderView;
  static constexpr std::size_t min_size = 8;
  [[nodiscard]] std::uint8_t type() const noexcept { return u8(0); }
  [[nodiscard]] std::uint8_t code() const noexcept { return u8(1); }
  [[nodiscard]] std::uint16_t checksum() const noexcept { return u16(2); }
  [[nodiscard]] std::uint16_t identifier() const noexcept { return u16(4); }
  [[nodiscard]] std::uint16_t sequence() const noexcept { return u16(6); }
  void set_type(std::uint8_t v) const noexcept { set8(0, v); }
  void set_code(std::uint8_t v) const noexcept { set8(1, v); }
  void set_checksum(std::uint16_t v) const noexcept { set16(2, v); }
};

// What parse() found in one frame. Every view lies inside `frame`; at most one of arp, ipv4 and
// ipv6, and at most one of udp, tcp, icmp and icmpv6, is set.
struct Headers {
  std::span<std::byte> frame;  // what was parsed
  Ethernet ethernet;
  std::array<Vlan, 2> vlans;     // outer first; a null one when the frame has fewer tags
  std::uint16_t ether_type = 0;  // after the tags: the EtherType of what follows them
  Arp arp;
  Ipv4 ipv4;
  Ipv6 ipv6;
  // IPv4's protocol, or the Next Header after IPv6's extension headers (of the last one skipped
  // when a further one is truncated); meaningful when ipv4 or ipv6 is set.
  std::uint8_t ip_protocol = 0;
  // The datagram is a fragment: L4 views only on the first one, and update_checksums() leaves
  // its L4 checksum alone (it covers the whole datagram).
  bool fragment = false;
  Udp udp;
  Tcp tcp;
  Icmp icmp;
  Icmp icmpv6;
  // What follows the last header found whole, up to the end of the datagram as its length fields
  // say (so no Ethernet padding): UDP's payload by its length, TCP's after its options, ...
  std::span<std::byte> payload;
};

}  // namespace afxdp::net
