// How long an idle receive loop re-checks its ring before it gives the CPU away (Queue::wait).
// Data often follows within microseconds (the kernel hands over one NAPI batch at a time), and
// sleeping costs the kernel's CPU a wake-up per batch, so the window adapts as an adaptive mutex's
// spin does: it grows when data came during it and shrinks to nothing when it keeps ending empty
// (one core: the kernel cannot deliver while we spin). Now and then a window is a long probe, so
// that a window too short to ever see data can grow again; probes that end empty back off.
// The measurements behind these numbers are in docs/benchmarks-log.md.
//
// Threading: one thread owns an IdleWait, like the ring it watches.
#pragma once

#include <algorithm>
#include <cstdint>
#include <sched.h>

namespace afxdp {

class IdleWait {
 public:
  // Re-checks per window: from `shortest` (none beyond the peek that found the ring empty) up to
  // `longest` (some tens of microseconds on a virtual machine's CPUs).
  static constexpr std::uint32_t shortest = 1;
  static constexpr std::uint32_t longest = 2048;
  // Windows from one probe to the next: probe_every after a probe that saw data, doubling after
  // each that did not, up to probe_every_most.
  static constexpr std::uint32_t probe_every = 32;
  static constexpr std::uint32_t probe_every_most = 1024;

  // Note that the ring had data. If it came during a window, windows as long as twice that wait
  // pay off.
  void note_data() noexcept {
    if (checks_ != 0) {
      window_ = std::clamp(std::max(window_, checks_) * 2, shortest, longest);
      if (probing_) probe_gap_ = probe_every;
    }
    checks_ = 0;
    probing_ = false;
    limit_ = window_;
  }
  // Note that the ring was empty (and pause a beat); true when that ended the window: time to
  // sleep (poll) or yield.
  // A window that ended empty shortens the next by an eighth: slowly, as one empty window among
  // many that paid is no reason to stop waiting.
  [[nodiscard]] bool note_empty() noexcept {
    if (++checks_ < limit_) {
      pause();
      return false;
    }
    checks_ = 0;
    window_ = std::max(window_ - (window_ + 7) / 8, shortest);
    if (probing_) probe_gap_ = std::min(probe_gap_ * 2, probe_every_most);
    probing_ = ++since_probe_ >= probe_gap_;
    if (probing_) since_probe_ = 0;
    limit_ = probing_ ? longest : window_;
    return true;
  }
  [[nodiscard]] std::uint32_t window() const noexcept { return window_; }
  [[nodiscard]] std::uint32_t probe_gap() const noexcept { return probe_gap_; }
  static void yield() noexcept { ::sched_yield(); }
  // One beat of a spin: a spinning hyperthread leaves its sibling the core.
  static void pause() noexcept {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
  }

 private:
  std::uint32_t checks_ = 0;  // empty re-checks in the current window
  std::uint32_t window_ = longest;
  std::uint32_t limit_ = longest;          // this window's length: window_, or longest for a probe
  bool probing_ = false;                   // this window is a probe
  std::uint32_t probe_gap_ = probe_every;  // windows from one probe to the next
  std::uint32_t since_probe_ = 0;          // windows that ended empty since the last probe
};

}  // namespace afxdp
