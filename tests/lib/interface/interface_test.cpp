// interface_exists tells a renamed interface (same index) from a deleted one, and interface_link
// reads a veth's peer and counters through rtnetlink: in this namespace, whatever /sys shows.
// mac_address reads the address an interface has, and names one that has none.
#include "expect_throw.hpp"
#include "forked_child.hpp"
#include "system_test.hpp"

#include <afxdp/xsk/interface.hpp>
#include <lab.hpp>

#include <cerrno>
#include <sched.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <string>
#include <system_error>
#include <vector>

namespace {

TEST(Interface, ExistsWhileRenamedNotOnceDeleted) {
  AFXDP_REQUIRE_SYSTEM();
  EXPECT_FALSE(afxdp::interface_exists(0));
  const std::string prefix = afxdp::lab::unique_prefix();
  unsigned index = 0;
  {
    afxdp::lab::VethPair veth(prefix);
    index = afxdp::interface_index(veth.a());
    EXPECT_TRUE(afxdp::interface_exists(index));
    afxdp::lab::run({"ip", "link", "set", veth.a(), "down"});
    afxdp::lab::run({"ip", "link", "set", veth.a(), "name", prefix + "r"});
    EXPECT_TRUE(afxdp::interface_exists(index)) << "a renamed interface was taken for deleted";
    afxdp::lab::run({"ip", "link", "set", prefix + "r", "name", veth.a()});
  }
  EXPECT_FALSE(afxdp::interface_exists(index));
}

// interface_addresses: the MAC and every IPv4 and IPv6 address the interface has, and no other
// interface's (issue 41: a service needs them to answer only what is addressed to it).
TEST(Interface, AddressesAreTheInterfacesOwn) {
  AFXDP_REQUIRE_SYSTEM();
  afxdp::lab::VethPair veth(afxdp::lab::unique_prefix());
  afxdp::lab::run({"ip", "link", "set", veth.a(), "address", "02:1a:2b:3c:4d:5f"});
  afxdp::lab::run({"ip", "addr", "add", "198.18.7.1/24", "dev", veth.a()});
  afxdp::lab::run({"ip", "addr", "add", "198.18.8.1/24", "dev", veth.a()});
  afxdp::lab::run({"ip", "addr", "add", "198.18.9.1/24", "dev", veth.b()});
  afxdp::lab::run({"ip", "-6", "addr", "add", "2001:db8::7/64", "dev", veth.a(), "nodad"});
  const afxdp::InterfaceAddresses own = afxdp::interface_addresses(veth.a());
  EXPECT_EQ(own.mac, (afxdp::MacAddress{0x02, 0x1a, 0x2b, 0x3c, 0x4d, 0x5f}));
  EXPECT_EQ(own.ipv4, (std::vector<std::uint32_t>{0xc6120701U, 0xc6120801U}));
  const std::array<std::uint8_t, 16> v6{0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 7};
  EXPECT_NE(std::find(own.ipv6.begin(), own.ipv6.end(), v6), own.ipv6.end());
  EXPECT_THROW_WITH(afxdp::interface_addresses("nosuchif0"), std::system_error, "nosuchif0");
}

TEST(Interface, MacAddressIsTheOneSet) {
  AFXDP_REQUIRE_SYSTEM();
  afxdp::lab::VethPair veth(afxdp::lab::unique_prefix());
  afxdp::lab::run({"ip", "link", "set", veth.a(), "address", "02:1a:2b:3c:4d:5e"});
  EXPECT_EQ(afxdp::mac_address(veth.a()), (afxdp::MacAddress{0x02, 0x1a, 0x2b, 0x3c, 0x4d, 0x5e}));
  EXPECT_NE(afxdp::mac_address(veth.b()), afxdp::mac_address(veth.a()));
  for (const std::string name : {"nosuchif0", "lo"}) {
    try {
      afxdp::mac_address(name);
      ADD_FAILURE() << "a MAC address for " << name;
    } catch (const std::system_error& e) {
      EXPECT_NE(std::string(e.what()).find(name), std::string::npos) << e.what();
      EXPECT_EQ(e.code().value(), name == "lo" ? EAFNOSUPPORT : ENODEV) << e.what();
    }
  }
}

TEST(Interface, LinkNamesTheVethPeerAndCountsFrames) {
  AFXDP_REQUIRE_SYSTEM();
  afxdp::lab::VethPair veth(afxdp::lab::unique_prefix());
  const unsigned a = afxdp::interface_index(veth.a());
  const unsigned b = afxdp::interface_index(veth.b());
  EXPECT_EQ(afxdp::interface_link(a).link, b);
  EXPECT_EQ(afxdp::interface_link(b).link, a);
  const std::uint64_t before = afxdp::interface_link(a).tx_packets;
  afxdp::lab::PacketSocket peer(veth.a());
  const auto frame =
      afxdp::lab::test_frame(0, 60, afxdp::mac_address(veth.b()), afxdp::mac_address(veth.a()));
  for (int i = 0; i < 10; ++i) ASSERT_TRUE(peer.send(frame.data(), frame.size()));
  EXPECT_GE(afxdp::interface_link(a).tx_packets - before, 10U);
}

// In a namespace entered without remounting /sys (unshare -n), /sys/class/net is another
// namespace's; rtnetlink still answers for ours. The child says what went wrong, if anything.
TEST(Interface, LinkReadsThisNamespaceWithoutItsOwnSysfs) {
  AFXDP_REQUIRE_SYSTEM();
  const auto end = afxdp::test::run_in_child([](const afxdp::test::ForkedChild::Pipe& pipe) {
    if (::unshare(CLONE_NEWNET) != 0) return pipe.say("unshare failed") ? 2 : 3;
    afxdp::lab::VethPair veth(afxdp::lab::unique_prefix());
    const unsigned a = afxdp::interface_index(veth.a());
    afxdp::lab::PacketSocket peer(veth.a());
    const auto frame =
        afxdp::lab::test_frame(0, 60, afxdp::mac_address(veth.b()), afxdp::mac_address(veth.a()));
    const std::uint64_t before = afxdp::interface_link(a).tx_packets;
    bool sent = true;
    for (int i = 0; i < 10; ++i) sent = sent && peer.send(frame.data(), frame.size());
    const afxdp::InterfaceLink after = afxdp::interface_link(a);
    if (sent && after.tx_packets - before >= 10 && after.link == afxdp::interface_index(veth.b())) {
      return 0;
    }
    return pipe.say("wrong counters or peer: sent " + std::to_string(sent) + ", tx_packets +" +
                    std::to_string(after.tx_packets - before) + ", link " +
                    std::to_string(after.link))
               ? 1
               : 3;
  });
  ASSERT_TRUE(WIFEXITED(end.status)) << end.said;
  EXPECT_EQ(WEXITSTATUS(end.status), 0) << end.said;
}

}  // namespace
