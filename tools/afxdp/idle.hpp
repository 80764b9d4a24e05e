// What a benchmark loop does when its ring is empty. Data often follows within microseconds (the
// kernel hands over one NAPI batch at a time), so the loop first re-checks the ring; only when it
// stays empty does it give the CPU away: poll() with -p (sleep until the kernel says there is
// data), else sched_yield(), so that a kernel thread sharing our CPU (threaded NAPI on one core)
// runs instead of waiting for our time slice to end.
//
// How long to re-check adapts, as an adaptive mutex's spin does. Going to sleep costs the
// kernel's CPU a wake-up per NAPI batch, so when the kernel runs on another CPU (2 cores),
// re-checking for as long as the gap between its batches pays: with poll(), rxdrop went from 4.4
// to 8.6-8.9 Mpps here (docs/benchmarks.md). When the kernel's work needs our own CPU (1 core),
// data cannot come while we re-check, every window ends empty and the window shrinks to a few
// re-checks within some 30 windows. A short window can be wrong for good (at 8 Mpps the batches
// come every 8 us, so a 1 us window never sees one and never grows), so every `probe_every`-th
// window is a long one.
#pragma once

#include <algorithm>
#include <cstdint>
#include <sched.h>

namespace afxdp::tool {

class IdleWait {
 public:
  // Re-checks per window: from `shortest` (about a microsecond of pause instructions) up to
  // `longest` (some tens of microseconds on this machine's CPUs).
  static constexpr std::uint32_t shortest = 64;
  static constexpr std::uint32_t longest = 2048;
  static constexpr std::uint32_t probe_every = 32;

  // The ring had data. If it came during a window, windows as long as twice that wait pay off.
  void busy() noexcept {
    if (checks_ != 0) window_ = std::clamp(std::max(window_, checks_) * 2, shortest, longest);
    checks_ = 0;
    limit_ = window_;
  }
  // The ring was empty: true when the window is over and it is time to sleep (poll) or yield.
  // A window that ended empty shortens the next by an eighth: slowly, as one empty window among
  // many that paid is no reason to stop waiting.
  bool give_up_cpu() noexcept {
    if (++checks_ < limit_) {
#if defined(__x86_64__) || defined(__i386__)
      __builtin_ia32_pause();  // a spinning hyperthread leaves its sibling the core
#endif
      return false;
    }
    checks_ = 0;
    window_ = std::max(window_ - window_ / 8, shortest);
    limit_ = ++windows_ % probe_every == 0 ? longest : window_;
    return true;
  }
  std::uint32_t window() const noexcept { return window_; }
  static void yield() noexcept { ::sched_yield(); }

 private:
  std::uint32_t checks_ = 0;   // empty re-checks in the current window
  std::uint32_t window_ = longest;
  std::uint32_t limit_ = longest;  // this window's length: window_, or longest for a probe
  std::uint32_t windows_ = 0;  // windows that ended empty (counts the probes)
};

}  // namespace afxdp::tool
