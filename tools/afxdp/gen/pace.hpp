// What gen's engines share: where the run stands against --rate, the frames due by now, and how
// many frames one call sends.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdint>

namespace afxdp::tool {

// An engine's call lasts about a quarter of a second (sized from --rate, or from the rate of the
// call before): long enough that a call's fixed cost is a few per cent (a live-frames test run
// has 0.3 to 25 ms of set-up on a virtual machine), short enough that gen sees the clock, its
// report and signals that often.
inline constexpr double call_seconds = 0.25;
inline constexpr std::uint64_t first_call = 65536;  // before any rate is known
inline constexpr std::uint64_t max_call = std::uint64_t{1} << 24;

inline std::uint64_t frames_for_a_call(double frames_per_second) noexcept {
  return std::clamp<std::uint64_t>(static_cast<std::uint64_t>(frames_per_second * call_seconds), 1,
                                   max_call);
}

inline double seconds(std::chrono::steady_clock::duration d) noexcept {
  return std::chrono::duration<double>(d).count();
}

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
