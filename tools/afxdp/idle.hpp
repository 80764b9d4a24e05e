// What a benchmark loop does when its ring is empty. Data often follows within microseconds (the
// kernel hands over one NAPI batch at a time), so the loop may first re-check the ring; only when
// it stays empty does it give the CPU away: poll() with -p (sleep until the kernel says there is
// data), else sched_yield(), so that a kernel thread sharing our CPU (threaded NAPI on one core)
// runs instead of waiting for our time slice to end.
//
// How long to re-check adapts, as an adaptive mutex's spin does. Going to sleep costs the
// kernel's CPU a wake-up per NAPI batch, so when the kernel runs on another CPU (2 cores),
// re-checking for as long as the gap between its batches pays: with poll(), rxdrop went from 4.4
// to 8.6-8.9 Mpps here (docs/benchmarks.md). When the kernel's work needs our own CPU (1 core),
// data cannot come while we re-check: every window ends empty and the windows shrink to none at
// all (straight to sleep after the failed peek). Re-checks there were pure loss: with a 64-check
// floor and a long probe every 32 windows they took 9 % of the shared CPU, and one-core rxdrop
// with poll() trailed xdpsock (2.6 against 3.3 Mpps), which polls at once; without them the two
// are level (docs/benchmarks.md, "Side by side with xdpsock").
//
// A short window can be wrong for good (at 8 Mpps the batches come every 8 us, so a 1 us window
// never sees one and never grows), so now and then a window is a long probe. A probe that ends
// empty doubles the gap to the next one (up to probe_every_most windows), so that on one core
// probing costs next to nothing; a probe that sees data brings the gap back to probe_every.
#pragma once

#include <algorithm>
#include <cstdint>
#include <sched.h>

namespace afxdp::tool {

class IdleWait {
 public:
  // Re-checks per window: from `shortest` (none beyond the peek that found the ring empty) up to
  // `longest` (some tens of microseconds on this machine's CPUs).
  static constexpr std::uint32_t shortest = 1;
  static constexpr std::uint32_t longest = 2048;
  // Windows from one probe to the next: probe_every after a probe that saw data, doubling after
  // each that did not, up to probe_every_most.
  static constexpr std::uint32_t probe_every = 32;
  static constexpr std::uint32_t probe_every_most = 1024;

  // The ring had data. If it came during a window, windows as long as twice that wait pay off.
  void busy() noexcept {
    if (checks_ != 0) {
      window_ = std::clamp(std::max(window_, checks_) * 2, shortest, longest);
      if (probing_) probe_gap_ = probe_every;
    }
    checks_ = 0;
    probing_ = false;
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
    window_ = std::max(window_ - (window_ + 7) / 8, shortest);
    if (probing_) probe_gap_ = std::min(probe_gap_ * 2, probe_every_most);
    probing_ = ++since_probe_ >= probe_gap_;
    if (probing_) since_probe_ = 0;
    limit_ = probing_ ? longest : window_;
    return true;
  }
  std::uint32_t window() const noexcept { return window_; }
  std::uint32_t probe_gap() const noexcept { return probe_gap_; }
  static void yield() noexcept { ::sched_yield(); }

 private:
  std::uint32_t checks_ = 0;   // empty re-checks in the current window
  std::uint32_t window_ = longest;
  std::uint32_t limit_ = longest;  // this window's length: window_, or longest for a probe
  bool probing_ = false;           // this window is a probe
  std::uint32_t probe_gap_ = probe_every;  // windows from one probe to the next
  std::uint32_t since_probe_ = 0;          // windows that ended empty since the last probe
};

}  // namespace afxdp::tool
