// When the next per-interval line is due (rxdrop, txpush, l2fwd, rxq-info).
//
// Lines keep their cadence (due + interval, so they do not drift by the loop's own lateness),
// except after a stall of an interval or more: SIGSTOP, a starved process, a suspended VM. Then
// the next line is one interval from now. Catching up instead would print a burst of lines back
// to back, each covering next to no time: rates divided by microseconds, and a reader waiting for
// "two intervals without a change" would see it at once, before the workers had run again.
#pragma once

#include <chrono>

namespace afxdp::tool {

inline std::chrono::steady_clock::time_point next_report_time(
    std::chrono::steady_clock::time_point due, std::chrono::steady_clock::time_point now,
    std::chrono::steady_clock::duration interval) noexcept {
  const auto on_cadence = due + interval;
  return on_cadence > now ? on_cadence : now + interval;
}

}  // namespace afxdp::tool
