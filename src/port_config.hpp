// A PortConfig's rules and what it becomes below the Port (src/port_config.cpp): the UmemConfig
// and SocketConfig that Port::open builds from it, and that validate(PortConfig) checks.
#pragma once

#include <afxdp/port.hpp>
#include <afxdp/xsk/socket.hpp>
#include <afxdp/xsk/umem.hpp>

#include <cstdint>
#include <string>

namespace afxdp::detail {

// The UMEM of `queues` queues' frames (one, or every queue's when shared).
UmemConfig umem_config(const PortConfig& c, std::uint32_t queues);
SocketConfig socket_config(const PortConfig& c, const std::string& interface, std::uint32_t queue);

}  // namespace afxdp::detail
