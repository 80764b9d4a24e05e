// A count over an interval as a whole rate per second, for the subcommands' reports; each
// formats it its own way (thousands() for people, the plain number in JSON).
#pragma once

#include <cmath>
#include <cstdint>

namespace afxdp::tool {

// 0 for an empty interval: a report made before any time has passed shows no rate.
inline std::uint64_t per_second(std::uint64_t count, double seconds) {
  return seconds > 0
             ? static_cast<std::uint64_t>(std::llround(static_cast<double>(count) / seconds))
             : 0;
}

}  // namespace afxdp::tool
