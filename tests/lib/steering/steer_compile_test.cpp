// The steering rule compiler (src/steer_compile.hpp) against golden entries: what a Match becomes
// in the redirect program's tables, with no program, no map and no root. Each entry is written
// out as the fields its mask fixes, host byte order, so a golden line reads like the rule.
#include <afxdp/steering/match.hpp>

#include "expect_throw.hpp"
#include "steer_compile.hpp"

#include <arpa/inet.h>
#include <bit>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <gtest/gtest.h>
#include <iterator>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

using afxdp::Match;
using afxdp::detail::compile;
using afxdp::detail::CompiledRule;
using afxdp::detail::signature_of;
using afxdp::detail::SteerEntry;

std::string hex(unsigned v) {
  char text[16];
  std::snprintf(text, sizeof text, "%x", v);
  return text;
}

// "10/8" for the prefix 10.0.0.0/8: the masked bytes in hex, then the prefix length.
std::string prefix(const std::uint8_t (&mask)[16], const std::uint8_t (&value)[16]) {
  unsigned length = 0;
  for (const std::uint8_t b : mask) length += static_cast<unsigned>(std::popcount(b));
  std::string text;
  for (unsigned i = 0; i < (length + 7) / 8; ++i) {
    char byte[4];
    std::snprintf(byte, sizeof byte, "%02x", value[i]);
    text += byte;
  }
  return text + "/" + std::to_string(length);
}

// The fields `e` fixes, in tuple order: "flags 9/f proto 17 sport 53/ffff".
std::string describe(const SteerEntry& e) {
  std::string text;
  const auto add = [&text](const std::string& part) { text += (text.empty() ? "" : " ") + part; };
  if (e.mask.flags != 0) add("flags " + hex(e.value.flags) + "/" + hex(e.mask.flags));
  if (e.mask.vlan_outer != 0) add("outer " + std::to_string(ntohs(e.value.vlan_outer)));
  if (e.mask.vlan_inner != 0) add("inner " + std::to_string(ntohs(e.value.vlan_inner)));
  if (e.mask.ethertype != 0) add("ether " + hex(ntohs(e.value.ethertype)));
  if (e.mask.proto != 0) add("proto " + std::to_string(e.value.proto));
  if (e.mask.sport != 0) {
    add("sport " + std::to_string(ntohs(e.value.sport)) + "/" + hex(ntohs(e.mask.sport)));
  }
  if (e.mask.dport != 0) {
    add("dport " + std::to_string(ntohs(e.value.dport)) + "/" + hex(ntohs(e.mask.dport)));
  }
  const std::uint8_t none[16]{};
  if (std::memcmp(e.mask.src, none, sizeof none) != 0)
    add("src " + prefix(e.mask.src, e.value.src));
  if (std::memcmp(e.mask.dst, none, sizeof none) != 0)
    add("dst " + prefix(e.mask.dst, e.value.dst));
  return text.empty() ? "(every frame)" : text;
}

std::vector<std::string> entries_of(const char* text) {
  std::vector<std::string> out;
  for (const SteerEntry& e : compile(Match::parse(text)).entries) out.push_back(describe(e));
  return out;
}

// "cells 0x3 53-53" per port-table part.
std::vector<std::string> ports_of(const char* text) {
  std::vector<std::string> out;
  for (const auto& p : compile(Match::parse(text)).ports) {
    out.push_back("cells 0x" + hex(p.cells) + " " + std::to_string(p.ports.first) + "-" +
                  std::to_string(p.ports.last));
  }
  return out;
}

using Lines = std::vector<std::string>;

// Flags in the golden lines: 1 ports read, 2 one VLAN tag, 4 two, 8 an IP header. An untagged
// rule fixes both tag bits at 0 (mask 6), so it never takes a tagged frame.

TEST(SteerCompile, ProtocolAndDestinationPortGoToThePortTable) {
  // Cells: bit proto index * 2 + IPv6, with UDP 0, TCP 1, SCTP 2.
  EXPECT_EQ(ports_of("udp dst port 53"), Lines{"cells 0x3 53-53"});
  EXPECT_EQ(ports_of("ip6 and tcp dst portrange 80-90"), Lines{"cells 0x8 80-90"});
  EXPECT_EQ(ports_of("ip and sctp dst port 9"), Lines{"cells 0x10 9-9"});
  EXPECT_EQ(ports_of("dst port 80"), Lines{"cells 0x3f 80-80"});  // any of the three, either IP
  EXPECT_TRUE(entries_of("udp dst port 53").empty());
}

TEST(SteerCompile, OtherShapesAreHashEntries) {
  EXPECT_EQ(entries_of("udp src port 53"), Lines{"flags 9/f proto 17 sport 53/ffff"});
  EXPECT_EQ(entries_of("icmp"), Lines{"flags 8/e ether 800 proto 1"});  // ICMP is IPv4's
  EXPECT_EQ(entries_of("arp"), Lines{"flags 0/6 ether 806"});
  // A destination port with an address is not the port table's: it stays in the hash.
  EXPECT_EQ(entries_of("dst net 10.0.0.0/8 and dst port 1"),
            Lines{"flags 9/f ether 800 dport 1/ffff dst 0a/8"});
  EXPECT_TRUE(ports_of("dst net 10.0.0.0/8 and dst port 1").empty());
  EXPECT_EQ(entries_of("dst net 10.0.0.0/8"), Lines{"flags 8/e ether 800 dst 0a/8"});
  EXPECT_EQ(entries_of("src net 2001:db8::/32"), Lines{"flags 8/e ether 86dd src 20010db8/32"});
}

TEST(SteerCompile, EmptyMatchTakesEveryFrameTaggedOrNot) {
  EXPECT_EQ(entries_of(""), Lines{"(every frame)"});
}

TEST(SteerCompile, PortRangesBecomeAlignedBlocks) {
  // 9000-9099: 9000+8, 9008+16, 9024+64, 9088+8, 9096+4 (each block starts on its size).
  EXPECT_EQ(entries_of("udp src portrange 9000-9099"),
            (Lines{"flags 9/f proto 17 sport 9000/fff8", "flags 9/f proto 17 sport 9008/fff0",
                   "flags 9/f proto 17 sport 9024/ffc0", "flags 9/f proto 17 sport 9088/fff8",
                   "flags 9/f proto 17 sport 9096/fffc"}));
  // The whole range is one block that fixes nothing but "ports were read".
  EXPECT_EQ(entries_of("src portrange 0-65535"), Lines{"flags 9/f"});
  const CompiledRule upper = compile(Match::parse("src portrange 1-65535"));
  ASSERT_EQ(upper.entries.size(), 16U);  // 1, 2-3, 4-7, ..., 32768-65535
  EXPECT_EQ(describe(upper.entries.front()), "flags 9/f sport 1/ffff");
  EXPECT_EQ(describe(upper.entries.back()), "flags 9/f sport 32768/8000");
}

TEST(SteerCompile, BothPortsMultiply) {
  EXPECT_EQ(entries_of("tcp src portrange 10-11 and dst portrange 0-1"),
            Lines{"flags 9/f proto 6 sport 10/fffe dport 0/fffe"});
  EXPECT_EQ(compile(Match::parse("src portrange 1-7 and dst portrange 1-3")).entries.size(),
            3U * 2U);  // 1, 2-3, 4-7 times 1, 2-3
}

TEST(SteerCompile, EitherDirectionIsBothDirections) {
  // The source half is a hash entry, the destination half a port-table cell.
  EXPECT_EQ(entries_of("tcp port 443"), Lines{"flags 9/f proto 6 sport 443/ffff"});
  EXPECT_EQ(ports_of("tcp port 443"), Lines{"cells 0xc 443-443"});
  EXPECT_EQ(entries_of("net 10.0.0.0/8"),
            (Lines{"flags 8/e ether 800 src 0a/8", "flags 8/e ether 800 dst 0a/8"}));
  // Net and port each both ways: four alternatives.
  EXPECT_EQ(entries_of("net 192.0.2.0/24 and port 7"),
            (Lines{"flags 9/f ether 800 sport 7/ffff src c00002/24",
                   "flags 9/f ether 800 dport 7/ffff src c00002/24",
                   "flags 9/f ether 800 sport 7/ffff dst c00002/24",
                   "flags 9/f ether 800 dport 7/ffff dst c00002/24"}));
}

TEST(SteerCompile, VlanShapes) {
  EXPECT_EQ(entries_of("vlan and arp"), Lines{"flags 2/6 ether 806"});
  EXPECT_EQ(entries_of("vlan 100 and udp dst port 53"),
            Lines{"flags b/f outer 100 proto 17 dport 53/ffff"});
  EXPECT_TRUE(ports_of("vlan 100 and udp dst port 53").empty());  // tagged: not the port table
  EXPECT_EQ(entries_of("vlan 100 and vlan 200 and ip"),
            Lines{"flags 6/6 outer 100 inner 200 ether 800"});
}

TEST(SteerCompile, AlternativesAddUp) {
  EXPECT_EQ(entries_of("udp src port 1 or arp"),
            (Lines{"flags 9/f proto 17 sport 1/ffff", "flags 0/6 ether 806"}));
  const CompiledRule both = compile(Match::parse("udp dst port 53 or tcp dst port 53"));
  EXPECT_TRUE(both.entries.empty());
  EXPECT_EQ(both.ports.size(), 2U);
}

TEST(SteerCompile, AtMost1024EntriesPerRule) {
  // 16 x 16 blocks per alternative: four alternatives fill the limit exactly.
  const std::string square = "src portrange 1-65535 and dst portrange 1-65535";
  const std::string four =
      "udp " + square + " or tcp " + square + " or sctp " + square + " or " + square;
  EXPECT_EQ(compile(Match::parse(four)).entries.size(), afxdp::detail::max_steer_entries_per_rule);
  EXPECT_EQ(afxdp::detail::max_steer_entries_per_rule, 1024U);
  EXPECT_THROW_WITH((void)compile(Match::parse(four + " or udp src port 7")), std::invalid_argument,
                    "needs more than 1024 table entries");
}

// The filter: a shape is in play for a field's value when one of its entries could match it.
TEST(SteerCompile, FilterKeepsOnlyTheShapesAFrameCanMatch) {
  const SteerEntry udp = compile(Match::parse("udp src port 53")).entries.at(0);
  const SteerEntry arp = compile(Match::parse("arp")).entries.at(0);
  const auto filter = afxdp::detail::filter_of(
      {{signature_of(3, udp.mask, udp.value), 1}, {signature_of(0, arp.mask, arp.value), 1}});
  for (unsigned v = 0; v < std::size(filter.by_flags); ++v) {
    const unsigned want = (v == 9 ? 1U << 3 : 0U) | ((v & 6U) == 0 ? 1U : 0U);  // arp: untagged
    EXPECT_EQ(filter.by_flags[v], want) << "flags " << v;
  }
  for (unsigned v = 0; v < std::size(filter.by_proto); ++v) {
    EXPECT_EQ(filter.by_proto[v], (v == 17 ? 1U << 3 : 0U) | 1U) << "proto " << v;
  }
  // 0x0806 on the wire folds to 0x06 ^ 0x08; udp fixes no EtherType, so it is everywhere.
  for (unsigned v = 0; v < std::size(filter.by_ethertype); ++v) {
    EXPECT_EQ(filter.by_ethertype[v], (1U << 3) | (v == 0x0e ? 1U : 0U)) << "ethertype " << v;
  }
}

}  // namespace
