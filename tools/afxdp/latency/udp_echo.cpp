#include "latency/udp_echo.hpp"

#include "common/number_checks.hpp"
#include "common/require.hpp"
#include "subcommands.hpp"

#include <afxdp/run.hpp>
#include <afxdp/xsk/unique_fd.hpp>

#include <algorithm>
#include <arpa/inet.h>
#include <array>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <ifaddrs.h>
#include <netinet/in.h>
#include <span>
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

bool echo_allowed(const sockaddr_in& from, in_addr to) noexcept {
  const std::uint32_t source = ntohl(from.sin_addr.s_addr);
  const bool multicast = (source >> 28) == 0xE;  // 224.0.0.0/4
  const bool loopback = (source >> 24) == 127;   // 127.0.0.0/8
  return ntohs(from.sin_port) >= 1024 && from.sin_addr.s_addr != to.s_addr && source != 0 &&
         source != INADDR_BROADCAST && !multicast && !loopback;
}

bool LocalAddresses::contains(in_addr address, std::chrono::steady_clock::time_point now) {
  if (!read_once_ || now - read_ >= std::chrono::seconds(1)) {
    read_once_ = true;
    read_ = now;
    ifaddrs* list = nullptr;
    if (::getifaddrs(&list) == 0) {  // else the last list stands
      addresses_.clear();
      for (const ifaddrs* a = list; a != nullptr; a = a->ifa_next) {
        if (a->ifa_addr != nullptr && a->ifa_addr->sa_family == AF_INET) {
          sockaddr_in in{};
          std::memcpy(&in, a->ifa_addr, sizeof in);
          addresses_.push_back(in.sin_addr.s_addr);
        }
      }
      ::freeifaddrs(list);
    }
  }
  return std::find(addresses_.begin(), addresses_.end(), address.s_addr) != addresses_.end();
}

bool SourceLimiter::take(std::uint32_t address,
                         std::chrono::steady_clock::time_point now) noexcept {
  if (rate_ <= 0) return true;
  // Fibonacci hashing: the top bits of the product spread neighbouring addresses.
  const std::size_t at = (std::uint32_t{address * 2654435769U} >> 24) % slots;
  Slot& slot = table_[at];
  const double seconds = slot.used ? std::chrono::duration<double>(now - slot.last).count() : 0.0;
  const double tokens = slot.used ? std::min(burst_, slot.tokens + seconds * rate_) : burst_;
  if (slot.used && slot.address != address && tokens < burst_) {
    // Another address's bucket, still in use: shared, so that no address gets a fresh one by
    // pushing another out.
  } else {
    slot.address = address;
  }
  slot.used = true;
  slot.last = now;
  slot.tokens = tokens;
  if (slot.tokens < 1) return false;
  slot.tokens -= 1;
  return true;
}

namespace {

std::string shown(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.10g", value);
  return text;
}

// recvfrom() that also says at which of our addresses the datagram arrived (IP_PKTINFO).
ssize_t receive(int fd, std::span<unsigned char> buffer, sockaddr_in& from, in_addr& to) {
  iovec data{buffer.data(), buffer.size()};
  alignas(cmsghdr) unsigned char control[CMSG_SPACE(sizeof(in_pktinfo))];
  msghdr message{};
  message.msg_name = &from;
  message.msg_namelen = sizeof from;
  message.msg_iov = &data;
  message.msg_iovlen = 1;
  message.msg_control = control;
  message.msg_controllen = sizeof control;
  const ssize_t n = ::recvmsg(fd, &message, 0);
  to = {};
  for (cmsghdr* c = CMSG_FIRSTHDR(&message); n >= 0 && c != nullptr; c = CMSG_NXTHDR(&message, c)) {
    if (c->cmsg_level == IPPROTO_IP && c->cmsg_type == IP_PKTINFO) {
      in_pktinfo info{};
      std::memcpy(&info, CMSG_DATA(c), sizeof info);
      to = info.ipi_addr;
    }
  }
  return n;
}

}  // namespace

CLI::App* add_udp_echo_options(CLI::App& parent, UdpEchoOptions& o) {
  CLI::App* app = parent.add_subcommand(
      "udp-echo", "send every UDP datagram back to its sender (the kernel-socket reflector)");
  app->add_option("--listen", o.listen, "IPv4 address and port to receive on, e.g. 10.0.0.2:7")
      ->required();
  app->add_option("-C,--count", o.count, "stop after this many datagrams (0: at SIGINT/SIGTERM)")
      ->capture_default_str()
      ->check(not_negative_integer());
  app->add_option("--per-source-rate", o.per_source_rate,
                  "most echoes a second to one source address, so that two reflectors cannot "
                  "keep a datagram bouncing (0: no limit)")
      ->capture_default_str();
  finish_after_parsing(*app, [&o] {
    o.address = parse_endpoint(o.listen, "--listen");
    require(std::isfinite(o.per_source_rate) && o.per_source_rate >= 0 &&
                o.per_source_rate <= udp_echo_max_rate,
            "--per-source-rate: " + shown(o.per_source_rate) +
                " must be 0 (no limit) to 1000000 echoes a second");
  });
  return app;
}

Subcommand add_udp_echo_subcommand(CLI::App& parent) {
  return subcommand_of(parent, add_udp_echo_options, run_udp_echo);
}

int run_udp_echo(const UdpEchoOptions& o) {
  // SIGINT/SIGTERM interrupt the blocking recvfrom (no SA_RESTART) and end the loop.
  const SignalStop signals;
  const std::string where = endpoint_text(o.address);
  const auto fd = UniqueFd::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (::bind(fd.get(), reinterpret_cast<const sockaddr*>(&o.address), sizeof o.address) != 0) {
    throw std::system_error(errno, std::generic_category(), "bind to " + where);
  }
  const int on = 1;
  if (::setsockopt(fd.get(), IPPROTO_IP, IP_PKTINFO, &on, sizeof on) != 0) {
    throw std::system_error(errno, std::generic_category(), "setsockopt(IP_PKTINFO) on " + where);
  }
  std::uint64_t echoed = 0;
  std::uint64_t failed = 0;
  std::uint64_t ignored = 0;
  std::uint64_t limited = 0;
  LocalAddresses local;
  SourceLimiter limiter(o.per_source_rate, std::max(1.0, o.per_source_rate / 10));
  std::array<unsigned char, 65536> buffer{};
  while ((o.count == 0 || echoed < o.count) && !signals.requested()) {
    sockaddr_in from{};
    in_addr to{};
    const ssize_t n = receive(fd.get(), buffer, from, to);
    if (n < 0) {
      if (errno == EINTR) continue;
      throw std::system_error(errno, std::generic_category(), "recvfrom on " + where);
    }
    const auto now = std::chrono::steady_clock::now();
    if (!echo_allowed(from, to) || local.contains(from.sin_addr, now)) {
      ++ignored;
    } else if (!limiter.take(from.sin_addr.s_addr, now)) {
      ++limited;
    } else if (::sendto(fd.get(), buffer.data(), static_cast<std::size_t>(n), 0,
                        reinterpret_cast<const sockaddr*>(&from), sizeof from) == n) {
      ++echoed;
    } else {
      ++failed;  // a full socket buffer, or a sender gone: as for any UDP server, the datagram is
                 // lost
    }
  }
  std::fprintf(stderr,
               "udp-echo: %llu datagrams echoed on %s (%llu could not be sent, %llu not answered, "
               "%llu over the per-source rate)\n",
               static_cast<unsigned long long>(echoed), where.c_str(),
               static_cast<unsigned long long>(failed), static_cast<unsigned long long>(ignored),
               static_cast<unsigned long long>(limited));
  return 0;
}

}  // namespace afxdp::tool
