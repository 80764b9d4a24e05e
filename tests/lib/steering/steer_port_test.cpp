// Steering on a real veth pair: rules changed while frames flow. One flow (udp dst port 7777)
// has its rule throughout; another (8888) gets a rule added and removed again and again. Every
// frame of either flow must arrive exactly once, at the socket when a rule covers it and at the
// kernel (an AF_PACKET socket on the same interface sees what XDP passed) otherwise: none lost,
// none misdirected. In native mode, skb mode and with the frags program.
// And Port::open while matching frames flow in: once the program is attached, none passes.
// And a datagram larger than the MTU to a steered port: its fragments all go to the kernel.
#include "probes.hpp"
#include "system_test.hpp"
#include "test_frames.hpp"

#include <afxdp/port.hpp>
#include <afxdp/xsk/interface.hpp>
#include <afxdp/xsk/unique_fd.hpp>
#include <lab.hpp>

#include <arpa/inet.h>
#include <linux/ethtool.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <fstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>
#include <thread>
#include <vector>

namespace {

using afxdp::Match;
using afxdp::test::frame;
using afxdp::test::FrameSpec;

constexpr std::uint32_t frames_per_flow = 6000;
constexpr std::uint32_t magic = 0x5ee75ee7;

struct Flow {
  std::vector<std::uint8_t> at_socket = std::vector<std::uint8_t>(frames_per_flow);
  std::vector<std::uint8_t> at_kernel = std::vector<std::uint8_t>(frames_per_flow);
};

// (flow, sequence) of one of our frames: UDP to 7777 (0) or 8888 (1), the magic and the
// sequence at the end of the payload.
bool ours(const std::uint8_t* f, std::size_t size, std::size_t& flow, std::uint32_t& sequence) {
  if (size < 14 + 20 + 8 + 8 || f[12] != 0x08 || f[13] != 0x00 || f[23] != 17) return false;
  const unsigned port = (unsigned{f[36]} << 8U) | f[37];
  if (port != 7777 && port != 8888) return false;
  std::uint32_t m = 0;
  std::memcpy(&m, f + 42, 4);
  std::memcpy(&sequence, f + 46, 4);
  flow = port == 7777 ? 0 : 1;
  return m == magic && sequence < frames_per_flow;
}

std::vector<std::uint8_t> numbered(std::uint16_t port, std::uint32_t sequence,
                                   const afxdp::MacAddress& dst) {
  std::vector<std::uint8_t> f = frame(FrameSpec{.dport = port, .payload = 18});
  std::memcpy(f.data(), dst.data(), 6);
  std::memcpy(f.data() + 42, &magic, 4);
  std::memcpy(f.data() + 46, &sequence, 4);
  return f;
}

// The sum of a veth's per-queue statistics whose names end in `suffix` (ETHTOOL_GSTATS):
// "_xdp_packets" the frames its XDP program ran on, "_xdp_redirect" those it redirected.
std::uint64_t xdp_statistic(const std::string& interface, std::string_view suffix) {
  const int fd = ::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (fd < 0) throw std::runtime_error("socket for SIOCETHTOOL");
  ifreq request{};
  std::strncpy(request.ifr_name, interface.c_str(), IFNAMSIZ - 1);
  const auto ethtool = [&](void* data) {
    request.ifr_data = static_cast<char*>(data);
    if (::ioctl(fd, SIOCETHTOOL, &request) != 0) {
      ::close(fd);
      throw std::runtime_error("SIOCETHTOOL on " + interface);
    }
  };
  std::vector<std::uint32_t> info(sizeof(ethtool_sset_info) / 4 + 1);
  auto* sset = reinterpret_cast<ethtool_sset_info*>(info.data());
  sset->cmd = ETHTOOL_GSSET_INFO;
  sset->sset_mask = 1ULL << ETH_SS_STATS;
  ethtool(sset);
  const std::uint32_t count = info.back();
  std::vector<std::uint64_t> names(
      (sizeof(ethtool_gstrings) + std::size_t{count} * ETH_GSTRING_LEN) / 8 + 1);
  auto* strings = reinterpret_cast<ethtool_gstrings*>(names.data());
  strings->cmd = ETHTOOL_GSTRINGS;
  strings->string_set = ETH_SS_STATS;
  strings->len = count;
  ethtool(strings);
  std::vector<std::uint64_t> values(sizeof(ethtool_stats) / 8 + count);
  auto* stats = reinterpret_cast<ethtool_stats*>(values.data());
  stats->cmd = ETHTOOL_GSTATS;
  stats->n_stats = count;
  ethtool(stats);
  ::close(fd);
  std::uint64_t sum = 0;
  for (std::uint32_t i = 0; i < count; ++i) {
    const auto* name =
        reinterpret_cast<const char*>(strings->data + std::size_t{i} * ETH_GSTRING_LEN);
    const std::string_view n(name, ::strnlen(name, ETH_GSTRING_LEN));
    if (n.ends_with(suffix)) sum += stats->data[i];
  }
  return sum;
}

struct Variant {
  const char* name;
  afxdp::AttachMode attach;
  bool frags;
};

class SteerUnderTraffic : public testing::TestWithParam<Variant> {};

TEST_P(SteerUnderTraffic, NoFrameLostOrMisdirected) {
  AFXDP_REQUIRE_SYSTEM();
  if (GetParam().frags) AFXDP_REQUIRE_FACILITY(afxdp::test::multi_buffer());
  afxdp::lab::VethPair veth(afxdp::lab::unique_prefix());
  const bool skb = GetParam().attach == afxdp::AttachMode::skb;
  afxdp::Port port =
      afxdp::Port::open(veth.b(), {.bind = skb ? afxdp::BindMode::skb : afxdp::BindMode::automatic,
                                   .attach = GetParam().attach,
                                   .multi_buffer = GetParam().frags,
                                   .steer = {Match::parse("udp dst port 7777")}});
  // The configured rule is stored once, in the Steering.
  ASSERT_EQ(port.steering().list().size(), 1U);
  EXPECT_EQ(port.steering().list().front().match.str(), "udp dst port 7777");
  EXPECT_TRUE(port.config().steer.empty());
  afxdp::lab::PacketSocket kernel(veth.b());
  afxdp::lab::PacketSocket sender(veth.a());
  const afxdp::MacAddress b_mac = afxdp::mac_address(veth.b());

  std::array<Flow, 2> flows;
  std::atomic<bool> done{false};
  std::thread socket_side([&] {
    afxdp::Queue& q = port.queues().front();
    const auto count_frame = [&](const afxdp::Frame& f) {
      std::size_t flow = 0;
      std::uint32_t seq = 0;
      const auto* bytes = reinterpret_cast<const std::uint8_t*>(f.data().data());
      if (ours(bytes, f.size(), flow, seq)) ++flows.at(flow).at_socket.at(seq);
    };
    const auto count = [&](afxdp::Frames frames) {
      for (const afxdp::Frame& f : frames) count_frame(f);
    };
    // A multi-buffer queue hands out whole packets (here each one frame), never bare frames.
    const auto count_packets = [&](std::span<afxdp::Packet> packets) {
      for (const afxdp::Packet& p : packets) count_frame(p[0]);
    };
    const auto receive = [&] {
      return GetParam().frags ? q.receive_packets(count_packets) : q.receive(count);
    };
    while (!done.load()) {
      if (receive() == 0) q.wait(std::chrono::milliseconds(5));
    }
    while (receive() != 0) {
    }
  });
  std::thread kernel_side([&] {
    std::vector<std::uint8_t> buffer;
    while (!done.load()) {
      const std::size_t n = kernel.receive(buffer, 5);
      std::size_t flow = 0;
      std::uint32_t seq = 0;
      if (n != 0 && ours(buffer.data(), n, flow, seq)) ++flows.at(flow).at_kernel.at(seq);
    }
  });

  afxdp::Steering& steering = port.steering();
  afxdp::RuleId second = 0;  // 0: not there
  std::uint32_t changes = 0;
  for (std::uint32_t seq = 0; seq < frames_per_flow; ++seq) {
    for (const int p : {7777, 8888}) {
      const std::vector<std::uint8_t> f = numbered(static_cast<std::uint16_t>(p), seq, b_mac);
      while (!sender.send(f.data(), f.size())) std::this_thread::yield();
    }
    if (seq % 200 == 100 && seq + 200 < frames_per_flow) {  // a change every 200 frames
      if (second != 0) {
        steering.remove(second);
        second = 0;
      } else {
        second = steering.add(Match::parse("udp dst port 8888"));
      }
      ++changes;
    }
    if (seq == frames_per_flow - 50 && second != 0) {  // the last frames: no second rule
      steering.remove(second);
      second = 0;
    }
    if (seq % 16 == 0) std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  done = true;
  socket_side.join();
  kernel_side.join();

  std::uint32_t to_socket = 0;
  for (std::uint32_t seq = 0; seq < frames_per_flow; ++seq) {
    ASSERT_EQ(flows[0].at_socket[seq], 1) << "7777 #" << seq << " not at the socket once";
    ASSERT_EQ(flows[0].at_kernel[seq], 0) << "7777 #" << seq << " reached the kernel";
    ASSERT_EQ(flows[1].at_socket[seq] + flows[1].at_kernel[seq], 1)
        << "8888 #" << seq << ": " << int{flows[1].at_socket[seq]} << " at the socket, "
        << int{flows[1].at_kernel[seq]} << " at the kernel";
    to_socket += flows[1].at_socket[seq];
  }
  EXPECT_GT(changes, 20U);
  EXPECT_EQ(flows[1].at_kernel[0], 1);                    // before the first add
  EXPECT_EQ(flows[1].at_kernel[frames_per_flow - 1], 1);  // after the last remove
  EXPECT_GT(to_socket, frames_per_flow / 4);
  EXPECT_LT(to_socket, frames_per_flow * 3 / 4);
  const std::vector<afxdp::SteeringRule> rules = steering.list();
  ASSERT_EQ(rules.size(), 1U);
  EXPECT_EQ(rules.front().hits, frames_per_flow);
}

INSTANTIATE_TEST_SUITE_P(Modes, SteerUnderTraffic,
                         testing::Values(Variant{"native", afxdp::AttachMode::native, false},
                                         Variant{"skb", afxdp::AttachMode::skb, false},
                                         Variant{"native_frags", afxdp::AttachMode::native, true}),
                         [](const auto& param) { return std::string(param.param.name); });

// Port::open while frames of its rule's flow arrive, ten times: from the moment the redirect
// program is attached, every frame it runs on goes to the socket. (Attached before its rule and
// the queue's socket were in, it passed the first ones to the kernel, whose port unreachable
// broke udp_service_test's client now and then.) The frames are for another host, so the kernel
// drops those that reach it before the program is there.
TEST(SteerOpen, NoFrameOfTheRulePassesOnceTheProgramIsAttached) {
  AFXDP_REQUIRE_SYSTEM();
  afxdp::lab::VethPair veth(afxdp::lab::unique_prefix());
  for (const std::string& end : {veth.a(), veth.b()}) {  // no ND or MLD of a's among the frames
    std::ofstream("/proc/sys/net/ipv6/conf/" + end + "/disable_ipv6") << "1\n";
  }
  afxdp::lab::PacketSocket sender(veth.a());
  const std::vector<std::uint8_t> f = frame(FrameSpec{.dport = 7777});
  std::uint64_t ran_in_all = 0;
  for (int round = 0; round < 10; ++round) {
    std::atomic<bool> opened{false};
    std::thread flood([&] {
      while (!opened.load()) sender.send(f.data(), f.size());
    });
    const std::uint64_t ran_before = xdp_statistic(veth.b(), "_xdp_packets");
    const std::uint64_t redirected_before = xdp_statistic(veth.b(), "_xdp_redirect");
    const std::uint64_t dropped_before = xdp_statistic(veth.b(), "_drops");
    afxdp::Port port = afxdp::Port::open(veth.b(), {.steer = {Match::parse("udp dst port 7777")}});
    opened = true;
    flood.join();
    std::this_thread::sleep_for(std::chrono::milliseconds(50));  // the frames in flight
    const std::uint64_t ran = xdp_statistic(veth.b(), "_xdp_packets") - ran_before;
    const std::uint64_t redirected = xdp_statistic(veth.b(), "_xdp_redirect") - redirected_before;
    // Redirected to a socket whose rx ring was full (nobody reads it here): dropped, not passed.
    const std::uint64_t dropped = xdp_statistic(veth.b(), "_drops") - dropped_before;
    ASSERT_EQ(ran, redirected + dropped)
        << "round " << round << ": " << ran - redirected - dropped << " of " << ran
        << " frames the program ran on went to the kernel (" << dropped << " dropped)";
    ran_in_all += ran;
  }
  EXPECT_GT(ran_in_all, 0U) << "no frame met the program: the test proved nothing";
}

// A UDP datagram larger than the MTU, from a kernel socket on a peer host to a port whose rule
// steers it to the AF_XDP socket, arrives in fragments, only the first with the ports: the
// kernel's socket on this side must get it whole (issue 41: the first fragment went to the
// AF_XDP socket, the others to the kernel, and neither side had the datagram). IPv4 and IPv6.
class SteerFragments : public testing::TestWithParam<afxdp::AttachMode> {};

int family_of(std::string_view ip) {
  return ip.find(':') == std::string_view::npos ? AF_INET : AF_INET6;
}

// `ip` and `port` as a socket address of ip's family; returns its size.
socklen_t socket_address(std::string_view ip, std::uint16_t port, sockaddr_storage& out) {
  out = {};
  const std::string text(ip);
  if (family_of(ip) == AF_INET) {
    auto* a = reinterpret_cast<sockaddr_in*>(&out);
    a->sin_family = AF_INET;
    a->sin_port = htons(port);
    ::inet_pton(AF_INET, text.c_str(), &a->sin_addr);
    return sizeof *a;
  }
  auto* a = reinterpret_cast<sockaddr_in6*>(&out);
  a->sin6_family = AF_INET6;
  a->sin6_port = htons(port);
  ::inet_pton(AF_INET6, text.c_str(), &a->sin6_addr);
  return sizeof *a;
}

// A UDP socket bound to `ip` and `port`, reads waiting 200 ms at most.
afxdp::UniqueFd udp_socket_on(std::string_view ip, std::uint16_t port) {
  afxdp::UniqueFd s = afxdp::UniqueFd::socket(family_of(ip), SOCK_DGRAM | SOCK_CLOEXEC, 0);
  const timeval timeout{0, 200'000};
  ::setsockopt(s.get(), SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
  sockaddr_storage at{};
  const socklen_t size = socket_address(ip, port, at);
  if (::bind(s.get(), reinterpret_cast<const sockaddr*>(&at), size) != 0) {
    throw std::system_error(errno, std::generic_category(), "bind UDP " + std::string(ip));
  }
  return s;
}

// Sends `datagram` to `ip` port 7777 every 100 ms (the first may wait for ARP or ND) for 3 s or
// until `stop`, fragmented by this host (no path MTU discovery): false when it could not send.
bool send_until(std::string_view ip, const std::vector<char>& datagram,
                const std::atomic<bool>& stop) noexcept {
  try {
    const afxdp::UniqueFd s = afxdp::UniqueFd::socket(family_of(ip), SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (family_of(ip) == AF_INET) {
      const int dont = IP_PMTUDISC_DONT;
      ::setsockopt(s.get(), IPPROTO_IP, IP_MTU_DISCOVER, &dont, sizeof dont);
    } else {
      const int dont = IPV6_PMTUDISC_DONT;
      ::setsockopt(s.get(), IPPROTO_IPV6, IPV6_MTU_DISCOVER, &dont, sizeof dont);
    }
    sockaddr_storage to{};
    const socklen_t size = socket_address(ip, 7777, to);
    for (int i = 0; i < 30 && !stop.load(); ++i) {
      if (::sendto(s.get(), datagram.data(), datagram.size(), 0,
                   reinterpret_cast<const sockaddr*>(&to), size) < 0) {
        return false;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    return true;
  } catch (...) {
    return false;
  }
}

TEST_P(SteerFragments, ADatagramLargerThanTheMtuReachesTheKernelWhole) {
  AFXDP_REQUIRE_SYSTEM();
  afxdp::lab::VethPair veth(afxdp::lab::unique_prefix());
  afxdp::lab::run({"ip", "addr", "add", "10.78.0.1/24", "dev", veth.b()});
  afxdp::lab::run({"ip", "addr", "add", "fd00:78::1/64", "dev", veth.b(), "nodad"});
  const afxdp::lab::PeerNamespace peer(afxdp::lab::unique_prefix() + "p", veth.a(),
                                       {"10.78.0.2/24", "fd00:78::2/64"});
  const bool skb = GetParam() == afxdp::AttachMode::skb;
  afxdp::Port port =
      afxdp::Port::open(veth.b(), {.bind = skb ? afxdp::BindMode::skb : afxdp::BindMode::automatic,
                                   .attach = GetParam(),
                                   .steer = {Match::parse("udp dst port 7777")}});
  std::vector<char> datagram(3000);
  for (std::size_t i = 0; i < datagram.size(); ++i) datagram[i] = static_cast<char>(i * 7);
  for (const char* to : {"10.78.0.1", "fd00:78::1"}) {
    const afxdp::UniqueFd kernel = udp_socket_on(to, 7777);
    std::atomic<bool> stop{false};
    std::atomic<bool> sent{true};
    std::thread sender = peer.start([&] { sent = send_until(to, datagram, stop); });
    std::vector<char> got(4096);
    ssize_t n = -1;
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(3);
    while (n < 0 && std::chrono::steady_clock::now() < until) {
      n = ::recv(kernel.get(), got.data(), got.size(), 0);
    }
    stop = true;
    sender.join();
    ASSERT_TRUE(sent) << to << ": the peer could not send";
    EXPECT_EQ(n, static_cast<ssize_t>(datagram.size())) << to << ": no datagram in 3 s";
    if (n == static_cast<ssize_t>(datagram.size())) {
      EXPECT_TRUE(std::equal(datagram.begin(), datagram.end(), got.begin())) << to;
    }
  }
  EXPECT_EQ(port.steering().list().front().hits, 0U) << "the rule took fragments";
}

INSTANTIATE_TEST_SUITE_P(Modes, SteerFragments,
                         testing::Values(afxdp::AttachMode::native, afxdp::AttachMode::skb),
                         [](const auto& param) {
                           return param.param == afxdp::AttachMode::skb ? "skb" : "native";
                         });

}  // namespace
