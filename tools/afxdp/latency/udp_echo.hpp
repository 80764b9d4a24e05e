// `afxdp udp-echo --listen ADDR:PORT`: the kernel-socket reflector, the baseline `afxdp latency
// --udp` measures against. A plain UDP socket: blocking recvfrom(), then sendto() of the same
// bytes to their sender, the way a user would write it without AF_XDP. Stops after -C datagrams
// or at SIGINT/SIGTERM, with a count on stderr (exit 0).
#pragma once

#include "subcommands.hpp"

#include <cstdint>
#include <netinet/in.h>
#include <string>

namespace afxdp::tool {

// "a.b.c.d:port" (port 1 to 65535). Throws std::invalid_argument naming `what`.
sockaddr_in parse_endpoint(const std::string& text, const char* what);
std::string endpoint_text(const sockaddr_in& address);

// Is a datagram from `from`, which arrived at our address `to`, one to answer? Not from a source
// port below 1024 (another service, maybe a reflector), not from our own address (ourselves, or
// another instance on this host), not from a broadcast, multicast or unspecified address: one
// spoofed datagram must not start an exchange that never ends.
bool echo_allowed(const sockaddr_in& from, in_addr to) noexcept;

struct UdpEchoOptions {
  std::string listen;       // --listen ADDR:PORT
  std::uint64_t count = 0;  // -C: 0 is until interrupted
  sockaddr_in address{};    // parsed --listen
};

// Adds the `udp-echo` sub-app bound to `options`; --listen is parsed when the line is (pure).
CLI::App* add_udp_echo_options(CLI::App& parent, UdpEchoOptions& options);
Subcommand add_udp_echo_subcommand(CLI::App& parent);
int run_udp_echo(const UdpEchoOptions& options);

}  // namespace afxdp::tool
