// Big-endian fields at any address: one byte at a time, so no unaligned access and no aliasing
// question; compilers turn each into one load or store and a byte swap. The header views use the
// unchecked detail:: forms (their lengths are checked once, by parse()); code writing its own
// payloads uses the public, bounds-checked ones at the end.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>

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

namespace afxdp::net {

namespace detail {
// Does a field of `width` bytes at `at` lie inside `size` bytes? (Written so that no sum wraps.)
[[nodiscard]] constexpr bool fits(std::size_t size, std::size_t at, std::size_t width) noexcept {
  return at <= size && size - at >= width;
}
}  // namespace detail

// The big-endian field at byte `at` of `bytes`, in host order; nullopt when it would run past
// the end (network input is hostile: a short payload is an ordinary outcome, not a crash).
[[nodiscard]] inline std::optional<std::uint16_t> load_be16(std::span<const std::byte> bytes,
                                                            std::size_t at) noexcept {
  if (!detail::fits(bytes.size(), at, 2)) return std::nullopt;
  return detail::load16(bytes.data() + at);
}
[[nodiscard]] inline std::optional<std::uint32_t> load_be32(std::span<const std::byte> bytes,
                                                            std::size_t at) noexcept {
  if (!detail::fits(bytes.size(), at, 4)) return std::nullopt;
  return detail::load32(bytes.data() + at);
}

// Write `value` big-endian at byte `at` of `bytes`; false, writing nothing, when it would run
// past the end.
inline bool store_be16(std::span<std::byte> bytes, std::size_t at, std::uint16_t value) noexcept {
  if (!detail::fits(bytes.size(), at, 2)) return false;
  detail::store16(bytes.data() + at, value);
  return true;
}
inline bool store_be32(std::span<std::byte> bytes, std::size_t at, std::uint32_t value) noexcept {
  if (!detail::fits(bytes.size(), at, 4)) return false;
  detail::store32(bytes.data() + at, value);
  return true;
}

}  // namespace afxdp::net
