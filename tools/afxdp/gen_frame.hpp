// The one frame `afxdp gen` repeats: Ethernet / IPv4 / UDP with correct checksums, the payload
// a counting pattern. Pure code (no syscalls), so unit tests check it against their own sums.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace afxdp::tool {

using MacAddress = std::array<std::uint8_t, 6>;

struct UdpFrameSpec {
  std::size_t size = 64;  // the whole frame without FCS: 14 + 20 + 8 + payload
  MacAddress dst_mac{0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
  MacAddress src_mac{};
  std::uint32_t src_ip = 0;  // host order
  std::uint32_t dst_ip = 0;  // host order
  std::uint16_t src_port = 0;
  std::uint16_t dst_port = 0;
};

inline constexpr std::size_t udp_frame_headers = 14 + 20 + 8;

// "aa:bb:cc:dd:ee:ff" (hex, either case); nullopt for anything else.
std::optional<MacAddress> parse_mac(std::string_view text);
// Dotted quad "a.b.c.d" into host order; nullopt for anything else.
std::optional<std::uint32_t> parse_ipv4(std::string_view text);

// Throws std::invalid_argument when spec.size < udp_frame_headers.
std::vector<std::uint8_t> build_udp_frame(const UdpFrameSpec& spec);

}  // namespace afxdp::tool
