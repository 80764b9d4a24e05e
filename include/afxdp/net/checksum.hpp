// The Internet checksum (RFC 1071): a full computation over bytes, the whole of a frame's
// checksums at once (update_checksums), and the incremental update of RFC 1624 for code that
// rewrites one field. Values are as the header holds them (host order of the big-endian field).
#pragma once

#include <afxdp/net/headers.hpp>

#include <cstddef>
#include <cstdint>
#include <span>

namespace afxdp::net {

// The one's-complement sum of `bytes` as big-endian 16-bit words (an odd last byte padded with a
// zero), added to `initial` (a partial sum, e.g. of a pseudo-header), folded to 16 bits.
[[nodiscard]] std::uint16_t ones_complement_sum(std::span<const std::byte> bytes,
                                                std::uint32_t initial = 0) noexcept;

// The checksum field's value for `bytes` (with the field itself zero) plus `initial`: the
// complement of their sum.
[[nodiscard]] inline std::uint16_t internet_checksum(std::span<const std::byte> bytes,
                                                     std::uint32_t initial = 0) noexcept {
  return static_cast<std::uint16_t>(~ones_complement_sum(bytes, initial));
}

// RFC 1624 eqn. 3, HC' = ~(~HC + ~m + m'): the checksum after one 16-bit field covered by it went
// from `old_value` to `new_value`. Equal to a full recomputation. A UDP checksum needs one more
// step: a result of 0 is sent as 0xffff, and a 0 received over IPv4 means "none" and stays 0.
[[nodiscard]] constexpr std::uint16_t checksum_update(std::uint16_t checksum,
                                                      std::uint16_t old_value,
                                                      std::uint16_t new_value) noexcept {
  std::uint32_t sum = (~checksum & 0xffffU) + (~old_value & 0xffffU) + new_value;
  sum = (sum & 0xffffU) + (sum >> 16);
  sum = (sum & 0xffffU) + (sum >> 16);
  return static_cast<std::uint16_t>(~sum);
}

// The same for a 32-bit field (an IPv4 address, in host order as Ipv4::source() gives it).
[[nodiscard]] constexpr std::uint16_t checksum_update32(std::uint16_t checksum,
                                                        std::uint32_t old_value,
                                                        std::uint32_t new_value) noexcept {
  checksum = checksum_update(checksum, static_cast<std::uint16_t>(old_value >> 16),
                             static_cast<std::uint16_t>(new_value >> 16));
  return checksum_update(checksum, static_cast<std::uint16_t>(old_value),
                         static_cast<std::uint16_t>(new_value));
}

// Recomputes, from the bytes, every checksum of the frame that parse() found: the IPv4 header's,
// and (unless the datagram is a fragment) UDP's or TCP's over the IPv4 or IPv6 pseudo-header,
// ICMP's, ICMPv6's. A UDP result of 0 is written as 0xffff. Full sums, not updates, so a frame
// whose checksum field held an offload's partial sum comes out right.
void update_checksums(Headers& headers) noexcept;

// True when every checksum update_checksums() would write verifies as it is (a UDP checksum of
// 0 over IPv4, "none", verifies).
[[nodiscard]] bool verify_checksums(const Headers& headers) noexcept;

}  // namespace afxdp::net
