#include "common/packet.hpp"

#include <afxdp/net/checksum.hpp>

#include <cstring>

namespace afxdp::tool {
namespace {

void put16(std::uint8_t* p, std::uint32_t value) {
  p[0] = static_cast<std::uint8_t>(value >> 8);
  p[1] = static_cast<std::uint8_t>(value);
}

void put32(std::uint8_t* p, std::uint32_t value) {
  put16(p, value >> 16);
  put16(p + 2, value & 0xFFFF);
}

// The library's Internet checksum (RFC 1071), over the tool's byte type.
std::uint16_t internet_checksum(std::span<const std::uint8_t> bytes, std::uint32_t initial = 0) {
  return net::internet_checksum(std::as_bytes(bytes), initial);
}

}  // namespace

std::uint32_t udp_frame_headers(bool vlan) { return 14U + (vlan ? 4U : 0U) + 20U + 8U; }

std::uint32_t build_udp_frame(const UdpFrameSpec& spec, std::span<std::uint8_t> out) {
  std::uint8_t* p = out.data();
  std::memcpy(p, spec.dst_mac.data(), 6);
  std::memcpy(p + 6, spec.src_mac.data(), 6);
  std::uint32_t at = 12;
  if (spec.vlan) {
    put16(p + at, 0x8100);
    put16(p + at + 2, std::uint32_t{spec.vlan_priority} << 13 | (spec.vlan_id & 0x0FFFU));
    at += 4;
  }
  put16(p + at, 0x0800);
  at += 2;

  const std::uint32_t ip_length = spec.size - at;
  const std::uint32_t udp_length = ip_length - 20;
  std::uint8_t* ip = p + at;
  ip[0] = 0x45;  // version 4, 5 words of header
  ip[1] = 0;     // DSCP/ECN
  put16(ip + 2, ip_length);
  put16(ip + 4, 0);       // identification
  put16(ip + 6, 0x4000);  // don't fragment
  ip[8] = 64;             // TTL
  ip[9] = 17;             // UDP
  put16(ip + 10, 0);      // checksum, computed below
  put32(ip + 12, spec.src_ip);
  put32(ip + 16, spec.dst_ip);
  put16(ip + 10, internet_checksum({ip, 20}));

  std::uint8_t* udp = ip + 20;
  put16(udp, spec.src_port);
  put16(udp + 2, spec.dst_port);
  put16(udp + 4, udp_length);
  put16(udp + 6, 0);
  for (std::uint32_t i = 8; i < udp_length; ++i) udp[i] = static_cast<std::uint8_t>(i);
  // The pseudo-header: addresses, protocol and UDP length, summed into the UDP checksum.
  std::uint32_t pseudo = (spec.src_ip >> 16) + (spec.src_ip & 0xFFFF) + (spec.dst_ip >> 16) +
                         (spec.dst_ip & 0xFFFF) + 17 + udp_length;
  std::uint16_t checksum = internet_checksum({udp, udp_length}, pseudo);
  if (checksum == 0) checksum = 0xFFFF;  // 0 would mean "no checksum" (RFC 768)
  put16(udp + 6, checksum);
  return spec.size;
}

}  // namespace afxdp::tool
