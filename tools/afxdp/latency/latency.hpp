// `afxdp latency`: round trips through a reflector. Probes (latency_probe.hpp) leave at --rate,
// from an AF_XDP socket on -i IF (or, with --udp ADDR:PORT, from a plain UDP socket: the
// baseline), and whatever is on the other end sends each back (`afxdp l2fwd`, xdpsock l2fwd,
// `afxdp udp-echo`). Reports percentiles, a histogram and the probes lost (latency_report.hpp).
//
// Always ends: after -C probes (count / rate seconds), it waits --timeout for the last echoes;
// no echo at all within --timeout of the first probe is an error at once. Lost probes are
// reported, then a one-line error and exit 1.
#pragma once

#include "common/parse.hpp"
#include "subcommands.hpp"

#include <afxdp/steering/match.hpp>

#include <cstdint>
#include <netinet/in.h>
#include <optional>
#include <string>
#include <vector>

namespace afxdp::tool {

enum class LatencyWait { spin, poll, busy_poll };
const char* latency_wait_name(LatencyWait wait);

inline constexpr double latency_max_rate = 1'000'000;  // probes per second
inline constexpr std::uint64_t latency_max_count = 10'000'000;
inline constexpr double latency_max_timeout = 60;         // seconds
inline constexpr std::uint32_t latency_min_size = 62;     // Ethernet, IPv4, UDP, the probe
inline constexpr std::uint32_t latency_max_size = 1514;   // a 1500-byte MTU's frame
inline constexpr double latency_max_spin_us = 1'000'000;  // PortConfig::spin_before_sleep's limit

struct LatencyOptions {
  std::string interface;           // -i: AF_XDP on this interface
  std::uint32_t queue = 0;         // -q
  std::string udp_text;            // --udp ADDR:PORT: a UDP socket instead
  double rate = 1000;              // --rate probes per second
  std::uint64_t count = 10000;     // -C probes
  std::uint32_t size = 64;         // -s frame bytes (with --udp: the datagram is size - 42)
  std::string wait_text = "poll";  // --wait
  double spin_us = 0;              // --spin-before-sleep microseconds (AF_XDP, --wait poll)
  double timeout = 2;              // --timeout seconds
  std::string dst_mac_text;        // -G: default broadcast
  bool skb = false;                // -S
  std::string cpu_text;            // --cpu N
  bool json = false;               // --json
  // --steer (AF_XDP only): only these frames reach the socket, the rest the kernel
  std::vector<std::string> steer_texts;

  // Filled in by finish_latency_options.
  LatencyWait wait = LatencyWait::poll;
  std::optional<sockaddr_in> udp;
  std::optional<Mac> dst_mac;
  std::optional<unsigned> cpu;
  std::vector<Match> steer;
};

// Adds `latency` to `parent`, bound to `options`; parsing ends in finish_latency_options (pure).
CLI::App* add_latency_options(CLI::App& parent, LatencyOptions& options);
// Every rule that needs no kernel; throws std::invalid_argument naming the option.
void finish_latency_options(LatencyOptions& options);
Subcommand add_latency_subcommand(CLI::App& parent);
int run_latency(const LatencyOptions& options);

}  // namespace afxdp::tool
