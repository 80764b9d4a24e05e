// Text from the command line into values, for every subcommand alike: number lists (queues,
// CPUs), MAC and IPv4 addresses. Each failure is a std::invalid_argument naming the option.
#pragma once

#include "common/packet.hpp"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace afxdp::tool {

// The largest queue number and CPU number the lists take: rtnetlink makes devices of at most
// 4096 queues, and no architecture builds a kernel for more than 8192 CPUs.
inline constexpr std::uint32_t max_queue = 4095;
inline constexpr std::uint32_t max_cpu = 8191;

// "0", "0,2", "0-3", "0-1,4": ascending or not, no duplicates, each at most `max`, at most
// `max_entries` in all.
std::vector<std::uint32_t> parse_number_list(const std::string& text, const char* what,
                                             std::uint32_t max, std::size_t max_entries = 1024);
// "aa:bb:cc:dd:ee:ff".
Mac parse_mac(const std::string& text, const char* what);
// Dotted quad, host byte order.
std::uint32_t parse_ipv4(const std::string& text, const char* what);

}  // namespace afxdp::tool
