// What gen's engines share: where the run stands against --rate, and the frames due by now.
#pragma once

#include <chrono>
#include <cstdint>

namespace afxdp::tool {

struct Pace {
  using Clock = std::chrono::steady_clock;
  std::uint64_t rate = 0;  // frames per second; 0: as fast as the engine goes
  Clock::time_point start;
  std::uint64_t sent = 0;  // frames sent before this call

  // Seconds since the start at which frame `index` (counted from the start) is due.
  [[nodiscard]] double due_seconds(std::uint64_t index) const noexcept {
    return static_cast<double>(index) / static_cast<double>(rate);
  }
  [[nodiscard]] Clock::time_point due(std::uint64_t index) const noexcept {
    return start + std::chrono::duration_cast<Clock::duration>(
                       std::chrono::duration<double>(due_seconds(index)));
  }
};

}  // namespace afxdp::tool
