// `afxdp gen -i IF`: a traffic source of one Ethernet/IPv4/UDP frame, sent out of IF by one of
// two engines: the kernel's live-frames test run (gen/live_source.hpp: no socket, no copy per
// frame) or, where the kernel refuses that, AF_XDP transmit (gen/xsk_source.hpp). `auto` tries
// live frames with the first frame and falls back, saying so on stderr.
#pragma once

#include "subcommands.hpp"

#include <cstdint>
#include <string>

namespace afxdp::tool {

enum class GenEngine { automatic, live, xsk };
// "auto", "live", "xsk": as --engine spells them.
const char* engine_name(GenEngine engine) noexcept;

struct GenOptions {
  std::string interface;
  std::size_t size = 64;              // frame size without FCS
  std::uint64_t count = 0;            // total frames; 0: until -d or a signal
  std::uint64_t rate = 0;             // frames per second; 0: as fast as the kernel goes
  std::string dst_mac;                // empty: IF's veth peer when found, else broadcast
  std::string src_mac;                // empty: IF's own
  std::string src_ip = "198.18.0.1";  // RFC 2544's benchmarking range
  std::string dst_ip = "198.18.0.2";
  std::uint16_t src_port = 9;
  std::uint16_t dst_port = 9;  // discard
  int cpu = -1;                // pin the sending thread (the test run executes on it)
  double duration = 0;         // seconds; 0: until -C or a signal
  bool json = false;
  bool quiet = false;             // only the final summary
  std::uint32_t batch_size = 64;  // frames the kernel runs per batch (1..256)
  GenEngine engine = GenEngine::automatic;
  // xsk: the queue the socket sends on (veth hands its frames to the peer's rx queue of that
  // number). live ignores it: the sending CPU picks a veth peer's queue.
  std::uint32_t queue = 0;
};

inline constexpr std::size_t gen_min_size = 60;    // the Ethernet minimum without FCS
inline constexpr std::size_t gen_max_size = 3520;  // one page less XDP headroom and tailroom

// Adds the `gen` sub-app with its options bound to `options` (pure: no syscalls).
CLI::App* add_gen_options(CLI::App& parent, GenOptions& options);
Subcommand add_gen_subcommand(CLI::App& parent);
// Runs gen; returns the exit code, throws on failure.
int run_gen(const GenOptions& options);

}  // namespace afxdp::tool
