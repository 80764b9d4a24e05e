// The frames txpush sends: Ethernet, an optional 802.1Q tag, IPv4 and UDP, with correct IPv4
// header and UDP checksums, padded with a byte pattern to the asked size.
#pragma once

#include <afxdp/net/mac_address.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>

namespace afxdp::tool {

using Mac = MacAddress;

struct UdpFrameSpec {
  Mac dst_mac{};
  Mac src_mac{};
  bool vlan = false;
  std::uint16_t vlan_id = 0;
  std::uint8_t vlan_priority = 0;
  std::uint32_t src_ip = 0;  // host byte order
  std::uint32_t dst_ip = 0;
  std::uint16_t src_port = 0;
  std::uint16_t dst_port = 0;
  std::uint32_t size = 64;  // the whole frame, Ethernet header included, no FCS
};

// Bytes of headers before the UDP payload.
std::uint32_t udp_frame_headers(bool vlan);

// Writes the frame into `out` (at least spec.size bytes; spec.size >= the headers) and returns
// its length.
std::uint32_t build_udp_frame(const UdpFrameSpec& spec, std::span<std::uint8_t> out);

}  // namespace afxdp::tool
