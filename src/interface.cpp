#include <afxdp/detail/socket_option.hpp>
#include <afxdp/xsk/interface.hpp>
#include <afxdp/xsk/unique_fd.hpp>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <ifaddrs.h>
#include <linux/ethtool.h>
#include <linux/if_link.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <net/if_arp.h>
#include <netinet/in.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <vector>

namespace afxdp {
namespace {

// SIOCETHTOOL with `command` on `name`; false when the driver does not implement it.
template <class T>
bool ethtool(const std::string& name, T& command) {
  ifreq request{};
  std::strncpy(request.ifr_name, name.c_str(), IFNAMSIZ - 1);
  request.ifr_data = reinterpret_cast<char*>(&command);
  auto fd = UniqueFd::socket(AF_INET, SOCK_DGRAM, 0);
  return ::ioctl(fd.get(), SIOCETHTOOL, &request) == 0;
}

// Netlink aligns messages and attributes to 4 bytes (its macros trip -Wold-style-cast).
constexpr std::size_t align4(std::size_t n) { return (n + 3) & ~std::size_t{3}; }

// The attributes of an RTM_NEWLINK payload (after its ifinfomsg) into `link`.
void read_link_attributes(const char* payload, std::size_t length, InterfaceLink& link) {
  bool elsewhere = false;
  for (std::size_t at = align4(sizeof(ifinfomsg)); at + sizeof(rtattr) <= length;) {
    rtattr attribute{};
    std::memcpy(&attribute, payload + at, sizeof attribute);
    if (attribute.rta_len < sizeof attribute || at + attribute.rta_len > length) break;
    const char* data = payload + at + align4(sizeof attribute);
    const std::size_t size = attribute.rta_len - align4(sizeof attribute);
    if (attribute.rta_type == IFLA_STATS64 && size >= sizeof(rtnl_link_stats64)) {
      rtnl_link_stats64 stats{};
      std::memcpy(&stats, data, sizeof stats);
      link.rx_packets = stats.rx_packets;
      link.tx_packets = stats.tx_packets;
      link.rx_bytes = stats.rx_bytes;
      link.tx_bytes = stats.tx_bytes;
      link.rx_dropped = stats.rx_dropped;
      link.tx_dropped = stats.tx_dropped;
    } else if (attribute.rta_type == IFLA_LINK && size >= sizeof(std::uint32_t)) {
      std::uint32_t index = 0;
      std::memcpy(&index, data, sizeof index);
      link.link = index;
    } else if (attribute.rta_type == IFLA_LINK_NETNSID) {
      elsewhere = true;
    }
    at += align4(attribute.rta_len);
  }
  if (elsewhere) link.link = 0;
}

}  // namespace

bool interface_exists(unsigned ifindex) {
  char name[IF_NAMESIZE] = {};
  return ifindex != 0 && ::if_indextoname(ifindex, name) != nullptr;
}

InterfaceGone::InterfaceGone(const std::string& interface)
    : std::system_error(ENODEV, std::generic_category(), "interface " + interface + " is gone"),
      interface_(interface) {}

InterfaceLink interface_link(unsigned ifindex) {
  const std::string what = "RTM_GETLINK for interface index " + std::to_string(ifindex);
  auto fd = UniqueFd::socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
  struct {
    nlmsghdr header;
    ifinfomsg info;
  } request{};
  request.header.nlmsg_len = sizeof request;
  request.header.nlmsg_type = RTM_GETLINK;
  request.header.nlmsg_flags = NLM_F_REQUEST;
  request.header.nlmsg_seq = 1;
  request.info.ifi_family = AF_UNSPEC;
  request.info.ifi_index = static_cast<int>(ifindex);
  if (::send(fd.get(), &request, sizeof request, 0) != static_cast<ssize_t>(sizeof request)) {
    throw_errno(errno, "send(" + what + ")");
  }
  std::vector<char> buffer(1 << 15);
  const ssize_t n = ::recv(fd.get(), buffer.data(), buffer.size(), 0);
  if (n < 0) throw_errno(errno, "recv(" + what + ")");
  const auto received = static_cast<std::size_t>(n);
  for (std::size_t at = 0; at + sizeof(nlmsghdr) <= received;) {
    nlmsghdr header{};
    std::memcpy(&header, buffer.data() + at, sizeof header);
    if (header.nlmsg_len < sizeof header || at + header.nlmsg_len > received) break;
    const char* payload = buffer.data() + at + align4(sizeof header);
    const std::size_t length = header.nlmsg_len - align4(sizeof header);
    if (header.nlmsg_type == NLMSG_ERROR) {
      nlmsgerr error{};
      std::memcpy(&error, payload, std::min(length, sizeof error));
      throw_errno(error.error == 0 ? EPROTO : -error.error, what);
    }
    if (header.nlmsg_type == RTM_NEWLINK && length >= sizeof(ifinfomsg)) {
      InterfaceLink link;
      read_link_attributes(payload, length, link);
      return link;
    }
    at += align4(header.nlmsg_len);
  }
  throw_errno(EPROTO, what + ": no answer");
}

unsigned interface_index(const std::string& name) {
  const unsigned index = name.size() < IFNAMSIZ ? ::if_nametoindex(name.c_str()) : 0;
  if (index == 0) throw_errno(ENODEV, "interface '" + name + "' does not exist");
  return index;
}

std::uint32_t interface_rx_queues(const std::string& name) {
  ethtool_channels channels{};
  channels.cmd = ETHTOOL_GCHANNELS;
  if (!ethtool(name, channels)) return 0;
  return channels.combined_count + channels.rx_count;
}

std::string interface_driver(const std::string& name) {
  ethtool_drvinfo info{};
  info.cmd = ETHTOOL_GDRVINFO;
  if (!ethtool(name, info)) return {};
  return info.driver;
}

unsigned interface_mtu(const std::string& name) {
  ifreq request{};
  std::strncpy(request.ifr_name, name.c_str(), IFNAMSIZ - 1);
  auto fd = UniqueFd::socket(AF_INET, SOCK_DGRAM, 0);
  if (::ioctl(fd.get(), SIOCGIFMTU, &request) != 0) {
    throw_errno(errno, "SIOCGIFMTU on " + name);
  }
  return static_cast<unsigned>(request.ifr_mtu);
}

MacAddress mac_address(std::string_view interface) {
  const std::string name(interface);
  if (name.empty() || name.size() >= IFNAMSIZ) {
    throw_errno(ENODEV, "interface '" + name + "' does not exist");
  }
  ifreq request{};
  std::strncpy(request.ifr_name, name.c_str(), IFNAMSIZ - 1);
  auto fd = UniqueFd::socket(AF_INET, SOCK_DGRAM, 0);
  if (::ioctl(fd.get(), SIOCGIFHWADDR, &request) != 0) {
    throw_errno(errno, "SIOCGIFHWADDR on " + name);
  }
  if (request.ifr_hwaddr.sa_family != ARPHRD_ETHER) {
    throw_errno(EAFNOSUPPORT, name + " has no Ethernet address");
  }
  MacAddress mac{};
  std::memcpy(mac.data(), request.ifr_hwaddr.sa_data, mac.size());
  return mac;
}

InterfaceAddresses interface_addresses(const std::string& name) {
  interface_index(name);  // "interface X does not exist"
  InterfaceAddresses own;
  try {
    own.mac = mac_address(name);
  } catch (const std::system_error& e) {
    if (e.code().value() != EAFNOSUPPORT) throw;  // lo, tun: no Ethernet address, zeros
  }
  ifaddrs* list = nullptr;
  if (::getifaddrs(&list) != 0) throw_errno(errno, "getifaddrs for " + name);
  for (const ifaddrs* a = list; a != nullptr; a = a->ifa_next) {
    if (a->ifa_addr == nullptr || name != a->ifa_name) continue;
    if (a->ifa_addr->sa_family == AF_INET) {
      sockaddr_in v4{};
      std::memcpy(&v4, a->ifa_addr, sizeof v4);
      own.ipv4.push_back(ntohl(v4.sin_addr.s_addr));
    } else if (a->ifa_addr->sa_family == AF_INET6) {
      sockaddr_in6 v6{};
      std::memcpy(&v6, a->ifa_addr, sizeof v6);
      std::array<std::uint8_t, 16> bytes{};
      std::memcpy(bytes.data(), &v6.sin6_addr, bytes.size());
      own.ipv6.push_back(bytes);
    }
  }
  ::freeifaddrs(list);
  return own;
}

}  // namespace afxdp
