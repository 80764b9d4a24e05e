// A test packet that says which one it is: `sequence` in its first four bytes, 0x5a after them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

namespace queue_test {

inline std::vector<std::byte> packet(std::uint32_t sequence, std::size_t size = 64) {
  std::vector<std::byte> bytes(size, std::byte{0x5a});
  std::memcpy(bytes.data(), &sequence, sizeof sequence);
  return bytes;
}

}  // namespace queue_test
