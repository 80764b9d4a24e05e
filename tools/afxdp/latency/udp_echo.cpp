#include "latency/udp_echo.hpp"

#include "common/number_checks.hpp"
#include "subcommands.hpp"

#include <afxdp/run.hpp>
#include <afxdp/unique_fd.hpp>

#include <arpa/inet.h>
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <stdexcept>
#include <sys/socket.h>
#include <system_error>

namespace afxdp::tool {

sockaddr_in parse_endpoint(const std::string& text, const char* what) {
  const std::string rule =
      std::string(what) + ": '" + text + "' is not ADDRESS:PORT (e.g. 10.0.0.2:7)";
  const std::size_t colon = text.rfind(':');
  if (colon == std::string::npos) throw std::invalid_argument(rule);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  if (::inet_pton(AF_INET, text.substr(0, colon).c_str(), &address.sin_addr) != 1) {
    throw std::invalid_argument(rule);
  }
  unsigned port = 0;
  const char* first = text.data() + colon + 1;
  const char* last = text.data() + text.size();
  const auto [end, error] = std::from_chars(first, last, port);
  if (error != std::errc{} || end != last || first == last) throw std::invalid_argument(rule);
  if (port == 0 || port > 65535) {
    throw std::invalid_argument(std::string(what) + ": port " + text.substr(colon + 1) +
                                " must be 1 to 65535");
  }
  address.sin_port = htons(static_cast<std::uint16_t>(port));
  return address;
}

std::string endpoint_text(const sockaddr_in& address) {
  char text[INET_ADDRSTRLEN] = {};
  ::inet_ntop(AF_INET, &address.sin_addr, text, sizeof text);
  return std::string(text) + ":" + std::to_string(ntohs(address.sin_port));
}

CLI::App* add_udp_echo_options(CLI::App& parent, UdpEchoOptions& o) {
  CLI::App* app = parent.add_subcommand(
      "udp-echo", "send every UDP datagram back to its sender (the kernel-socket reflector)");
  app->add_option("--listen", o.listen, "IPv4 address and port to receive on, e.g. 10.0.0.2:7")
      ->required();
  app->add_option("-C,--count", o.count, "stop after this many datagrams (0: at SIGINT/SIGTERM)")
      ->capture_default_str()
      ->check(not_negative_integer());
  finish_after_parsing(*app, [&o] { o.address = parse_endpoint(o.listen, "--listen"); });
  return app;
}

Command add_udp_echo_command(CLI::App& parent) {
  return command_of(parent, add_udp_echo_options, run_udp_echo);
}

int run_udp_echo(const UdpEchoOptions& o) {
  // SIGINT/SIGTERM interrupt the blocking recvfrom (no SA_RESTART) and end the loop.
  const SignalStop signals;
  const std::string where = endpoint_text(o.address);
  const auto fd = UniqueFd::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (::bind(fd.get(), reinterpret_cast<const sockaddr*>(&o.address), sizeof o.address) != 0) {
    throw std::system_error(errno, std::generic_category(), "bind to " + where);
  }
  std::uint64_t echoed = 0;
  std::uint64_t failed = 0;
  unsigned char buffer[65536];
  while ((o.count == 0 || echoed < o.count) && !signals.requested()) {
    sockaddr_in from{};
    socklen_t from_size = sizeof from;
    const ssize_t n = ::recvfrom(fd.get(), buffer, sizeof buffer, 0,
                                 reinterpret_cast<sockaddr*>(&from), &from_size);
    if (n < 0) {
      if (errno == EINTR) continue;
      throw std::system_error(errno, std::generic_category(), "recvfrom on " + where);
    }
    if (::sendto(fd.get(), buffer, static_cast<std::size_t>(n), 0,
                 reinterpret_cast<const sockaddr*>(&from), from_size) == n) {
      ++echoed;
    } else {
      ++failed;  // a full socket buffer, or a sender gone: as for any UDP server, the datagram is
                 // lost
    }
  }
  std::fprintf(stderr, "udp-echo: %llu datagrams echoed on %s (%llu could not be sent)\n",
               static_cast<unsigned long long>(echoed), where.c_str(),
               static_cast<unsigned long long>(failed));
  return 0;
}

}  // namespace afxdp::tool
