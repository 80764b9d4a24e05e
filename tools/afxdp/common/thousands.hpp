// Numbers for people: 12345678 -> "12,345,678", independent of the C locale.
#pragma once

#include <cstdint>
#include <string>

namespace afxdp::tool {

inline std::string thousands(std::uint64_t value) {
  std::string digits = std::to_string(value);
  std::string out;
  out.reserve(digits.size() + digits.size() / 3);
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i != 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

}  // namespace afxdp::tool
