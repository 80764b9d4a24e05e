// The txpush frame builder against a frame checked by hand: header fields where they belong and
// checksums that verify (the one's-complement sum over a checksummed range is 0xFFFF).
#include <common/packet.hpp>

#include <gtest/gtest.h>

#include <vector>

namespace {

using afxdp::tool::UdpFrameSpec;

std::uint32_t sum16(const std::uint8_t* p, std::size_t n, std::uint32_t sum = 0) {
  for (std::size_t i = 0; i < n; ++i)
    sum += (i % 2 == 0) ? std::uint32_t{p[i]} << 8 : std::uint32_t{p[i]};
  while (sum >> 16) sum = (sum & 0xFFFF) + (sum >> 16);
  return sum;
}

TEST(UdpFrame, FieldsAndChecksums) {
  for (const bool vlan : {false, true}) {
    for (const std::uint32_t size : {60U, 61U, 64U, 1500U}) {
      UdpFrameSpec spec{.dst_mac = {1, 2, 3, 4, 5, 6},
                        .src_mac = {7, 8, 9, 10, 11, 12},
                        .vlan = vlan,
                        .vlan_id = 100,
                        .vlan_priority = 3,
                        .src_ip = 0x0A000001,
                        .dst_ip = 0x0A000002,
                        .src_port = 1234,
                        .dst_port = 80,
                        .size = size};
      std::vector<std::uint8_t> f(size);
      ASSERT_EQ(afxdp::tool::build_udp_frame(spec, f), size);
      std::size_t at = 12;
      if (vlan) {
        EXPECT_EQ(f[12], 0x81);
        EXPECT_EQ(f[14] >> 5, 3);
        EXPECT_EQ((f[14] & 0x0F) << 8 | f[15], 100);
        at = 16;
      }
      EXPECT_EQ(f[at] << 8 | f[at + 1], 0x0800);
      const std::uint8_t* ip = f.data() + at + 2;
      EXPECT_EQ(ip[0], 0x45);
      EXPECT_EQ(std::size_t(ip[2] << 8 | ip[3]), size - at - 2);
      EXPECT_EQ(sum16(ip, 20), 0xFFFFU);
      const std::uint8_t* udp = ip + 20;
      const auto udp_length = static_cast<std::uint32_t>(udp[4] << 8 | udp[5]);
      EXPECT_EQ(udp_length, size - at - 22);
      const std::uint32_t pseudo = 0x0A00 + 0x0001 + 0x0A00 + 0x0002 + 17 + udp_length;
      EXPECT_EQ(sum16(udp, udp_length, pseudo), 0xFFFFU) << size << (vlan ? " vlan" : "");
    }
  }
}

}  // namespace
