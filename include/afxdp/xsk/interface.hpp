// Facts about a network interface that the control path checks before binding.
#pragma once

#include <afxdp/net/mac_address.hpp>

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

namespace afxdp {

// if_nametoindex; throws std::system_error "interface NAME does not exist" when it doesn't.
unsigned interface_index(const std::string& name);

// The number of rx queues (ETHTOOL_GCHANNELS: combined + rx); 0 when the driver doesn't say.
std::uint32_t interface_rx_queues(const std::string& name);

// The driver's name (ETHTOOL_GDRVINFO), e.g. "veth"; empty when unknown.
std::string interface_driver(const std::string& name);

// An interface's own addresses: what a frame addressed to it carries as its destination
// (net::addressed_to). IPv4 in host byte order, as net::Ipv4Header::destination() gives it;
// IPv6 as its 16 bytes.
struct InterfaceAddresses {
  MacAddress mac{};
  std::vector<std::uint32_t> ipv4;
  std::vector<std::array<std::uint8_t, 16>> ipv6;
};
// Read now (getifaddrs, in the calling thread's network namespace): addresses added later are not
// in it. Throws std::system_error "interface NAME does not exist" when it doesn't; an interface
// without an Ethernet address (lo, a tun) has a zero `mac`.
InterfaceAddresses interface_addresses(const std::string& name);

// Does an interface with this index exist (if_indextoname)? An interface keeps its index when it
// is renamed, so this tells a renamed interface from a deleted one.
bool interface_exists(unsigned ifindex);

// An interface deleted (or moved to another network namespace) under a running Port: what
// run_per_queue throws then. ENODEV; what() is "interface NAME is gone: No such device".
class InterfaceGone : public std::system_error {
 public:
  explicit InterfaceGone(const std::string& interface);
  [[nodiscard]] const std::string& interface() const noexcept { return interface_; }

 private:
  std::string interface_;
};

// What rtnetlink says of an interface (RTM_GETLINK), in the calling thread's network namespace:
// unlike /sys/class/net, which shows the namespace of whoever mounted sysfs.
struct InterfaceLink {
  // IFLA_STATS64
  std::uint64_t rx_packets = 0;
  std::uint64_t tx_packets = 0;
  std::uint64_t rx_bytes = 0;
  std::uint64_t tx_bytes = 0;
  std::uint64_t rx_dropped = 0;
  std::uint64_t tx_dropped = 0;
  // IFLA_LINK in this namespace (a veth's peer, a VLAN's lower device); 0 when there is none or
  // it lives in another namespace.
  unsigned link = 0;
};
// Throws std::system_error naming the interface when the kernel does not answer.
InterfaceLink interface_link(unsigned ifindex);

// The MTU (SIOCGIFMTU); throws std::system_error naming the interface.
unsigned interface_mtu(const std::string& name);

// The Ethernet address (SIOCGIFHWADDR); throws std::system_error naming the interface when it
// does not exist or has no Ethernet address (a tun or loopback device, say).
MacAddress mac_address(std::string_view interface);

}  // namespace afxdp
