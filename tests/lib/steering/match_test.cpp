// The steering grammar: each production, its canonical form (parse(str()) round trip), and each
// error with the word and its 1-based position.
#include <afxdp/port.hpp>
#include <afxdp/steering/match.hpp>

#include "expect_throw.hpp"
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

namespace {

using afxdp::Match;
using afxdp::MatchTerm;
using afxdp::PortRange;

MatchTerm only(const char* text) {
  const Match m = Match::parse(text);
  EXPECT_EQ(m.alternatives().size(), 1U) << text;
  return m.alternatives().front();
}

// The message of the one std::invalid_argument that parsing `text` throws.
std::string error_of(const char* text) {
  try {
    (void)Match::parse(text);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(Match, UdpDstPort) {
  const MatchTerm t = only("udp dst port 7777");
  EXPECT_EQ(t.protocol, 17);
  EXPECT_EQ(t.dst_port, (PortRange{7777, 7777}));
  EXPECT_FALSE(t.src_port);
  EXPECT_FALSE(t.ethertype);
  EXPECT_EQ(Match::parse("udp dst port 7777").str(), "udp dst port 7777");
}

TEST(Match, EitherDirectionPortIsOneAlternative) {
  const MatchTerm t = only("tcp port 443");
  EXPECT_EQ(t.protocol, 6);
  EXPECT_EQ(t.port, (PortRange{443, 443}));
  EXPECT_EQ(Match::parse("tcp port 443").str(), "tcp port 443");
  EXPECT_EQ(only("port 53").protocol, std::nullopt);  // tcp, udp or sctp
}

TEST(Match, FamilyAndPort) {
  const MatchTerm t = only("ip6 and udp dst port 53");
  EXPECT_EQ(t.ethertype, 0x86dd);
  EXPECT_EQ(t.protocol, 17);
  EXPECT_EQ(Match::parse("ip6 and udp dst port 53").str(), "ip6 and udp dst port 53");
}

TEST(Match, Nets) {
  const MatchTerm d = only("dst net 10.0.0.0/8");
  ASSERT_TRUE(d.dst_net);
  EXPECT_FALSE(d.dst_net->v6);
  EXPECT_EQ(d.dst_net->length, 8);
  EXPECT_EQ(d.dst_net->address[0], 10);
  EXPECT_EQ(d.ethertype, 0x0800);  // implied by the address
  const MatchTerm s = only("src net 2001:db8::/32");
  ASSERT_TRUE(s.src_net);
  EXPECT_TRUE(s.src_net->v6);
  EXPECT_EQ(s.ethertype, 0x86dd);
  EXPECT_TRUE(only("net 192.168.0.0/16").net);
  EXPECT_EQ(only("host 10.1.2.3").net->length, 32);
  EXPECT_EQ(only("dst host ::1").dst_net->length, 128);
  EXPECT_EQ(Match::parse("src net 2001:db8::/32").str(), "src net 2001:db8::/32");
  EXPECT_EQ(Match::parse("dst net 10.1.2.3/32").str(), "dst host 10.1.2.3");
  EXPECT_EQ(Match::parse("ip and net 10.0.0.0/8").str(), "net 10.0.0.0/8");
}

TEST(Match, PortRange) {
  const MatchTerm t = only("udp dst portrange 9000-9099");
  EXPECT_EQ(t.dst_port, (PortRange{9000, 9099}));
  EXPECT_EQ(only("src portrange 1-1").src_port, (PortRange{1, 1}));
  EXPECT_EQ(Match::parse("udp dst portrange 9000-9099").str(), "udp dst portrange 9000-9099");
}

TEST(Match, EtherTypes) {
  EXPECT_EQ(only("arp").ethertype, 0x0806);
  EXPECT_EQ(only("rarp").ethertype, 0x8035);
  EXPECT_EQ(only("ip").ethertype, 0x0800);
  EXPECT_EQ(only("ip6").ethertype, 0x86dd);
  EXPECT_EQ(only("ether proto 0x88b5").ethertype, 0x88b5);
  EXPECT_EQ(only("ether proto 2054").ethertype, 0x0806);
  EXPECT_EQ(Match::parse("ether proto 0x88b5").str(), "ether proto 0x88b5");
  EXPECT_EQ(Match::parse("ether proto 0x0806").str(), "arp");
}

TEST(Match, Protocols) {
  const MatchTerm gre = only("ip proto 47");
  EXPECT_EQ(gre.ethertype, 0x0800);
  EXPECT_EQ(gre.protocol, 47);
  EXPECT_EQ(only("ip6 proto 0x2f").protocol, 47);
  EXPECT_EQ(only("proto 47").ethertype, std::nullopt);
  EXPECT_EQ(only("icmp").protocol, 1);
  EXPECT_EQ(only("icmp6").protocol, 58);
  EXPECT_EQ(only("sctp").protocol, 132);
  EXPECT_EQ(Match::parse("ip proto 47").str(), "ip proto 47");
  EXPECT_EQ(Match::parse("ip proto 1").str(), "icmp");
  EXPECT_EQ(Match::parse("proto 47").str(), "proto 47");
}

TEST(Match, Vlans) {
  const MatchTerm one = only("vlan 100 and udp");
  EXPECT_EQ(one.vlan_tags, 1);
  EXPECT_EQ(one.vlan_ids[0], 100);
  EXPECT_EQ(one.protocol, 17);
  const MatchTerm two = only("vlan and vlan 200");
  EXPECT_EQ(two.vlan_tags, 2);
  EXPECT_EQ(two.vlan_ids[0], std::nullopt);
  EXPECT_EQ(two.vlan_ids[1], 200);
  EXPECT_EQ(Match::parse("vlan 100 and vlan 200 and ip").str(), "vlan 100 and vlan 200 and ip");
  EXPECT_EQ(only("udp").vlan_tags, 0);  // untagged frames only
}

TEST(Match, OrGivesAlternatives) {
  const Match m = Match::parse("udp port 53 or tcp port 53 or arp");
  ASSERT_EQ(m.alternatives().size(), 3U);
  EXPECT_EQ(m.alternatives()[2].ethertype, 0x0806);
  EXPECT_EQ(m.str(), "udp port 53 or tcp port 53 or arp");
}

TEST(Match, EmptyMatchesEverything) {
  EXPECT_EQ(Match::parse(""), Match{});
  EXPECT_EQ(Match::parse("   "), Match{});
  EXPECT_EQ(Match{}.alternatives().size(), 1U);
  EXPECT_EQ(Match{}.alternatives().front(), MatchTerm{});
}

TEST(Match, CanonicalFormRoundTrips) {
  for (const char* text :
       {"udp dst port 7777", "tcp port 443", "ip6 and udp dst port 53", "dst net 10.0.0.0/8",
        "udp dst portrange 9000-9099", "arp", "vlan 100 and udp", "ether proto 0x88b5", "ip",
        "ip proto 47", "src net 10.0.0.0/8 and dst host 10.9.9.9 and tcp src port 1 and dst port 2",
        "vlan and vlan 7 and ip6 and net 2001:db8::/48 and udp portrange 1-65535",
        "  udp   and   dst  port 0x35  or  icmp6 "}) {
    const Match m = Match::parse(text);
    EXPECT_EQ(Match::parse(m.str()), m) << text << " -> " << m.str();
  }
  EXPECT_EQ(Match::parse("  udp   and   dst  port 0x35").str(), "udp dst port 53");
}

struct BadInput {
  const char* text;
  const char* expected;  // a part of the message: the word and its position, then why
};

class MatchError : public testing::TestWithParam<BadInput> {};

TEST_P(MatchError, NamesTheWordAndItsPosition) {
  EXPECT_NE(error_of(GetParam().text).find(GetParam().expected), std::string::npos)
      << GetParam().text << ": " << error_of(GetParam().text);
}

INSTANTIATE_TEST_SUITE_P(
    Grammar, MatchError,
    testing::Values(
        BadInput{"udp dst prot 7777", "'prot' at 9: expected port, portrange, net or host"},
        BadInput{"bogus", "'bogus' at 1: unknown word"},
        BadInput{"udp or", "end of input at 7: expected a primitive"},
        BadInput{"udp and", "end of input at 8: expected a primitive"},
        BadInput{"udp dst port", "end of input at 13: expected a port number"},
        BadInput{"udp port 65536", "'65536' at 10: out of range 0-65535"},
        BadInput{"udp port 5x", "'5x' at 10: not a number"},
        BadInput{"udp port 53 tcp", "'tcp' at 13: expected 'and' or 'or'"},
        BadInput{"udp portrange 9-", "'' at 17: not a number"},
        BadInput{"udp portrange 99-9", "'99-9' at 15: the range is empty"},
        BadInput{"udp portrange 99", "'99' at 15: expected a port range A-B"},
        BadInput{"net 10.0.0.1/8", "'10.0.0.1/8' at 5: address bits set beyond the prefix"},
        BadInput{"net 10.0.0.0", "'10.0.0.0' at 5: expected a prefix ADDRESS/LENGTH"},
        BadInput{"net 10.0.0.0/33", "'10.0.0.0/33' at 5: prefix length beyond 32"},
        BadInput{"net 10.0.0.0/x", "'x' at 14: not a number"},
        BadInput{"host 10.0.0.300", "'10.0.0.300' at 6: not an IPv4 address"},
        BadInput{"host 2001:db8:::1", "'2001:db8:::1' at 6: not an IPv6 address"},
        BadInput{"host 10.0.0.1/32", "at 6: a host is an address without /length"},
        BadInput{"ether 0x88b5", "'0x88b5' at 7: expected 'proto' after 'ether'"},
        BadInput{"ether proto 0x05ff", "'0x05ff' at 13: not an EtherType"},
        BadInput{"ether proto 0x8100", "'0x8100' at 13: VLAN tags are matched with 'vlan'"},
        BadInput{"ip proto 256", "'256' at 10: out of range 0-255"},
        BadInput{"vlan 4096", "'4096' at 6: out of range 0-4095"},
        BadInput{"vlan and vlan and vlan", "'vlan' at 19: at most two VLAN tags"},
        BadInput{"udp and vlan 5", "'vlan' at 9: VLAN tags come before"},
        BadInput{"arp and udp", "'udp' at 9: contradicts 'arp' given before (not IP)"},
        BadInput{"udp and arp", "'arp' at 9: contradicts an IP field given before"},
        BadInput{"ip and ip6", "'ip6' at 8: contradicts 'ip' given before"},
        BadInput{"udp and tcp", "'tcp' at 9: contradicts protocol 17 given before"},
        BadInput{"icmp and port 5", "'5' at 15: contradicts protocol 1 (no ports)"},
        BadInput{"port 5 and icmp", "'icmp' at 12: contradicts a port given before"},
        BadInput{"arp and port 5", "'5' at 14: contradicts 'arp' given before (not IP)"},
        BadInput{"ip6 and net 10.0.0.0/8", "'10.0.0.0/8' at 13: contradicts 'ip6' given before"},
        BadInput{"src port 1 and src port 2", "'2' at 25: a second port of the same direction"},
        BadInput{"port 1 and dst port 2", "'2' at 21: either-direction 'port' cannot be combined"},
        BadInput{"net 10.0.0.0/8 and src net 10.0.0.0/8", "at 28: either-direction 'net'/'host'"},
        BadInput{"dst host 1.2.3.4 and dst host 1.2.3.5", "at 31: a second address"},
        BadInput{"not udp", "'not' at 1: negation and parentheses are not supported"},
        BadInput{"(udp)", "'(udp)' at 1: negation and parentheses"},
        BadInput{"src udp", "'udp' at 5: expected port, portrange, net or host after 'src'"},
        BadInput{"udp or or", "'or' at 8: unknown word"}));

TEST(MatchError, IsOneInvalidArgumentQuotingTheExpression) {
  EXPECT_THROW((void)Match::parse("udp dst prot 7777"), std::invalid_argument);
  EXPECT_NE(error_of("udp dst prot 7777").find("match \"udp dst prot 7777\""), std::string::npos);
  EXPECT_THROW(Match(std::vector<MatchTerm>{}), std::invalid_argument);
}

// Match(std::vector<MatchTerm>) guarantees what parse does (issue 41 item 3): a reversed range
// made Steering::remove allocate 8 GiB, a prefix past its family wrote past the entry's mask, a
// VLAN id past 4095 printed a str() that no longer parsed.
MatchTerm term_of(const char* text) { return Match::parse(text).alternatives().front(); }

TEST(MatchTerms, TheConstructorRefusesWhatParseRefuses) {
  const auto refused = [](MatchTerm t, const char* what) {
    EXPECT_THROW_WITH(Match(std::vector<MatchTerm>{term_of("udp"), t}), std::invalid_argument,
                      what);
  };
  MatchTerm t = term_of("udp dst port 5");
  t.dst_port = PortRange{9, 5};
  refused(t, "match: alternative 2 of 2: dst_port: 9-5: the range is empty");
  t = term_of("tcp port 443");
  t.port = PortRange{443, 80};
  refused(t, "port: 443-80: the range is empty");
  t = term_of("dst net 10.0.0.0/8");
  t.dst_net->length = 33;
  refused(t, "dst_net: length 33 beyond 32");
  t = term_of("src net 2001:db8::/32");
  t.src_net->length = 129;
  refused(t, "src_net: length 129 beyond 128");
  t = term_of("net 10.0.0.0/8");
  t.net->address[3] = 1;
  refused(t, "net: address bits set beyond the prefix length");
  t = term_of("dst net 10.0.0.0/8");
  t.ethertype.reset();  // parse gives the prefix's family; str() relies on it
  refused(t, "dst_net: an IPv4 prefix needs ethertype ip");
  t = term_of("vlan 100 and udp");
  t.vlan_ids[0] = 4096;
  refused(t, "vlan_ids[0]: 4096: out of range 0-4095");
  t = term_of("vlan 100 and udp");
  t.vlan_ids[1] = 7;
  refused(t, "vlan_ids[1]: an id for a tag beyond vlan_tags");
  t = term_of("vlan and vlan");
  t.vlan_tags = 3;
  refused(t, "vlan_tags: 3: at most 2");
  t = term_of("arp");
  t.ethertype = 0x0100;
  refused(t, "ethertype: ether proto 0x0100: not an EtherType");
  t.ethertype = 0x8100;
  refused(t, "ethertype: ether proto 0x8100: VLAN tags are matched with vlan_tags");
  t = term_of("arp");
  t.protocol = 17;
  refused(t, "protocol: with arp (not IP)");
  t = term_of("icmp");
  t.dst_port = PortRange{1, 1};
  refused(t, "dst_port: with protocol 1 (no ports)");
  t = term_of("port 1");
  t.src_port = PortRange{1, 1};
  refused(t, "port: either-direction port cannot be combined");
}

TEST(MatchTerms, EveryParsedTermIsAccepted) {
  for (const char* text :
       {"", "udp dst port 7777", "tcp port 443", "dst net 10.0.0.0/8", "net 2001:db8::/32",
        "vlan 4095 and vlan 0 and ip6", "ether proto 0x0600", "proto 0", "portrange 0-65535",
        "src host 10.1.2.3 and dst net 10.0.0.0/8 and sctp src portrange 1-2 and dst port 9"}) {
    const Match m = Match::parse(text);
    EXPECT_EQ(Match(m.alternatives()), m) << text;
  }
}

}  // namespace

namespace {

TEST(SteerConfig, NeedsTheEmbeddedProgramAndReceiving) {
  afxdp::PortConfig c;
  c.steer = {Match::parse("udp dst port 53")};
  EXPECT_NO_THROW(afxdp::validate(c));
  c.receive = false;
  EXPECT_THROW(afxdp::validate(c), std::invalid_argument);
  c.receive = true;
  c.program.object = reinterpret_cast<bpf_object*>(&c);  // any non-null object: never opened
  EXPECT_THROW_WITH(afxdp::validate(c), std::invalid_argument, "steer:");
  c.steer.clear();
  EXPECT_NO_THROW(afxdp::validate(c));  // an own program without rules: as before
}

}  // namespace

namespace {

// What parse said of `expression`; "" when it took it.
std::string refusal_of(const std::string& expression) {
  try {
    afxdp::Match::parse(expression);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

}  // namespace

// A long expression's error names the word and its surroundings, not the whole expression
// (issue 41: a --steer error repeated 100 KB of rules); a short one is shown whole, as before.
TEST(Match, ALongExpressionsErrorShowsTheWordAndItsSurroundings) {
  std::string rules;
  while (rules.size() < 100000) rules += "udp dst port 53 or ";
  const std::string bad = rules + "udp dst port banana or " + rules + "udp dst port 1";
  const std::string why = refusal_of(bad);
  ASSERT_FALSE(why.empty());
  EXPECT_LT(why.size(), 300U) << why.substr(0, 400);
  EXPECT_NE(why.find("'banana' at " + std::to_string(rules.size() + 14)), std::string::npos) << why;
  EXPECT_NE(why.find("..."), std::string::npos) << why;
  const std::string huge_word = refusal_of(std::string(5000, 'x'));
  EXPECT_LT(huge_word.size(), 300U) << huge_word.substr(0, 400);
  const std::string short_one = refusal_of("udp dst port banana");
  EXPECT_NE(short_one.find("\"udp dst port banana\""), std::string::npos) << short_one;
}
