// What `afxdp latency` reports: percentiles of the round trips (nearest rank), a histogram with
// log-spaced buckets, the probes lost, as a text table or one JSON line. Pure: unit-tested.
#pragma once

#include <afxdp/steering/steering.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace afxdp::tool {

struct RoundTrips {
  double min_us = 0, p50_us = 0, p90_us = 0, p99_us = 0, p999_us = 0, max_us = 0, mean_us = 0;
};

// Sorts `ns` (not empty) and reads the percentiles off it: the p-th is the smallest value with
// at least p% of the values at or below it.
RoundTrips summarize(std::vector<std::uint64_t>& ns);

struct Bucket {
  double from_us = 0;  // inclusive
  double to_us = 0;    // exclusive
  std::uint64_t count = 0;
};

// Ten buckets per decade (edges 1, 1.25, 1.6, 2, 2.5, 3.15, 4, 5, 6.3, 8 times a power of ten,
// from 0.1 us on), from the first that holds a value to the last. `sorted_ns` ascending.
std::vector<Bucket> histogram(const std::vector<std::uint64_t>& sorted_ns);

struct LatencyResult {
  std::string transport;   // "af_xdp" or "udp"
  std::string path;        // "veth0:0 (xdp-drv, copy mode)" or "10.0.0.2:7"
  std::string wait;        // spin, poll, busy-poll
  double rate = 0;         // probes per second asked for
  std::uint32_t size = 0;  // bytes per probe frame (AF_XDP) or datagram's frame (UDP)
  std::uint64_t sent = 0, received = 0, duplicates = 0, strays = 0;
  double seconds = 0;      // from the first probe to the end
  double cpu_seconds = 0;  // this process's, user and system, over the same time
  RoundTrips round_trips;
  std::vector<Bucket> buckets;
  std::vector<SteeringRule> steering;  // AF_XDP with --steer: each rule's hits
  [[nodiscard]] std::uint64_t lost() const noexcept { return sent - received; }
};

std::string latency_text(const LatencyResult& result);
std::string latency_json(const LatencyResult& result);  // one line, with its '\n'

}  // namespace afxdp::tool
