// libFuzzer target: txpush's and gen's frame builder. Every spec the input describes either is
// refused as too short or yields a frame whose IPv4 header and UDP checksums verify, checked here
// with a sum written independently of packet.cpp.
#include "common/packet.hpp"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace {

std::uint32_t ones_sum(const std::uint8_t* p, std::size_t n, std::uint32_t sum = 0) {
  for (std::size_t i = 0; i + 1 < n; i += 2) sum += (std::uint32_t{p[i]} << 8) | p[i + 1];
  if (n % 2 != 0) sum += std::uint32_t{p[n - 1]} << 8;
  while (sum >> 16) sum = (sum & 0xffffU) + (sum >> 16);
  return sum;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  afxdp::tool::UdpFrameSpec spec;
  if (size < 26) return 0;
  std::memcpy(spec.dst_mac.data(), data, 6);
  std::memcpy(spec.src_mac.data(), data + 6, 6);
  std::memcpy(&spec.src_ip, data + 12, 4);
  std::memcpy(&spec.dst_ip, data + 16, 4);
  std::memcpy(&spec.src_port, data + 20, 2);
  std::memcpy(&spec.dst_port, data + 22, 2);
  spec.vlan = (data[24] & 1) != 0;
  spec.vlan_id = static_cast<std::uint16_t>(data[24] >> 1);
  spec.size = 0;
  std::memcpy(&spec.size, data + 25, 1);
  spec.size = spec.size * 16 % 4096;
  const std::uint32_t headers = afxdp::tool::udp_frame_headers(spec.vlan);
  if (spec.size < headers) return 0;  // the builder's precondition; options refuse it earlier
  std::vector<std::uint8_t> frame(spec.size);
  const std::uint32_t length = afxdp::tool::build_udp_frame(spec, frame);
  if (length != spec.size) std::abort();
  const std::size_t ip = spec.vlan ? 18 : 14;
  if (ones_sum(frame.data() + ip, 20) != 0xffff) std::abort();  // IPv4 header checksum
  // UDP: the pseudo-header (addresses, protocol, UDP length), then header and payload.
  const std::size_t udp = ip + 20;
  const std::size_t udp_length = (std::size_t{frame[udp + 4]} << 8) | frame[udp + 5];
  if (udp_length != spec.size - udp) std::abort();
  std::uint32_t pseudo = ones_sum(frame.data() + ip + 12, 8);
  pseudo += 17 + static_cast<std::uint32_t>(udp_length);
  if (ones_sum(frame.data() + udp, udp_length, pseudo) != 0xffff) std::abort();
  return 0;
}
