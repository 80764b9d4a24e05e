#include "gen_frame.hpp"

#include <stdexcept>
#include <string>

namespace afxdp::tool {
namespace {

std::optional<unsigned> hex_digit(char c) {
  if (c >= '0' && c <= '9') return static_cast<unsigned>(c - '0');
  if (c >= 'a' && c <= 'f') return static_cast<unsigned>(c - 'a' + 10);
  if (c >= 'A' && c <= 'F') return static_cast<unsigned>(c - 'A' + 10);
  return std::nullopt;
}

void put16(std::uint8_t* at, std::uint32_t value) {
  at[0] = static_cast<std::uint8_t>(value >> 8);
  at[1] = static_cast<std::uint8_t>(value);
}

void put32(std::uint8_t* at, std::uint32_t value) {
  put16(at, value >> 16);
  put16(at + 2, value & 0xffffU);
}

// The ones'-complement sum of 16-bit big-endian words (RFC 1071), not yet folded.
std::uint32_t sum16(const std::uint8_t* data, std::size_t length, std::uint32_t sum = 0) {
  for (std::size_t i = 0; i + 1 < length; i += 2) sum += (std::uint32_t{data[i]} << 8) | data[i + 1];
  if (length % 2 != 0) sum += std::uint32_t{data[length - 1]} << 8;
  return sum;
}

std::uint16_t fold(std::uint32_t sum) {
  while (sum >> 16) sum = (sum & 0xffffU) + (sum >> 16);
  return static_cast<std::uint16_t>(~sum & 0xffffU);
}

}  // namespace

std::optional<MacAddress> parse_mac(std::string_view text) {
  if (text.size() != 17) return std::nullopt;
  MacAddress mac{};
  for (std::size_t i = 0; i < 6; ++i) {
    const auto high = hex_digit(text[i * 3]);
    const auto low = hex_digit(text[i * 3 + 1]);
    if (!high || !low) return std::nullopt;
    if (i < 5 && text[i * 3 + 2] != ':') return std::nullopt;
    mac[i] = static_cast<std::uint8_t>((*high << 4) | *low);
  }
  return mac;
}

std::optional<std::uint32_t> parse_ipv4(std::string_view text) {
  std::uint32_t address = 0;
  int parts = 0;
  std::size_t at = 0;
  while (parts < 4) {
    std::size_t digits = 0;
    std::uint32_t part = 0;
    while (at < text.size() && text[at] >= '0' && text[at] <= '9' && digits < 3) {
      part = part * 10 + static_cast<std::uint32_t>(text[at] - '0');
      ++at;
      ++digits;
    }
    if (digits == 0 || part > 255) return std::nullopt;
    address = (address << 8) | part;
    if (++parts < 4) {
      if (at >= text.size() || text[at] != '.') return std::nullopt;
      ++at;
    }
  }
  if (at != text.size()) return std::nullopt;
  return address;
}

std::vector<std::uint8_t> build_udp_frame(const UdpFrameSpec& spec) {
  if (spec.size < udp_frame_headers) {
    throw std::invalid_argument("frame size: must be at least " +
                                std::to_string(udp_frame_headers) +
                                " (Ethernet + IPv4 + UDP headers)");
  }
  if (spec.size - 14 > 0xffff) throw std::invalid_argument("frame size: IPv4 length over 65535");
  std::vector<std::uint8_t> frame(spec.size);
  std::uint8_t* eth = frame.data();
  std::copy(spec.dst_mac.begin(), spec.dst_mac.end(), eth);
  std::copy(spec.src_mac.begin(), spec.src_mac.end(), eth + 6);
  put16(eth + 12, 0x0800);

  std::uint8_t* ip = eth + 14;
  const auto ip_length = static_cast<std::uint32_t>(spec.size - 14);
  ip[0] = 0x45;  // version 4, 5 words of header
  ip[1] = 0;     // DSCP/ECN
  put16(ip + 2, ip_length);
  put16(ip + 4, 0);       // identification
  put16(ip + 6, 0x4000);  // don't fragment
  ip[8] = 64;             // TTL
  ip[9] = 17;             // UDP
  put32(ip + 12, spec.src_ip);
  put32(ip + 16, spec.dst_ip);
  put16(ip + 10, fold(sum16(ip, 20)));

  std::uint8_t* udp = ip + 20;
  const std::uint32_t udp_length = ip_length - 20;
  put16(udp, spec.src_port);
  put16(udp + 2, spec.dst_port);
  put16(udp + 4, udp_length);
  for (std::size_t i = 8; i < udp_length; ++i) udp[i] = static_cast<std::uint8_t>(i - 8);
  // The UDP checksum covers a pseudo-header (addresses, protocol, length) and the datagram.
  std::uint32_t sum = sum16(ip + 12, 8);
  sum += 17 + udp_length;
  sum = sum16(udp, udp_length, sum);
  std::uint16_t checksum = fold(sum);
  if (checksum == 0) checksum = 0xffff;  // 0 would mean "no checksum"
  put16(udp + 6, checksum);
  return frame;
}

}  // namespace afxdp::tool
