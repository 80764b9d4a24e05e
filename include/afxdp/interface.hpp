// Facts about a network interface that the control path checks before binding.
#pragma once

#include <cstdint>
#include <string>

namespace afxdp {

// if_nametoindex; throws std::system_error "interface NAME does not exist" when it doesn't.
unsigned interface_index(const std::string& name);

// The number of rx queues (ETHTOOL_GCHANNELS: combined + rx); 0 when the driver doesn't say.
std::uint32_t interface_rx_queues(const std::string& name);

// The driver's name (ETHTOOL_GDRVINFO), e.g. "veth"; empty when unknown.
std::string interface_driver(const std::string& name);

// The MTU (SIOCGIFMTU); throws std::system_error naming the interface.
unsigned interface_mtu(const std::string& name);

}  // namespace afxdp
