// The parts of `afxdp latency` that need no kernel: percentiles and histogram, the matching of
// echoes to probes, the options and their bounds.
#include <latency/latency.hpp>
#include <latency/latency_probe.hpp>
#include <latency/latency_report.hpp>

#include <afxdp/port.hpp>

#include "expect_throw.hpp"
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <numeric>
#include <random>

namespace {

using namespace afxdp::tool;

TEST(LatencyReport, PercentilesAreNearestRank) {
  std::vector<std::uint64_t> ns(1000);
  std::iota(ns.begin(), ns.end(), 1);  // 1..1000 ns
  std::shuffle(ns.begin(), ns.end(), std::mt19937(7));
  const RoundTrips r = summarize(ns);
  EXPECT_TRUE(std::is_sorted(ns.begin(), ns.end()));
  EXPECT_DOUBLE_EQ(r.min_us, 0.001);
  EXPECT_DOUBLE_EQ(r.p50_us, 0.5);
  EXPECT_DOUBLE_EQ(r.p90_us, 0.9);
  EXPECT_DOUBLE_EQ(r.p99_us, 0.99);
  EXPECT_DOUBLE_EQ(r.p999_us, 0.999);
  EXPECT_DOUBLE_EQ(r.max_us, 1.0);
  EXPECT_DOUBLE_EQ(r.mean_us, 0.5005);
}

TEST(LatencyReport, OneValueIsEveryPercentile) {
  std::vector<std::uint64_t> ns{4200};
  const RoundTrips r = summarize(ns);
  for (const double p : {r.min_us, r.p50_us, r.p90_us, r.p99_us, r.p999_us, r.max_us}) {
    EXPECT_DOUBLE_EQ(p, 4.2);
  }
}

TEST(LatencyReport, HistogramHoldsEveryValueOnceInLogSpacedBuckets) {
  // 3 us, an edge (5 us goes above it), 5.5 us twice, 90 us, 2 s.
  const std::vector<std::uint64_t> ns{3000, 5000, 5500, 5500, 90000, 2'000'000'000};
  const std::vector<Bucket> b = histogram(ns);
  ASSERT_FALSE(b.empty());
  std::uint64_t total = 0;
  for (std::size_t i = 0; i < b.size(); ++i) {
    total += b[i].count;
    EXPECT_LT(b[i].from_us, b[i].to_us);
    if (i > 0) {
      EXPECT_DOUBLE_EQ(b[i].from_us, b[i - 1].to_us);
    }
    // Log-spaced: each bucket about 1.26 times the last (R10 rounds 3.15 and 6.3).
    EXPECT_NEAR(b[i].to_us / b[i].from_us, 1.26, 0.04) << i;
  }
  EXPECT_EQ(total, ns.size());
  EXPECT_DOUBLE_EQ(b.front().from_us, 2.5);  // trimmed: the first bucket holds the smallest
  EXPECT_EQ(b.front().count, 1U);
  EXPECT_EQ(b.back().count, 1U);  // and the last the largest
  EXPECT_DOUBLE_EQ(b.back().from_us, 2'000'000.0);
  const auto at = [&](double from) {
    return std::find_if(b.begin(), b.end(), [&](const Bucket& x) { return x.from_us == from; })
        ->count;
  };
  EXPECT_EQ(at(4.0), 0U);
  EXPECT_EQ(at(5.0), 3U);
  EXPECT_TRUE(histogram({}).empty());
}

TEST(LatencyReport, JsonAndTextCarryTheCounts) {
  LatencyResult r;
  r.transport = "af_xdp";
  r.path = "veth0:0 (xdp-drv, copy mode)";
  r.wait = "poll";
  r.rate = 1000;
  r.size = 64;
  r.sent = 10;
  r.received = 8;
  r.duplicates = 1;
  r.strays = 2;
  std::vector<std::uint64_t> ns{1000, 2000, 3000, 4000, 5000, 6000, 7000, 8000};
  r.round_trips = summarize(ns);
  r.buckets = histogram(ns);
  const std::string json = latency_json(r);
  for (const char* part :
       {"\"latency\":true", "\"sent\":10", "\"received\":8", "\"lost\":2", "\"duplicates\":1",
        "\"strays\":2", "\"p50_us\":4.000", "\"p99_9_us\":8.000", "\"histogram\":[{"}) {
    EXPECT_NE(json.find(part), std::string::npos) << part << " in " << json;
  }
  EXPECT_EQ(json.back(), '\n');
  EXPECT_EQ(std::count(json.begin(), json.end(), '\n'), 1);
  const std::string text = latency_text(r);
  EXPECT_NE(text.find("sent 10, received 8, lost 2"), std::string::npos) << text;
  EXPECT_NE(text.find("p99.9 8.00"), std::string::npos) << text;
}

// The path names an interface, which may hold any byte but '/', ':' and white space: a control
// character in it once went into the JSON line raw (its own quoting escaped only '"' and '\\').
TEST(LatencyReport, JsonEscapesControlCharactersInThePath) {
  LatencyResult r;
  r.transport = "af_xdp";
  r.path = std::string("ve\x01th\"0\\:0");
  r.wait = "spin";
  const std::string json = latency_json(r);
  EXPECT_NE(json.find("\"path\":\"ve\\u0001th\\\"0\\\\:0\""), std::string::npos) << json;
  EXPECT_EQ(std::count_if(json.begin(), json.end(),
                          [](char c) { return static_cast<unsigned char>(c) < 0x20 && c != '\n'; }),
            0)
      << json;
}

std::array<std::byte, probe_bytes> payload(const Probe& p) {
  std::array<std::byte, probe_bytes> bytes{};
  write_probe(bytes.data(), p);
  return bytes;
}

TEST(LatencyProbes, AnEchoCountsOnceAndOnlyForAProbeInFlight) {
  ProbeBook book(77, 4);
  const Probe first = book.next();
  EXPECT_EQ(first.sequence, 0U);
  EXPECT_EQ(book.next(2).sequence, 2U);
  book.mark_sent(2);  // probes 0 and 1 in flight
  const std::uint64_t now = first.sent_ns + 5000;
  book.answer(payload({77, 1, first.sent_ns}), now);
  EXPECT_EQ(book.received(), 1U);
  EXPECT_EQ(book.round_trips_ns().front(), 5000U);
  book.answer(payload({77, 1, first.sent_ns}), now);  // again
  EXPECT_EQ(book.duplicates(), 1U);
  book.answer(payload({78, 0, first.sent_ns}), now);  // another run's
  book.answer(payload({77, 2, first.sent_ns}), now);  // not sent yet
  book.answer(payload({77, 4, first.sent_ns}), now);  // beyond -C
  book.answer(payload({77, 0, now + 1}), now);        // sent in the future
  std::array<std::byte, probe_bytes> not_ours = payload({77, 0, first.sent_ns});
  not_ours[0] = std::byte{0};
  book.answer(not_ours, now);
  book.answer(std::span<const std::byte>(not_ours.data(), probe_bytes - 1), now);  // too short
  EXPECT_EQ(book.strays(), 6U);
  EXPECT_EQ(book.received(), 1U);
  EXPECT_EQ(book.outstanding(), 1U);
  book.answer(payload({77, 0, first.sent_ns}), now);
  EXPECT_EQ(book.outstanding(), 0U);
  EXPECT_EQ(book.received(), 2U);
}

LatencyOptions parse(std::vector<std::string> args) {
  CLI::App app{"test", "afxdp"};
  LatencyOptions options;
  add_latency_options(app, options);
  args.insert(args.begin(), "latency");
  std::reverse(args.begin(), args.end());  // CLI11 takes the vector reversed
  app.parse(args);
  return options;
}

// The library's side of --spin-before-sleep: PortConfig takes 0 to 1 s and names the field.
TEST(SpinBeforeSleep, PortConfigTakesZeroToOneSecond) {
  using std::chrono::nanoseconds;
  EXPECT_NO_THROW(afxdp::validate(afxdp::PortConfig{.spin_before_sleep = nanoseconds(0)}));
  EXPECT_NO_THROW(afxdp::validate(afxdp::PortConfig{.spin_before_sleep = std::chrono::seconds(1)}));
  for (const nanoseconds bad : {nanoseconds(-1), nanoseconds(1'000'000'001)}) {
    EXPECT_THROW_WITH(afxdp::validate(afxdp::PortConfig{.spin_before_sleep = bad}),
                      std::invalid_argument, "spin_before_sleep")
        << bad.count() << " ns";
  }
}

TEST(LatencyOptions, Defaults) {
  const LatencyOptions o = parse({"-i", "veth0"});
  EXPECT_EQ(o.interface, "veth0");
  EXPECT_EQ(o.queue, 0U);
  EXPECT_EQ(o.rate, 1000);
  EXPECT_EQ(o.count, 10000U);
  EXPECT_EQ(o.size, 64U);
  EXPECT_EQ(o.wait, LatencyWait::poll);
  EXPECT_EQ(o.timeout, 2);
  EXPECT_FALSE(o.udp.has_value());
  EXPECT_FALSE(o.dst_mac.has_value());
  EXPECT_FALSE(o.cpu.has_value());
  EXPECT_EQ(o.spin_us, 0);
}

TEST(LatencyOptions, EveryOption) {
  const LatencyOptions o =
      parse({"-i", "eth1",  "-q",     "2",         "--rate",    "2e4", "-C", "500",
             "-s", "128",   "--wait", "busy-poll", "--timeout", "0.5", "-G", "02:00:00:00:00:0a",
             "-S", "--cpu", "1",      "--json"});
  EXPECT_EQ(o.queue, 2U);
  EXPECT_EQ(o.rate, 20000);
  EXPECT_EQ(o.count, 500U);
  EXPECT_EQ(o.size, 128U);
  EXPECT_EQ(o.wait, LatencyWait::busy_poll);
  EXPECT_EQ(o.timeout, 0.5);
  ASSERT_TRUE(o.dst_mac.has_value());
  EXPECT_EQ((*o.dst_mac)[5], 0x0a);
  EXPECT_TRUE(o.skb);
  EXPECT_EQ(o.cpu, 1U);
  EXPECT_TRUE(o.json);
  const LatencyOptions u = parse({"--udp", "10.0.0.2:7", "--wait", "spin"});
  ASSERT_TRUE(u.udp.has_value());
  EXPECT_EQ(ntohs(u.udp->sin_port), 7);
  EXPECT_EQ(u.wait, LatencyWait::spin);
  EXPECT_EQ(parse({"-i", "a", "--spin-before-sleep", "25.5"}).spin_us, 25.5);
}

TEST(LatencyOptions, BadInputNamesTheOption) {
  const std::vector<std::pair<std::vector<std::string>, std::string>> bad = {
      {{}, "--interface or --udp"},
      {{"-i", "a", "--udp", "10.0.0.2:7"}, "--udp"},
      {{"-i", "a", "--rate", "0"}, "--rate"},
      {{"-i", "a", "--rate=-1"}, "--rate"},
      {{"-i", "a", "--rate", "nan"}, "--rate"},
      {{"-i", "a", "--rate", "inf"}, "--rate"},
      {{"-i", "a", "--rate", "1000001"}, "at most 1000000"},
      {{"-i", "a", "-C", "0"}, "--count"},
      {{"-i", "a", "-C", "10000001"}, "10000000"},
      {{"-i", "a", "-C", "-1"}, "--count"},
      {{"-i", "a", "-s", "61"}, "--size"},
      {{"-i", "a", "-s", "1515"}, "--size"},
      {{"-i", "a", "--wait", "sleep"}, "--wait"},
      {{"-i", "a", "--timeout", "0"}, "--timeout"},
      {{"-i", "a", "--timeout", "61"}, "--timeout"},
      {{"-i", "a", "--timeout", "inf"}, "--timeout"},
      {{"-i", "a", "-G", "02:00"}, "MAC"},
      {{"-i", "a", "--cpu", "0,1"}, "--cpu"},
      {{"-i", "a", "--cpu", "8192"}, "8191"},
      {{"-i", "a", "-q", "4096"}, "4095"},
      {{"--udp", "10.0.0.2"}, "--udp"},
      {{"--udp", "10.0.0.2:0"}, "--udp"},
      {{"--udp", "10.0.0:7"}, "--udp"},
      {{"--udp", "10.0.0.2:7", "--wait", "busy-poll"}, "busy-poll"},
      {{"--udp", "10.0.0.2:7", "-q", "1"}, "--udp"},
      {{"-i", "a", "--spin-before-sleep=-1"}, "--spin-before-sleep"},
      {{"-i", "a", "--spin-before-sleep", "1000001"}, "--spin-before-sleep"},
      {{"-i", "a", "--spin-before-sleep", "nan"}, "--spin-before-sleep"},
      {{"-i", "a", "--wait", "busy-poll", "--spin-before-sleep", "10"},
       "not with --wait busy-poll"},
      {{"--udp", "10.0.0.2:7", "--spin-before-sleep", "10"}, "--udp"},
  };
  for (const auto& c : bad) {  // no structured binding: clang cannot capture one in a lambda
    std::string label;
    for (const auto& a : c.first) label += a + " ";
    EXPECT_THROW_WITH(parse(c.first), CLI::ParseError, c.second) << label;
  }
}

}  // namespace
