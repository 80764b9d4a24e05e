// Our own cache-line constant for padding what two threads touch:
// std::hardware_destructive_interference_size warns under g++ 12 (its value may change).
#pragma once

#include <cstddef>

namespace afxdp {
inline constexpr std::size_t cache_line = 64;
}  // namespace afxdp
