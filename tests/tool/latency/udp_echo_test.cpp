// udp-echo's choice of whom to answer (unit): never a source that could be another reflector or
// itself, so that one spoofed datagram cannot start an endless exchange.
#include <latency/udp_echo.hpp>

#include <gtest/gtest.h>

#include <arpa/inet.h>

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

TEST(UdpEcho, RefusesBroadcastMulticastAndUnspecifiedSources) {
  EXPECT_FALSE(afxdp::tool::echo_allowed(endpoint("255.255.255.255", 40000), local("10.0.0.2")));
  EXPECT_FALSE(afxdp::tool::echo_allowed(endpoint("224.0.0.1", 40000), local("10.0.0.2")));
  EXPECT_FALSE(afxdp::tool::echo_allowed(endpoint("239.1.2.3", 40000), local("10.0.0.2")));
  EXPECT_FALSE(afxdp::tool::echo_allowed(endpoint("0.0.0.0", 40000), local("10.0.0.2")));
}

}  // namespace
