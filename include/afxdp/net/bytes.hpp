// Big-endian fields at any address: one byte at a time, so no unaligned access and no aliasing
// question; compilers turn each into one load or store and a byte swap.
#pragma once

#include <cstddef>
#include <cstdint>

namespace afxdp::net::detail {

[[nodiscard]] inline std::uint8_t load8(const std::byte* p) noexcept {
  return std::to_integer<std::uint8_t>(p[0]);
}

[[nodiscard]] inline std::uint16_t load16(const std::byte* p) noexcept {
  return static_cast<std::uint16_t>(load8(p) << 8 | load8(p + 1));
}

[[nodiscard]] inline std::uint32_t load32(const std::byte* p) noexcept {
  return std::uint32_t{load16(p)} << 16 | load16(p + 2);
}

inline void store8(std::byte* p, std::uint8_t value) noexcept { p[0] = std::byte{value}; }

inline void store16(std::byte* p, std::uint16_t value) noexcept {
  p[0] = static_cast<std::byte>(value >> 8);
  p[1] = static_cast<std::byte>(value);
}

inline void store32(std::byte* p, std::uint32_t value) noexcept {
  store16(p, static_cast<std::uint16_t>(value >> 16));
  store16(p + 2, static_cast<std::uint16_t>(value));
}

}  // namespace afxdp::net::detail
