// The checksum loop and the per-protocol checksums of <afxdp/net.hpp>.
#include <afxdp/net.hpp>

#include <bit>
#include <cstring>

namespace afxdp::net {
namespace {

[[nodiscard]] std::uint32_t fold(std::uint64_t sum) noexcept {
  sum = (sum & 0xffffffffU) + (sum >> 32);
  sum = (sum & 0xffffffffU) + (sum >> 32);
  sum = (sum & 0xffffU) + (sum >> 16);
  sum = (sum & 0xffffU) + (sum >> 16);
  return static_cast<std::uint32_t>(sum);
}

// The bytes from the L4 header to the end of the datagram (UDP's by its length): what the L4
// checksum covers. The payload ends there (parse()).
[[nodiscard]] std::span<std::byte> segment(const Headers& h, const HeaderView& l4) noexcept {
  return {l4.data(), static_cast<std::size_t>(h.payload.data() + h.payload.size() - l4.data())};
}

// The pseudo-header's sum (RFC 768, 793; RFC 8200 8.1): addresses, protocol, L4 length.
// IPv6's destination is the header's, right without a routing header still to be processed.
[[nodiscard]] std::uint32_t pseudo_header(const Headers& h, std::uint8_t protocol,
                                          std::size_t length) noexcept {
  const auto size = static_cast<std::uint32_t>(length);
  std::uint32_t sum = protocol + (size >> 16) + (size & 0xffffU);
  if (h.ipv4) return ones_complement_sum(h.ipv4.bytes().subspan(12, 8), sum);
  return ones_complement_sum(h.ipv6.bytes().subspan(8, 32), sum);
}

// The checksum of the L4 header `l4`, whose checksum field is at `field`: what it should hold.
[[nodiscard]] std::uint16_t l4_checksum(const Headers& h, const HeaderView& l4, std::size_t field,
                                        std::uint8_t protocol, bool pseudo) noexcept {
  const std::span<std::byte> bytes = segment(h, l4);
  std::uint32_t sum = pseudo ? pseudo_header(h, protocol, bytes.size()) : 0;
  // The sum without the field: the bytes before it, after it.
  sum = ones_complement_sum(bytes.first(field), sum);
  sum = ones_complement_sum(bytes.subspan(field + 2), sum);
  return static_cast<std::uint16_t>(~sum);
}

// The sum over all the L4 checksum covers, its field included.
[[nodiscard]] std::uint16_t covered_sum(const Headers& h, const HeaderView& l4,
                                        std::uint8_t protocol, bool pseudo) noexcept {
  const std::span<std::byte> bytes = segment(h, l4);
  return ones_complement_sum(bytes, pseudo ? pseudo_header(h, protocol, bytes.size()) : 0);
}

[[nodiscard]] std::uint16_t ipv4_checksum(const Ipv4& ip) noexcept {
  const std::uint16_t sum = ones_complement_sum(ip.bytes().first(10));
  return static_cast<std::uint16_t>(~ones_complement_sum(ip.bytes().subspan(12), sum));
}

[[nodiscard]] std::uint16_t udp_checksum(const Headers& h) noexcept {
  const std::uint16_t checksum = l4_checksum(h, h.udp, 6, ip_protocol_udp, true);
  return checksum == 0 ? 0xffff : checksum;  // 0 would say "no checksum" (RFC 768)
}

}  // namespace

std::uint16_t ones_complement_sum(std::span<const std::byte> bytes,
                                  std::uint32_t initial) noexcept {
  // Native-order words: the one's-complement sum commutes with a byte swap (RFC 1071 2(B)), so
  // one swap at the end stands for one per word.
  std::uint64_t sum = 0;
  const std::byte* p = bytes.data();
  std::size_t n = bytes.size();
  for (; n >= 8; p += 8, n -= 8) {
    std::uint32_t a = 0;
    std::uint32_t b = 0;
    std::memcpy(&a, p, 4);
    std::memcpy(&b, p + 4, 4);
    sum += std::uint64_t{a} + b;
  }
  for (; n >= 2; p += 2, n -= 2) {
    std::uint16_t w = 0;
    std::memcpy(&w, p, 2);
    sum += w;
  }
  if (n == 1) {
    const std::byte last[2] = {*p, std::byte{0}};  // padded with a zero, in network order
    std::uint16_t w = 0;
    std::memcpy(&w, last, 2);
    sum += w;
  }
  auto folded = static_cast<std::uint16_t>(fold(sum));
  if constexpr (std::endian::native == std::endian::little) {
    folded = static_cast<std::uint16_t>(folded << 8 | folded >> 8);
  }
  return static_cast<std::uint16_t>(fold(std::uint64_t{folded} + initial));
}

void update_checksums(Headers& h) noexcept {
  if (h.ipv4) h.ipv4.set_checksum(ipv4_checksum(h.ipv4));
  if (h.fragment) return;  // the L4 checksum covers every fragment
  if (h.udp) {
    h.udp.set_checksum(udp_checksum(h));
  } else if (h.tcp) {
    h.tcp.set_checksum(l4_checksum(h, h.tcp, 16, ip_protocol_tcp, true));
  } else if (h.icmp) {
    h.icmp.set_checksum(l4_checksum(h, h.icmp, 2, ip_protocol_icmp, false));
  } else if (h.icmpv6) {
    h.icmpv6.set_checksum(l4_checksum(h, h.icmpv6, 2, ip_protocol_icmpv6, true));
  }
}

bool verify_checksums(const Headers& h) noexcept {
  // A checksum verifies when the sum over what it covers, itself included, is 0xffff (RFC 1071).
  if (h.ipv4 && ones_complement_sum(h.ipv4.bytes()) != 0xffff) return false;
  if (h.fragment) return true;
  if (h.udp)
    return (h.ipv4 && h.udp.checksum() == 0) ||
           covered_sum(h, h.udp, ip_protocol_udp, true) == 0xffff;
  if (h.tcp) return covered_sum(h, h.tcp, ip_protocol_tcp, true) == 0xffff;
  if (h.icmp) return covered_sum(h, h.icmp, ip_protocol_icmp, false) == 0xffff;
  if (h.icmpv6) return covered_sum(h, h.icmpv6, ip_protocol_icmpv6, true) == 0xffff;
  return true;
}

}  // namespace afxdp::net
