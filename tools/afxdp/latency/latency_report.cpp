#include "latency/latency_report.hpp"

#include "common/json.hpp"
#include "common/steer.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <numeric>

namespace afxdp::tool {
namespace {

// The Renard series R10, rounded as usual: each step about 1.26x, ten to a decade.
constexpr double steps[] = {1.0, 1.25, 1.6, 2.0, 2.5, 3.15, 4.0, 5.0, 6.3, 8.0};

// Upper edges in ns from 0.1 us up to beyond 10 s; the last is open.
std::vector<double> edges_ns() {
  std::vector<double> edges;
  for (double decade = 100; decade < 1e11; decade *= 10) {
    for (const double step : steps) edges.push_back(decade * step);
  }
  return edges;
}

std::string number(double value) {
  char text[32];
  std::snprintf(text, sizeof text, value < 100 ? "%.2f" : value < 10000 ? "%.1f" : "%.0f", value);
  return text;
}

}  // namespace

RoundTrips summarize(std::vector<std::uint64_t>& ns) {
  std::sort(ns.begin(), ns.end());
  // In integers: 99.9 / 100 * 1000 is a hair above 999 in doubles, and its ceiling one rank off.
  const auto rank = [&](std::uint64_t per_mille) {
    const std::uint64_t at = (per_mille * ns.size() + 999) / 1000;
    return static_cast<double>(ns[std::clamp<std::uint64_t>(at, 1, ns.size()) - 1]) / 1000.0;
  };
  RoundTrips r;
  r.min_us = static_cast<double>(ns.front()) / 1000.0;
  r.p50_us = rank(500);
  r.p90_us = rank(900);
  r.p99_us = rank(990);
  r.p999_us = rank(999);
  r.max_us = static_cast<double>(ns.back()) / 1000.0;
  const long double sum = std::accumulate(ns.begin(), ns.end(), 0.0L);
  r.mean_us = static_cast<double>(sum / static_cast<long double>(ns.size()) / 1000.0L);
  return r;
}

std::vector<Bucket> histogram(const std::vector<std::uint64_t>& sorted_ns) {
  std::vector<Bucket> buckets;
  if (sorted_ns.empty()) return buckets;
  const std::vector<double> edges = edges_ns();
  double from = 0;
  auto value = sorted_ns.begin();
  for (std::size_t i = 0; i <= edges.size() && value != sorted_ns.end(); ++i) {
    const double to = i < edges.size() ? edges[i] : std::numeric_limits<double>::infinity();
    const auto end = std::lower_bound(value, sorted_ns.end(), to, [](std::uint64_t v, double edge) {
      return static_cast<double>(v) < edge;
    });
    const auto count = static_cast<std::uint64_t>(end - value);
    if (count != 0 || !buckets.empty()) buckets.push_back({from / 1000.0, to / 1000.0, count});
    value = end;
    from = to;
  }
  return buckets;
}

std::string latency_text(const LatencyResult& r) {
  std::string out;
  char line[256];
  std::snprintf(line, sizeof line, "latency: %s through %s, wait %s, %s probes/s, %u bytes\n",
                r.transport == "udp" ? "UDP" : "AF_XDP", r.path.c_str(), r.wait.c_str(),
                number(r.rate).c_str(), r.size);
  out += line;
  std::snprintf(
      line, sizeof line,
      "probes: sent %llu, received %llu, lost %llu; duplicates %llu, strays %llu\n",
      static_cast<unsigned long long>(r.sent), static_cast<unsigned long long>(r.received),
      static_cast<unsigned long long>(r.lost()), static_cast<unsigned long long>(r.duplicates),
      static_cast<unsigned long long>(r.strays));
  out += line;
  const RoundTrips& t = r.round_trips;
  out += "round trip (us): min " + number(t.min_us) + "  p50 " + number(t.p50_us) + "  p90 " +
         number(t.p90_us) + "  p99 " + number(t.p99_us) + "  p99.9 " + number(t.p999_us) +
         "  max " + number(t.max_us) + "  mean " + number(t.mean_us) + "\n";
  std::snprintf(line, sizeof line, "cpu: %.3f s in %.3f s (%.1f%% of one CPU)\n", r.cpu_seconds,
                r.seconds, r.seconds > 0 ? 100.0 * r.cpu_seconds / r.seconds : 0.0);
  out += line;
  std::uint64_t most = 0;
  for (const Bucket& b : r.buckets) most = std::max(most, b.count);
  out += "histogram (us)\n";
  for (const Bucket& b : r.buckets) {
    const int width = most == 0 ? 0 : static_cast<int>((b.count * 50 + most - 1) / most);
    const std::string to = std::isinf(b.to_us) ? "inf" : number(b.to_us);
    std::snprintf(line, sizeof line, "  %9s - %-9s %9llu %s\n", number(b.from_us).c_str(),
                  to.c_str(), static_cast<unsigned long long>(b.count),
                  std::string(static_cast<std::size_t>(width), '#').c_str());
    out += line;
  }
  return out + steering_text(r.steering);
}

std::string latency_json(const LatencyResult& r) {
  const auto field = [](const char* name, double value) {
    char text[64];
    std::snprintf(text, sizeof text, ",\"%s\":%.3f", name, value);
    return std::string(text);
  };
  const auto count = [](const char* name, std::uint64_t value) {
    return std::string(",\"") + name + "\":" + std::to_string(value);
  };
  const RoundTrips& t = r.round_trips;
  std::string out = "{\"latency\":true,\"transport\":" + json_string(r.transport) +
                    ",\"path\":" + json_string(r.path) + ",\"wait\":" + json_string(r.wait);
  out += field("rate", r.rate) + count("size", r.size) + count("sent", r.sent) +
         count("received", r.received) + count("lost", r.lost()) +
         count("duplicates", r.duplicates) + count("strays", r.strays);
  out += field("min_us", t.min_us) + field("p50_us", t.p50_us) + field("p90_us", t.p90_us) +
         field("p99_us", t.p99_us) + field("p99_9_us", t.p999_us) + field("max_us", t.max_us) +
         field("mean_us", t.mean_us) + field("seconds", r.seconds) +
         field("cpu_seconds", r.cpu_seconds);
  out += ",\"histogram\":[";
  for (std::size_t i = 0; i < r.buckets.size(); ++i) {
    const Bucket& b = r.buckets[i];
    char text[96];
    // The last bucket is open above: JSON has no infinity, so it has no "to_us".
    if (std::isinf(b.to_us)) {
      std::snprintf(text, sizeof text, "%s{\"from_us\":%.3f,\"count\":%llu}", i ? "," : "",
                    b.from_us, static_cast<unsigned long long>(b.count));
    } else {
      std::snprintf(text, sizeof text, "%s{\"from_us\":%.3f,\"to_us\":%.3f,\"count\":%llu}",
                    i ? "," : "", b.from_us, b.to_us, static_cast<unsigned long long>(b.count));
    }
    out += text;
  }
  out += "]";
  if (!r.steering.empty()) out += ",\"steering\":" + steering_json(r.steering);
  return out + "}\n";
}

}  // namespace afxdp::tool
