// An Ethernet (MAC) address: the one type for it across the library, the tool and the tests.
// A plain std::array, so frames are built and compared with the usual algorithms.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace afxdp {

using MacAddress = std::array<std::uint8_t, 6>;

// "aa:bb:cc:dd:ee:ff" (either case, exactly six pairs of hex digits); nullopt otherwise.
std::optional<MacAddress> parse_mac_address(std::string_view text) noexcept;

// Lower case, "aa:bb:cc:dd:ee:ff".
std::string format_mac_address(const MacAddress& mac);

}  // namespace afxdp
