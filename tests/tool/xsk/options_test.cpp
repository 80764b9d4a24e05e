// Parsing of the benchmark options, table-driven: what good command lines turn into, and that
// each bad one is refused with a message naming the option. No kernel: parsing is pure.
#include <xsk/xsk_options.hpp>
#include <xsk/xsk_run.hpp>

#include "expect_throw.hpp"
#include "parse_xsk_options.hpp"
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <string>
#include <vector>

namespace {

using afxdp::tool::Benchmark;
using afxdp::tool::XskOptions;

using xsk_options_test::parse;

TEST(XskOptions, EachBenchmarkIsNamedByItsSubcommandsName) {
  for (const Benchmark b : {Benchmark::rxdrop, Benchmark::txpush, Benchmark::l2fwd}) {
    EXPECT_EQ(afxdp::tool::benchmark_named(afxdp::tool::benchmark_name(b)), b);
  }
  EXPECT_EQ(afxdp::tool::benchmark_named("l2fwd"), Benchmark::l2fwd);
  EXPECT_FALSE(afxdp::tool::benchmark_named("xdp-drop").has_value());
  EXPECT_FALSE(afxdp::tool::benchmark_named("").has_value());
  EXPECT_FALSE(afxdp::tool::benchmark_named("rxdrop ").has_value());
}

TEST(XskOptions, DefaultsAreXdpsocks) {
  const XskOptions o = parse(Benchmark::txpush, {"-i", "veth0"});
  EXPECT_EQ(o.interface, "veth0");
  EXPECT_EQ(o.queues, std::vector<std::uint32_t>{0});
  EXPECT_EQ(o.batch, 64U);
  EXPECT_EQ(o.packet_size, 64U);
  EXPECT_EQ(o.frame_size, 4096U);
  EXPECT_EQ(o.interval, 1.0);
  EXPECT_FALSE(o.skb);
  EXPECT_FALSE(o.copy);
  EXPECT_FALSE(o.zero_copy);
  EXPECT_FALSE(o.dst_mac.has_value());
  EXPECT_EQ(o.src_ip, 0xC0000201U);  // 192.0.2.1
  EXPECT_EQ(o.dst_ip, 0xC0000202U);
}

TEST(XskOptions, ShortOptionsAsXdpsockSpellsThem) {
  const XskOptions o = parse(Benchmark::txpush, {"-i",
                                                 "eth1",
                                                 "-q",
                                                 "0-2,5",
                                                 "-S",
                                                 "-c",
                                                 "-p",
                                                 "-B",
                                                 "-m",
                                                 "-f",
                                                 "2048",
                                                 "-b",
                                                 "32",
                                                 "-s",
                                                 "128",
                                                 "-C",
                                                 "1000",
                                                 "-d",
                                                 "2.5",
                                                 "-n",
                                                 "0.5",
                                                 "-x",
                                                 "-a",
                                                 "-Q",
                                                 "-M",
                                                 "-G",
                                                 "02:00:00:00:00:0a",
                                                 "-H",
                                                 "02:00:00:00:00:0B",
                                                 "-V",
                                                 "-J",
                                                 "42",
                                                 "-K",
                                                 "5",
                                                 "--src-ip",
                                                 "10.1.2.3",
                                                 "--dst-ip",
                                                 "10.3.2.1",
                                                 "--src-port",
                                                 "1000",
                                                 "--dst-port",
                                                 "2000",
                                                 "--rate",
                                                 "1e6",
                                                 "--cpu",
                                                 "1,0",
                                                 "--json",
                                                 "--force"});
  EXPECT_EQ(o.queues, (std::vector<std::uint32_t>{0, 1, 2, 5}));
  EXPECT_TRUE(o.skb && o.copy && o.use_poll && o.busy_poll && o.no_need_wakeup);
  EXPECT_EQ(o.frame_size, 2048U);
  EXPECT_EQ(o.batch, 32U);
  EXPECT_EQ(o.packet_size, 128U);
  EXPECT_EQ(o.count, 1000U);
  EXPECT_EQ(o.duration, 2.5);
  EXPECT_EQ(o.interval, 0.5);
  EXPECT_TRUE(o.extra_stats && o.app_stats && o.quiet && o.shared_umem && o.vlan);
  ASSERT_TRUE(o.dst_mac && o.src_mac);
  EXPECT_EQ((*o.dst_mac)[5], 0x0A);
  EXPECT_EQ((*o.src_mac)[5], 0x0B);
  EXPECT_EQ(o.vlan_id, 42U);
  EXPECT_EQ(o.vlan_priority, 5U);
  EXPECT_EQ(o.src_ip, 0x0A010203U);
  EXPECT_EQ(o.dst_ip, 0x0A030201U);
  EXPECT_EQ(o.rate, 1e6);
  EXPECT_EQ(o.cpus, (std::vector<std::uint32_t>{1, 0}));
  EXPECT_TRUE(o.json && o.force);
}

TEST(XskOptions, SteerIsOneRuleEachAndOnlyWhereFramesAreReceived) {
  const XskOptions o =
      parse(Benchmark::l2fwd, {"-i", "x", "--steer", "udp dst port 53", "--steer", "arp"});
  ASSERT_EQ(o.steer.size(), 2U);
  EXPECT_EQ(o.steer[0].str(), "udp dst port 53");
  EXPECT_EQ(o.steer[1].str(), "arp");
  EXPECT_TRUE(parse(Benchmark::rxdrop, {"-i", "x"}).steer.empty());
  EXPECT_THROW(parse(Benchmark::txpush, {"-i", "x", "--steer", "arp"}), CLI::ParseError);
}

TEST(XskOptions, SpinBeforeSleepIsThePortsAndOnlyL2fwds) {
  const XskOptions o = parse(Benchmark::l2fwd, {"-i", "x", "--spin-before-sleep", "2.5"});
  EXPECT_EQ(afxdp::tool::port_config(o).spin_before_sleep, std::chrono::nanoseconds(2500));
  EXPECT_EQ(afxdp::tool::port_config(parse(Benchmark::l2fwd, {"-i", "x"})).spin_before_sleep,
            std::chrono::nanoseconds(0));
  EXPECT_THROW(parse(Benchmark::rxdrop, {"-i", "x", "--spin-before-sleep", "1"}), CLI::ParseError);
  EXPECT_THROW(parse(Benchmark::l2fwd, {"-i", "x", "--spin-before-sleep", "1000001"}),
               CLI::ParseError);
}

TEST(XskOptions, UnalignedAllowsOtherFrameSizes) {
  EXPECT_EQ(parse(Benchmark::rxdrop, {"-i", "x", "-u", "-f", "3000"}).frame_size, 3000U);
}

struct BadCase {
  Benchmark benchmark;
  std::vector<std::string> args;
  const char* message;  // a part of the one-line error
};

TEST(XskOptions, UserAndGroupByNumberOrName) {
  const XskOptions o = parse(Benchmark::rxdrop, {"-i", "x", "--user", "1234", "--group", "0"});
  EXPECT_EQ(o.user, "1234");
  EXPECT_EQ(o.group, "0");
  EXPECT_NO_THROW(parse(Benchmark::rxdrop, {"-i", "x", "--user", "root"}));
  EXPECT_NO_THROW(parse(Benchmark::rxdrop, {"-i", "x", "--drop-privileges"}));
}

TEST(XskOptions, BadInputIsRefusedNamingTheRule) {
  const std::vector<BadCase> cases = {
      {Benchmark::rxdrop, {}, "--interface is required"},
      {Benchmark::rxdrop, {"-i", "x", "--bogus"}, "--bogus"},
      {Benchmark::rxdrop, {"-i", "x", "-s", "64"}, "-s"},  // txpush only
      {Benchmark::txpush, {"-i", "x", "-s", "5000"}, "larger than a frame"},
      {Benchmark::txpush, {"-i", "x", "-f", "2048", "-s", "4096"}, "larger than a frame"},
      {Benchmark::txpush, {"-i", "x", "-s", "41"}, "smaller than the headers"},
      {Benchmark::txpush, {"-i", "x", "-F", "-s", "65550"}, "IPv4"},
      {Benchmark::txpush, {"-i", "x", "-F", "-V", "-s", "65554"}, "IPv4"},
      {Benchmark::txpush, {"-i", "x", "-V", "-s", "45"}, "smaller than the headers"},
      {Benchmark::rxdrop, {"-i", "x", "-b", "4096"}, "larger than a ring"},
      {Benchmark::rxdrop, {"-i", "x", "--ring-size", "512", "-b", "513"}, "larger than a ring"},
      {Benchmark::rxdrop, {"-i", "x", "-b", "0"}, "batch size"},
      {Benchmark::rxdrop, {"-i", "x", "-f", "3000"}, "power of two"},
      {Benchmark::rxdrop, {"-i", "x", "-f", "8192"}, "2048 or 4096"},
      {Benchmark::rxdrop, {"-i", "x", "--ring-size", "1000"}, "power of two"},
      {Benchmark::rxdrop, {"-i", "x", "--frames", "10"}, "frames"},
      {Benchmark::txpush, {"-i", "x", "-G", "11:22:33"}, "MAC"},
      {Benchmark::txpush, {"-i", "x", "-G", "11:22:33:44:55:gg"}, "MAC"},
      {Benchmark::txpush, {"-i", "x", "-H", "11-22-33-44-55-66"}, "MAC"},
      {Benchmark::txpush, {"-i", "x", "--dst-ip", "300.1.2.3"}, "IPv4"},
      {Benchmark::txpush, {"-i", "x", "--src-ip", "10.0.0"}, "IPv4"},
      {Benchmark::txpush, {"-i", "x", "--src-port", "70000"}, "--src-port"},
      {Benchmark::txpush, {"-i", "x", "-V", "-J", "4096"}, "VLAN id"},
      {Benchmark::txpush, {"-i", "x", "-V", "-K", "8"}, "VLAN priority"},
      {Benchmark::txpush, {"-i", "x", "--rate", "-5"}, "rate"},
      {Benchmark::rxdrop, {"-i", "x", "-q", "1-0"}, "backwards"},
      {Benchmark::rxdrop, {"-i", "x", "-q", "0,0"}, "twice"},
      {Benchmark::rxdrop, {"-i", "x", "-q", "a"}, "not a number"},
      {Benchmark::rxdrop, {"-i", "x", "-q", "0,"}, "empty item"},
      {Benchmark::rxdrop, {"-i", "x", "--cpu", "0-"}, "--cpu"},
      {Benchmark::rxdrop, {"-i", "x", "-N", "-S"}, "--native"},
      {Benchmark::rxdrop, {"-i", "x", "-z", "-c"}, "--zero-copy"},
      {Benchmark::l2fwd, {"-i", "x", "-z", "-S"}, "--zero-copy"},
      {Benchmark::l2fwd, {"-i", "x", "-n", "0"}, "interval"},
      {Benchmark::l2fwd, {"-i", "x", "-d", "-1"}, "duration"},
      {Benchmark::rxdrop, {"-i", "x", "-q", "4294967295"}, "4294967295 is above 4095"},
      {Benchmark::rxdrop, {"-i", "x", "--cpu", "4294967295"}, "4294967295 is above 8191"},
      {Benchmark::rxdrop, {"-i", "x", "-q", "0,4294967295"}, "4294967295 is above 4095"},
      {Benchmark::rxdrop, {"-i", "x", "-q", "4096"}, "4096 is above 4095"},
      {Benchmark::rxdrop, {"-i", "x", "--cpu", "8192"}, "8192 is above 8191"},
      {Benchmark::rxdrop, {"-i", "x", "-q", "0-64"}, "at most 64 queues"},
      {Benchmark::rxdrop, {"-i", "x", "-C", "18446744073709551616"}, "18446744073709551616"},
      {Benchmark::txpush,
       {"-i", "x", "--pcap", "-", "--loop", "18446744073709551616"},
       "18446744073709551616"},
      {Benchmark::rxdrop, {"-i", "x", "-b", "4294967296"}, "4294967296"},
      {Benchmark::rxdrop, {"-i", "x", "--frames", "4294967295"}, "4 GiB"},
      {Benchmark::rxdrop, {"-i", "x", "--ring-size", "131072"}, "65536"},
      {Benchmark::rxdrop, {"-i", "x", "--ring-size", "0"}, "power of two"},
      {Benchmark::rxdrop, {"-i", "x", "-f", "0"}, "power of two"},
      {Benchmark::rxdrop, {"-i", "x", "-u", "-f", "65537"}, "2048 to 65536"},
      {Benchmark::txpush, {"-i", "x", "-s", "0"}, "smaller than the headers"},
      {Benchmark::txpush, {"-i", "x", "-s", "4294967295"}, "larger than a frame"},
      {Benchmark::txpush, {"-i", "x", "--dst-port", "65536"}, "--dst-port"},
      {Benchmark::txpush, {"-i", "x", "-K", "4294967295"}, "VLAN priority"},
      // An empty --user or --group read as "not given" ran as root with every capability
      // (issue 41): whom to become is settled while parsing, before anything is opened.
      {Benchmark::rxdrop, {"-i", "x", "--user", ""}, "--user: empty"},
      {Benchmark::rxdrop, {"-i", "x", "--group", ""}, "--group: empty"},
      {Benchmark::l2fwd, {"-i", "x", "--drop-privileges", "--user", ""}, "--user: empty"},
      {Benchmark::txpush, {"-i", "x", "--user", "1234", "--group", ""}, "--group: empty"},
      {Benchmark::rxdrop, {"-i", "x", "--user", "no such user"}, "--user: no user"},
      {Benchmark::rxdrop, {"-i", "x", "--group", "no such group"}, "--group: no group"},
      {Benchmark::rxdrop, {"-i", "x", "--user", "4294967295"}, "--user: 4294967295"},
      {Benchmark::rxdrop, {"-i", "x", "--group", "4294967295"}, "--group: 4294967295"},
  };
  for (const BadCase& c : cases) {
    std::string joined;
    for (const auto& a : c.args) joined += a + " ";
    EXPECT_THROW_WITH(parse(c.benchmark, c.args), CLI::ParseError, c.message) << joined;
  }
}

TEST(NumberList, RangesAndLists) {
  using afxdp::tool::parse_number_list;
  EXPECT_EQ(parse_number_list("3", "q", 4294967295U), std::vector<std::uint32_t>{3});
  EXPECT_EQ(parse_number_list("0-3", "q", 4294967295U), (std::vector<std::uint32_t>{0, 1, 2, 3}));
  EXPECT_EQ(parse_number_list("4,0-1", "q", 4294967295U), (std::vector<std::uint32_t>{4, 0, 1}));
  EXPECT_THROW(parse_number_list("", "q", 4294967295U), std::invalid_argument);
  EXPECT_THROW(parse_number_list("1-2-3", "q", 4294967295U), std::invalid_argument);
  EXPECT_THROW(parse_number_list("0-100000", "q", 4294967295U), std::invalid_argument);
}

// The last value of a range is its type's largest: the loop must still end (it once wrapped to 0
// and ran forever, before any privilege check), and the value itself is refused by its bound.
TEST(NumberList, EndsAtTheLargestValueAndRefusesItNamingTheBound) {
  using afxdp::tool::parse_number_list;
  const auto message = [](const std::string& text, std::uint32_t max) {
    try {
      parse_number_list(text, "q", max);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_EQ(parse_number_list("4294967294-4294967295", "q", 4294967295U),
            (std::vector<std::uint32_t>{4294967294U, 4294967295U}));
  EXPECT_EQ(parse_number_list("4294967295", "q", 4294967295U),
            std::vector<std::uint32_t>{4294967295U});
  EXPECT_EQ(message("4294967295", 4095), "q: 4294967295 is above 4095");
  EXPECT_EQ(message("0,4294967295", 4095), "q: 4294967295 is above 4095");
  EXPECT_EQ(message("4294967000-4294967295", 4095), "q: 4294967000 is above 4095");
  EXPECT_EQ(message("4294967296", 4095), "q: 4294967296 is above 4095");
  EXPECT_EQ(message("4095", 4095), "accepted");
  EXPECT_EQ(message("4096", 4095), "q: 4096 is above 4095");
  // At most 1024 entries in all, however they are written.
  std::string many;
  for (int n = 0; n < 1025; ++n) {
    if (n != 0) many += ',';
    many += std::to_string(n);  // not "," + to_string(n): g++ 12 -O3 warns (-Wrestrict) falsely
  }
  EXPECT_EQ(message(many, 4095), "q: more than 1024 entries");
  EXPECT_EQ(message("0-1023", 4095), "accepted");
  EXPECT_EQ(message("0-511,512-1023,1024", 4095), "q: more than 1024 entries");
}

// Each option at the edges of its range, through the command line: 0, 1, the largest value it
// takes and the next one. In range is accepted here; out of range is one line (bad_input tests).
TEST(XskOptions, BoundaryIntegersAreAcceptedUpToTheirLargest) {
  const auto accepts = [](Benchmark b, std::vector<std::string> args) {
    args.insert(args.begin(), {"-i", "x"});
    try {
      parse(b, args);
      return std::string("accepted");
    } catch (const CLI::ParseError& e) {
      return std::string(e.what());
    }
  };
  for (const auto& args :
       std::vector<std::vector<std::string>>{{"-q", "0"},
                                             {"-q", "1"},
                                             {"-q", "4095"},
                                             {"-q", "0-63"},
                                             {"--cpu", "0"},
                                             {"--cpu", "1"},
                                             {"--cpu", "8191"},
                                             {"-b", "1"},
                                             {"-b", "2048"},
                                             {"--ring-size", "64", "-b", "64"},
                                             {"--ring-size", "65536"},
                                             {"-C", "0"},
                                             {"-C", "1"},
                                             {"-C", "18446744073709551615"},
                                             {"--frames", "64"},
                                             {"-b", "1", "--frames", "1"},
                                             {"--frames", "1048576"},
                                             {"-f", "2048"},
                                             {"-u", "-f", "65536", "--frames", "65536"},
                                             {"-d", "0"},
                                             {"-d", "31536000"},
                                             {"-d", "1e-9"},
                                             {"-n", "0.01"},
                                             {"-n", "86400"}}) {
    EXPECT_EQ(accepts(Benchmark::rxdrop, args), "accepted") << args[0] << " " << args[1];
  }
  for (const auto& args :
       std::vector<std::vector<std::string>>{{"-s", "42"},
                                             {"-s", "4096"},
                                             {"-J", "0"},
                                             {"-J", "4095"},
                                             {"-K", "0"},
                                             {"-K", "7"},
                                             {"--src-port", "0"},
                                             {"--src-port", "65535"},
                                             {"--dst-port", "1"},
                                             {"--dst-port", "65535"},
                                             {"--rate", "0"},
                                             {"--rate", "1"},
                                             {"--rate", "1e9"},
                                             {"--pcap", "-", "--loop", "0"},
                                             {"--pcap", "-", "--loop", "18446744073709551615"}}) {
    EXPECT_EQ(accepts(Benchmark::txpush, args), "accepted") << args[0] << " " << args[1];
  }
}

// Time options take finite seconds within the range --help states: "inf" once ended a run at
// once, 1e10 overflowed the conversion to nanoseconds, and -n 1e-10 printed in a tight loop.
TEST(XskOptions, TimeOptionsRefuseNonFiniteHugeAndTinyValues) {
  for (const char* option : {"-d", "-n"}) {
    for (const char* value : {"inf", "infinity", "nan", "1e10", "1e300", "31536001"}) {
      EXPECT_THROW_WITH(parse(Benchmark::rxdrop, {"-i", "x", option, value}), CLI::ParseError,
                        value)
          << option;
    }
  }
  for (const char* value : {"1e-10", "0.009", "86401", "0"}) {
    EXPECT_THROW(parse(Benchmark::rxdrop, {"-i", "x", "-n", value}), CLI::ParseError) << value;
  }
  for (const char* value : {"inf", "nan", "1e10", "1e300"}) {
    EXPECT_THROW(parse(Benchmark::txpush, {"-i", "x", "--rate", value}), CLI::ParseError) << value;
  }
}

// -q 0-15 --frames N used to bound one UMEM only; the memory of all queues together is bounded.
TEST(XskOptions, UmemMemoryIsBoundedOverAllQueues) {
  EXPECT_NO_THROW(parse(Benchmark::rxdrop, {"-i", "x", "-q", "0-15", "--frames", "65536"}));
  for (const bool shared : {false, true}) {
    std::vector<std::string> args{"-i", "x", "-q", "0-15", "--frames", "131072"};
    if (shared) args.push_back("-M");
    EXPECT_THROW_WITH(parse(Benchmark::rxdrop, args), CLI::ParseError, "4 GiB")
        << "16 queues of 512 MiB, shared " << shared;
  }
}

}  // namespace
