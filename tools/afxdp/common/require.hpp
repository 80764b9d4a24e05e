// The rules options are checked against, each failure one std::invalid_argument naming the
// option and the rule.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

namespace afxdp::tool {

inline void require(bool rule, const std::string& message) {
  if (!rule) throw std::invalid_argument(message);
}

constexpr bool is_power_of_two(std::uint64_t n) noexcept { return n != 0 && (n & (n - 1)) == 0; }

}  // namespace afxdp::tool
