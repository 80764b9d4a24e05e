// examples/udp_service.cpp as a user runs it: on an interface with an address, beside the
// kernel's own traffic. The client is a second network namespace on the veth pair's far end that
// uses kernel sockets only. Datagrams to the service's port come back (the client's kernel checks
// their checksums and drops a bad one: the sender's kernel leaves a partial, offloaded checksum,
// so an answer without update_checksums() never arrives), while ping (ARP first), a TCP connection
// to a kernel listener on the same port number and UDP to another port keep working at the same
// time.
#include "system_test.hpp"
#include "tool_test.hpp"

#include <afxdp/xsk/interface.hpp>
#include <afxdp/xsk/xsk_program.hpp>
#include <lab.hpp>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <atomic>
#include <csignal>
#include <cstring>
#include <exception>
#include <optional>
#include <string>
#include <system_error>
#include <thread>
#include <utility>
#include <vector>

namespace {

constexpr const char* service_ip = "10.77.0.1";
constexpr const char* client_ip = "10.77.0.2";
constexpr std::uint16_t service_port = 7777;
constexpr std::uint16_t kernel_udp_port = 7778;

// A file descriptor closed with its owner.
struct Fd {
  int fd = -1;
  explicit Fd(int f) : fd(f) {
    if (fd < 0) throw std::system_error(errno, std::generic_category(), "socket");
  }
  Fd(Fd&& other) noexcept : fd(std::exchange(other.fd, -1)) {}
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  Fd& operator=(Fd&&) = delete;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

sockaddr_in address(const char* ip, std::uint16_t port) {
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(port);
  ::inet_pton(AF_INET, ip, &a.sin_addr);
  return a;
}

Fd socket_to(int type, const char* ip, std::uint16_t port) {
  Fd s(::socket(AF_INET, type | SOCK_CLOEXEC, 0));
  const timeval timeout{2, 0};
  ::setsockopt(s.fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
  const sockaddr_in to = address(ip, port);
  if (::connect(s.fd, reinterpret_cast<const sockaddr*>(&to), sizeof to) != 0) {
    throw std::system_error(errno, std::generic_category(), "connect");
  }
  return s;
}

Fd socket_on(int type, const char* ip, std::uint16_t port) {
  Fd s(::socket(AF_INET, type | SOCK_CLOEXEC, 0));
  const int on = 1;
  ::setsockopt(s.fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof on);
  const timeval timeout{5, 0};
  ::setsockopt(s.fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
  const sockaddr_in at = address(ip, port);
  if (::bind(s.fd, reinterpret_cast<const sockaddr*>(&at), sizeof at) != 0) {
    throw std::system_error(errno, std::generic_category(), "bind");
  }
  if (type == SOCK_STREAM) ::listen(s.fd, 4);
  return s;
}

// Datagrams of every length from 1 to `count` bytes to the service, one at a time: how many came
// back with the same bytes.
int udp_echoes(int count) {
  try {
    const Fd s = socket_to(SOCK_DGRAM, service_ip, service_port);
    int echoed = 0, missed = 0;
    std::vector<char> sent, got(2048);
    for (int i = 1; i <= count && missed < 3;
         ++i) {  // three 2 s silences: the service is not there
      sent.assign(static_cast<std::size_t>(i), static_cast<char>('a' + i % 26));
      if (::send(s.fd, sent.data(), sent.size(), 0) != static_cast<ssize_t>(sent.size())) continue;
      const ssize_t n = ::recv(s.fd, got.data(), got.size(), 0);
      if (n == i && std::memcmp(got.data(), sent.data(), sent.size()) == 0) {
        ++echoed;
      } else {
        ++missed;
      }
    }
    return echoed;
  } catch (const std::exception&) {
    return -1;
  }
}

// One message over a kernel socket of `type` to `port`, answered by the kernel side's echo.
bool kernel_answers(int type, std::uint16_t port) {
  try {
    const Fd s = socket_to(type, service_ip, port);
    const char message[] = "to the kernel";
    char got[sizeof message] = {};
    if (::send(s.fd, message, sizeof message, 0) != static_cast<ssize_t>(sizeof message)) {
      return false;
    }
    return ::recv(s.fd, got, sizeof got, MSG_WAITALL) == static_cast<ssize_t>(sizeof message) &&
           std::memcmp(got, message, sizeof message) == 0;
  } catch (const std::exception&) {
    return false;
  }
}

// The service side's kernel: a TCP listener on the service's port number and a UDP socket on
// another port, each echoing one message.
void kernel_echo(const Fd& tcp, const Fd& udp) {
  std::thread tcp_echo([&] {
    const int c = ::accept4(tcp.fd, nullptr, nullptr, SOCK_CLOEXEC);
    if (c < 0) return;
    char buffer[64];
    const ssize_t n = ::recv(c, buffer, sizeof buffer, 0);
    if (n > 0) ::send(c, buffer, static_cast<std::size_t>(n), 0);
    ::close(c);
  });
  char buffer[64];
  sockaddr_in from{};
  socklen_t length = sizeof from;
  const ssize_t n =
      ::recvfrom(udp.fd, buffer, sizeof buffer, 0, reinterpret_cast<sockaddr*>(&from), &length);
  if (n > 0) {
    ::sendto(udp.fd, buffer, static_cast<std::size_t>(n), 0, reinterpret_cast<sockaddr*>(&from),
             length);
  }
  tcp_echo.join();
}

TEST(UdpServiceExample, AnswersItsPortWhileTheKernelKeepsArpPingTcpAndOtherPorts) {
  AFXDP_REQUIRE_SYSTEM();
  afxdp::test::quiet_ipv6();
  const afxdp::lab::VethPair pair(afxdp::lab::unique_prefix());
  afxdp::lab::run({"ip", "addr", "add", std::string(service_ip) + "/24", "dev", pair.b()});
  const afxdp::lab::PeerNamespace client(afxdp::lab::unique_prefix() + "c", pair.a(),
                                         {std::string(client_ip) + "/24"});

  afxdp::tool::Child service({pair.b(), std::to_string(service_port)}, UDP_SERVICE_PATH);
  ASSERT_TRUE(afxdp::test::wait_attached(pair.b())) << service.err();
  const Fd tcp = socket_on(SOCK_STREAM, service_ip, service_port);
  const Fd udp = socket_on(SOCK_DGRAM, service_ip, kernel_udp_port);
  std::thread kernel_side([&] { kernel_echo(tcp, udp); });

  constexpr int datagrams = 1400;
  std::atomic<int> echoed{-2};
  std::thread udp_flow = client.start([&] { echoed = udp_echoes(datagrams); });
  std::atomic<bool> tcp_ok{false}, udp_ok{false};
  std::thread others = client.start([&] {
    tcp_ok = kernel_answers(SOCK_STREAM, service_port);
    udp_ok = kernel_answers(SOCK_DGRAM, kernel_udp_port);
  });
  bool ping_ok = true;
  try {
    afxdp::lab::run({"ip", "netns", "exec", client.name(), "ping", "-c", "3", "-i", "0.2", "-W",
                     "2", service_ip});
  } catch (const std::exception&) {
    ping_ok = false;
  }
  udp_flow.join();
  others.join();
  kernel_side.join();

  EXPECT_EQ(echoed, datagrams) << "datagrams of 1.." << datagrams << " bytes echoed";
  EXPECT_TRUE(ping_ok) << "ping across the pair";
  EXPECT_TRUE(tcp_ok) << "TCP to the kernel's listener on port " << service_port;
  EXPECT_TRUE(udp_ok) << "UDP to the kernel's port " << kernel_udp_port;
  service.signal(SIGTERM);
  ASSERT_EQ(service.wait(10000), 0) << service.err();
  EXPECT_NE(service.out().find("took"), std::string::npos) << service.out();
  EXPECT_EQ(afxdp::attached_xdp_program(afxdp::interface_index(pair.b())), 0U);
}

TEST(UdpServiceExample, BadInputIsOneLineAndExitCode) {
  afxdp::tool::Child no_port({"lo"}, UDP_SERVICE_PATH);
  EXPECT_EQ(no_port.wait(10000), 2);
  afxdp::tool::Child bad_port({"lo", "77x"}, UDP_SERVICE_PATH);
  EXPECT_EQ(bad_port.wait(10000), 1);
  EXPECT_EQ(bad_port.err().rfind("udp_service: ", 0), 0U) << bad_port.err();
  EXPECT_NE(bad_port.err().find("77x"), std::string::npos) << bad_port.err();
  EXPECT_EQ(afxdp::test::lines_of(bad_port.err()).size(), 1U) << bad_port.err();
}

}  // namespace
