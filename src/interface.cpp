#include <afxdp/detail/socket_option.hpp>
#include <afxdp/detail/unique_fd.hpp>
#include <afxdp/interface.hpp>

#include <cerrno>
#include <cstring>
#include <linux/ethtool.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <sys/ioctl.h>

namespace afxdp {
namespace {

// SIOCETHTOOL with `command` on `name`; false when the driver does not implement it.
template <class T>
bool ethtool(const std::string& name, T& command) {
  ifreq request{};
  std::strncpy(request.ifr_name, name.c_str(), IFNAMSIZ - 1);
  request.ifr_data = reinterpret_cast<char*>(&command);
  auto fd = detail::UniqueFd::socket(AF_INET, SOCK_DGRAM, 0);
  return ::ioctl(fd.get(), SIOCETHTOOL, &request) == 0;
}

}  // namespace

unsigned interface_index(const std::string& name) {
  const unsigned index = name.size() < IFNAMSIZ ? ::if_nametoindex(name.c_str()) : 0;
  if (index == 0) detail::throw_errno(ENODEV, "interface " + name + " does not exist");
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
  auto fd = detail::UniqueFd::socket(AF_INET, SOCK_DGRAM, 0);
  if (::ioctl(fd.get(), SIOCGIFMTU, &request) != 0) {
    detail::throw_errno(errno, "SIOCGIFMTU on " + name);
  }
  return static_cast<unsigned>(request.ifr_mtu);
}

}  // namespace afxdp
