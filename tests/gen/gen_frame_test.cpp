// The gen frame and gen's option parsing, checked without a kernel. Checksums are verified with
// this file's own arithmetic (a whole-header sum must fold to 0xffff), not with the builder's.
#include <gen.hpp>
#include <gen_frame.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

namespace {

using afxdp::tool::build_udp_frame;
using afxdp::tool::UdpFrameSpec;

std::uint32_t word_sum(const std::vector<std::uint8_t>& bytes, std::size_t from, std::size_t to) {
  std::uint32_t sum = 0;
  for (std::size_t i = from; i < to; i += 2) {
    const std::uint32_t low = i + 1 < to ? bytes[i + 1] : 0;
    sum += (std::uint32_t{bytes[i]} << 8) | low;
  }
  return sum;
}

std::uint32_t folded(std::uint32_t sum) {
  while (sum > 0xffff) sum = (sum & 0xffff) + (sum >> 16);
  return sum;
}

UdpFrameSpec spec_of(std::size_t size) {
  UdpFrameSpec spec;
  spec.size = size;
  spec.dst_mac = {0x02, 0, 0, 0, 0, 2};
  spec.src_mac = {0x02, 0, 0, 0, 0, 1};
  spec.src_ip = 0xC6120001;  // 198.18.0.1
  spec.dst_ip = 0xC6120102;  // 198.18.1.2
  spec.src_port = 4321;
  spec.dst_port = 9;
  return spec;
}

TEST(GenFrame, HeadersAndChecksumsAreRight) {
  for (const std::size_t size : {42U, 60U, 64U, 65U, 1514U, 3520U}) {
    const auto frame = build_udp_frame(spec_of(size));
    ASSERT_EQ(frame.size(), size);
    EXPECT_EQ(std::vector<std::uint8_t>(frame.begin(), frame.begin() + 6),
              (std::vector<std::uint8_t>{0x02, 0, 0, 0, 0, 2}));
    EXPECT_EQ(frame[12], 0x08);
    EXPECT_EQ(frame[13], 0x00);
    EXPECT_EQ(frame[14], 0x45);
    EXPECT_EQ((frame[16] << 8) | frame[17], static_cast<int>(size - 14));
    EXPECT_EQ(frame[23], 17);
    EXPECT_EQ(folded(word_sum(frame, 14, 34)), 0xffffU) << "IPv4 header checksum, size " << size;
    const std::size_t udp_length = size - 34;
    EXPECT_EQ((frame[38] << 8) | frame[39], static_cast<int>(udp_length));
    EXPECT_EQ((frame[34] << 8) | frame[35], 4321);
    std::uint32_t pseudo = word_sum(frame, 26, 34) + 17 + static_cast<std::uint32_t>(udp_length);
    EXPECT_EQ(folded(pseudo + word_sum(frame, 34, size)), 0xffffU) << "UDP checksum, size " << size;
    EXPECT_NE((frame[40] << 8) | frame[41], 0);
  }
}

TEST(GenFrame, RefusesFramesShorterThanTheHeaders) {
  EXPECT_THROW(build_udp_frame(spec_of(41)), std::invalid_argument);
}

TEST(GenFrame, ParsesAddresses) {
  EXPECT_EQ(afxdp::tool::parse_mac("0a:BB:cc:00:11:ff"),
            (afxdp::tool::MacAddress{0x0a, 0xbb, 0xcc, 0x00, 0x11, 0xff}));
  for (const char* bad : {"", "zz", "0a:bb:cc:00:11", "0a:bb:cc:00:11:ff:", "0a-bb-cc-00-11-ff",
                          "0a:bb:cc:00:11:fg"}) {
    EXPECT_FALSE(afxdp::tool::parse_mac(bad)) << bad;
  }
  EXPECT_EQ(afxdp::tool::parse_ipv4("198.18.0.1"), 0xC6120001U);
  for (const char* bad : {"", "1.2.3", "1.2.3.4.5", "256.1.1.1", "1..2.3", "a.b.c.d", "1.2.3.4 "}) {
    EXPECT_FALSE(afxdp::tool::parse_ipv4(bad)) << bad;
  }
}

struct Parsed {
  CLI::App app{"test"};
  afxdp::tool::GenOptions options;
  Parsed() { afxdp::tool::add_gen_options(app, options); }
  void parse(std::vector<std::string> args) {
    std::reverse(args.begin(), args.end());  // CLI11 takes them last first
    app.parse(args);
  }
};

TEST(GenOptions, DefaultsAndValues) {
  Parsed p;
  p.parse({"gen", "-i", "veth0"});
  EXPECT_EQ(p.options.interface, "veth0");
  EXPECT_EQ(p.options.size, 64U);
  EXPECT_EQ(p.options.count, 0U);
  EXPECT_TRUE(p.options.dst_mac.empty());

  Parsed q;
  q.parse({"gen", "-i", "v", "-s", "128", "-C", "1000", "--rate", "500", "-G", "02:00:00:00:00:02",
           "-H", "02:00:00:00:00:01", "--src-ip", "10.0.0.1", "--dst-port", "7", "--cpu", "1",
           "-d", "2.5", "--json", "--batch-size", "256"});
  EXPECT_EQ(q.options.size, 128U);
  EXPECT_EQ(q.options.count, 1000U);
  EXPECT_EQ(q.options.rate, 500U);
  EXPECT_EQ(q.options.dst_mac, "02:00:00:00:00:02");
  EXPECT_EQ(q.options.src_ip, "10.0.0.1");
  EXPECT_EQ(q.options.dst_port, 7);
  EXPECT_EQ(q.options.cpu, 1);
  EXPECT_DOUBLE_EQ(q.options.duration, 2.5);
  EXPECT_TRUE(q.options.json);
  EXPECT_EQ(q.options.batch_size, 256U);
}

TEST(GenOptions, RefusesBadValues) {
  const std::vector<std::vector<std::string>> bad = {
      {"gen"},                                  // no interface
      {"gen", "-i", "v", "-s", "59"},           // below the Ethernet minimum
      {"gen", "-i", "v", "-s", "3521"},         // beyond one page
      {"gen", "-i", "v", "-G", "02:00:00:00:00"},
      {"gen", "-i", "v", "-H", "nonsense"},
      {"gen", "-i", "v", "--dst-ip", "1.2.3.256"},
      {"gen", "-i", "v", "--batch-size", "0"},
      {"gen", "-i", "v", "--batch-size", "257"},
      {"gen", "-i", "v", "--src-port", "65536"},
  };
  for (const auto& args : bad) {
    Parsed p;
    EXPECT_THROW(p.parse(args), CLI::ParseError) << args.back();
  }
}

}  // namespace
