// udp-echo's choice of whom to answer (unit): never a source that could be another reflector or
// itself, and no source more than the per-source rate, so that one spoofed datagram cannot start
// an endless exchange.
#include <latency/udp_echo.hpp>

#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <chrono>
#include <cstring>
#include <ifaddrs.h>
#include <optional>

namespace {

sockaddr_in endpoint(const char* address, std::uint16_t port) {
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(port);
  ::inet_pton(AF_INET, address, &a.sin_addr);
  return a;
}

in_addr local(const char* address) { return endpoint(address, 0).sin_addr; }

TEST(UdpEcho, AnswersAnOrdinaryClient) {
  EXPECT_TRUE(afxdp::tool::echo_allowed(endpoint("10.0.0.1", 40000), local("10.0.0.2")));
  EXPECT_TRUE(afxdp::tool::echo_allowed(endpoint("10.0.0.1", 1024), local("10.0.0.2")));
}

// Two reflectors (echo on 7, chargen on 19, ...) answer each other forever.
TEST(UdpEcho, RefusesSourcePortsBelow1024) {
  EXPECT_FALSE(afxdp::tool::echo_allowed(endpoint("10.0.0.1", 7), local("10.0.0.2")));
  EXPECT_FALSE(afxdp::tool::echo_allowed(endpoint("10.0.0.1", 1023), local("10.0.0.2")));
  EXPECT_FALSE(afxdp::tool::echo_allowed(endpoint("10.0.0.1", 0), local("10.0.0.2")));
}

// From its own address: itself, or another instance on this host.
TEST(UdpEcho, RefusesItsOwnAddress) {
  EXPECT_FALSE(afxdp::tool::echo_allowed(endpoint("10.0.0.2", 40000), local("10.0.0.2")));
  EXPECT_FALSE(afxdp::tool::echo_allowed(endpoint("127.0.0.1", 40000), local("127.0.0.1")));
}

// Issue 41 item 12: 127.0.0.1 to an echo on another address of this host was answered.
TEST(UdpEcho, RefusesLoopbackSources) {
  EXPECT_FALSE(afxdp::tool::echo_allowed(endpoint("127.0.0.1", 40000), local("10.0.0.2")));
  EXPECT_FALSE(afxdp::tool::echo_allowed(endpoint("127.255.255.254", 40000), local("10.0.0.2")));
  EXPECT_TRUE(afxdp::tool::echo_allowed(endpoint("128.0.0.1", 40000), local("10.0.0.2")));
}

// An address of this host's own interfaces is one (the first IPv4 one getifaddrs gives; lo's
// 127.0.0.1 unless the test runs in a namespace whose lo is down).
TEST(UdpEcho, KnowsThisHostsAddresses) {
  ifaddrs* list = nullptr;
  ASSERT_EQ(::getifaddrs(&list), 0);
  std::optional<in_addr> ours;
  for (const ifaddrs* a = list; a != nullptr && !ours; a = a->ifa_next) {
    if (a->ifa_addr != nullptr && a->ifa_addr->sa_family == AF_INET) {
      sockaddr_in in{};
      std::memcpy(&in, a->ifa_addr, sizeof in);
      ours = in.sin_addr;
    }
  }
  ::freeifaddrs(list);
  afxdp::tool::LocalAddresses addresses;
  const auto now = std::chrono::steady_clock::now();
  EXPECT_FALSE(addresses.contains(local("192.0.2.77"), now));  // TEST-NET-1: nobody's
  if (!ours) GTEST_SKIP() << "no IPv4 address on any interface here";
  EXPECT_TRUE(addresses.contains(*ours, now));
}

using Clock = std::chrono::steady_clock;

// Issue 41 item 12: two reflectors kept one spoofed datagram bouncing (94,936 echoes in 2 s).
// Each source gets at most the rate, in bursts of at most the burst: the bouncing datagram,
// faster than the rate, finds the bucket empty, is not echoed, and the exchange ends.
TEST(UdpEchoLimiter, ABurstThenTheRate) {
  afxdp::tool::SourceLimiter limiter(1000, 100);
  const std::uint32_t a = endpoint("10.0.0.1", 1).sin_addr.s_addr;
  const Clock::time_point t0{};
  int taken = 0;
  for (int i = 0; i < 1000; ++i) taken += limiter.take(a, t0 + std::chrono::microseconds(i));
  EXPECT_GE(taken, 100);
  EXPECT_LE(taken, 102);  // 100 and a millisecond's refill
  EXPECT_FALSE(limiter.take(a, t0 + std::chrono::microseconds(999)));  // empty at its end
  // A second later the bucket is full again, and no fuller.
  taken = 0;
  for (int i = 0; i < 1000; ++i) taken += limiter.take(a, t0 + std::chrono::seconds(2));
  EXPECT_EQ(taken, 100);
  // Steady at the rate: every one.
  taken = 0;
  for (int i = 0; i < 5000; ++i) {
    taken += limiter.take(a, t0 + std::chrono::seconds(4) + std::chrono::milliseconds(i));
  }
  EXPECT_EQ(taken, 5000);
}

TEST(UdpEchoLimiter, EachSourceHasItsOwnBucketAndZeroIsNoLimit) {
  afxdp::tool::SourceLimiter limiter(1000, 10);
  const Clock::time_point t0{};
  const std::uint32_t a = endpoint("10.0.0.1", 1).sin_addr.s_addr;
  const std::uint32_t b = endpoint("10.0.0.2", 1).sin_addr.s_addr;
  for (int i = 0; i < 10; ++i) ASSERT_TRUE(limiter.take(a, t0));
  EXPECT_FALSE(limiter.take(a, t0));
  EXPECT_TRUE(limiter.take(b, t0));
  afxdp::tool::SourceLimiter none(0, 0);
  for (int i = 0; i < 100000; ++i) ASSERT_TRUE(none.take(a, t0));
}

// A source cannot get a fresh bucket by pushing a busy one out of its slot: while the occupant's
// bucket is in use, every address of the slot draws from it.
TEST(UdpEchoLimiter, ASlotInUseIsSharedNotTakenOver) {
  afxdp::tool::SourceLimiter limiter(1000, 10);
  const Clock::time_point t0{};
  const std::uint32_t a = endpoint("10.0.0.1", 1).sin_addr.s_addr;
  for (int i = 0; i < 10; ++i) ASSERT_TRUE(limiter.take(a, t0));
  int others = 0;
  for (std::uint32_t host = 2; host < 2000; ++host) {
    const std::uint32_t other = htonl(0x0a000000U + host);
    others += limiter.take(other, t0);
  }
  // 1,998 addresses over 256 slots: some share a's; those found it empty.
  EXPECT_LT(others, 1998);
  EXPECT_FALSE(limiter.take(a, t0));
}

TEST(UdpEcho, RefusesBroadcastMulticastAndUnspecifiedSources) {
  EXPECT_FALSE(afxdp::tool::echo_allowed(endpoint("255.255.255.255", 40000), local("10.0.0.2")));
  EXPECT_FALSE(afxdp::tool::echo_allowed(endpoint("224.0.0.1", 40000), local("10.0.0.2")));
  EXPECT_FALSE(afxdp::tool::echo_allowed(endpoint("239.1.2.3", 40000), local("10.0.0.2")));
  EXPECT_FALSE(afxdp::tool::echo_allowed(endpoint("0.0.0.0", 40000), local("10.0.0.2")));
}

}  // namespace
