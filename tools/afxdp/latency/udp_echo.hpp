// `afxdp udp-echo --listen ADDR:PORT`: the kernel-socket reflector, the baseline `afxdp latency
// --udp` measures against. A plain UDP socket: blocking recvfrom(), then sendto() of the same
// bytes to their sender, the way a user would write it without AF_XDP. Stops after -C datagrams
// or at SIGINT/SIGTERM, with a count on stderr (exit 0).
#pragma once

#include "subcommands.hpp"

#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <netinet/in.h>
#include <string>
#include <vector>

namespace afxdp::tool {

// "a.b.c.d:port" (port 1 to 65535). Throws std::invalid_argument naming `what`.
sockaddr_in parse_endpoint(const std::string& text, const char* what);
std::string endpoint_text(const sockaddr_in& address);

// Is a datagram from `from`, which arrived at our address `to`, one to answer? Not from a source
// port below 1024 (another service, maybe a reflector), not from our own address (ourselves, or
// another instance on this host), not from a loopback (127/8), broadcast, multicast or
// unspecified address: one spoofed datagram must not start an exchange that never ends.
// udp-echo also refuses every other address of this host (LocalAddresses) and limits each source
// (SourceLimiter).
bool echo_allowed(const sockaddr_in& from, in_addr to) noexcept;

// The IPv4 addresses of this host's interfaces (getifaddrs), read again at most once a second:
// a datagram "from" one of them is spoofed, or another reflector here.
class LocalAddresses {
 public:
  bool contains(in_addr address, std::chrono::steady_clock::time_point now);

 private:
  std::vector<std::uint32_t> addresses_;  // network byte order
  std::chrono::steady_clock::time_point read_{};
  bool read_once_ = false;
};

// At most `rate` echoes a second to one source address, in bursts of at most `burst`: a token
// bucket per address in a small fixed table. A datagram bouncing between two reflectors returns
// as fast as the round trip allows; once that outruns `rate` the bucket empties, one echo is not
// sent, and the exchange ends (a loop needs every echo). A loop slower than `rate` is held to
// the round trip's pace. Addresses that share a slot share a bucket while it is in use. Rate 0:
// no limit. Not thread-safe: the echo loop's.
class SourceLimiter {
 public:
  static constexpr std::size_t slots = 256;
  SourceLimiter(double rate, double burst) noexcept : rate_(rate), burst_(burst) {}
  // Whether `address` (network byte order) may have one more echo at `now`; takes it when so.
  bool take(std::uint32_t address, std::chrono::steady_clock::time_point now) noexcept;

 private:
  struct Slot {
    std::uint32_t address = 0;
    bool used = false;
    double tokens = 0;
    std::chrono::steady_clock::time_point last{};
  };
  std::array<Slot, slots> table_{};
  double rate_;
  double burst_;
};

inline constexpr double udp_echo_default_rate = 1000;  // --per-source-rate: echoes a second
inline constexpr double udp_echo_max_rate = 1'000'000;

struct UdpEchoOptions {
  std::string listen;       // --listen ADDR:PORT
  std::uint64_t count = 0;  // -C: 0 is until interrupted
  // --per-source-rate: echoes a second to one source address, bursts of a tenth of that (at
  // least 1); 0: no limit
  double per_source_rate = udp_echo_default_rate;
  sockaddr_in address{};  // parsed --listen
};

// Adds the `udp-echo` sub-app bound to `options`; --listen is parsed when the line is (pure).
CLI::App* add_udp_echo_options(CLI::App& parent, UdpEchoOptions& options);
Subcommand add_udp_echo_subcommand(CLI::App& parent);
int run_udp_echo(const UdpEchoOptions& options);

}  // namespace afxdp::tool
