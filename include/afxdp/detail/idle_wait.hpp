// IdleWait: how long an idle receive loop re-checks its ring before it gives the CPU away
// (Queue::wait, wait_any). Internal: this comment is the policy's one statement; queue.hpp and
// docs/ point here.
//
// Data often follows within microseconds (the kernel hands over one NAPI batch at a time), and
// sleeping costs the kernel's CPU a wake-up per batch, so the window adapts as an adaptive mutex's
// spin does: it grows when data came during it and shrinks to nothing when it keeps ending empty
// (one core: the kernel cannot deliver while we spin). Now and then a window is a long probe, so
// that a window too short to ever see data can grow again; probes that end empty back off.
// The measurements behind these numbers are in docs/benchmarks-log.md.
//
// A spinning loop (Queue::wait with a zero timeout) ends a window with a yield only while the CPU
// is shared (one core: with the kernel's NAPI thread, which delivers our packets and, woken while
// we spin, waits for our yield until our time slice ends). Shared means a yield gave the CPU away
// (it took long) or two empty windows were far apart (another task ran between them), lately.
// While the CPU is shared a yield that comes straight back proves nothing (the scheduler may pick
// us again while the other task is behind its share); after a while of those, the next yield
// waits, twice as long after each that did not pay, so that a spinner with a CPU of its own makes
// almost no system call, as xdpsock's does.
//
// Threading: one thread owns an IdleWait, like the ring it watches.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <sched.h>

namespace afxdp::detail {

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
  using Clock = std::chrono::steady_clock;
  // A yield this long gave the CPU away (one that comes straight back takes about a microsecond
  // here, a thousandth of them three); the gap after one that did not, first and at most.
  static constexpr std::chrono::microseconds yield_paid{10};
  static constexpr std::chrono::microseconds yield_gap_least{16};
  static constexpr std::chrono::microseconds yield_gap_most{1'000'000};
  // Empty windows this far apart had another task between them: a window re-checks for at most
  // some tens of microseconds (`longest`).
  static constexpr std::chrono::microseconds preempted_after{250};
  // Since the last sign of a shared CPU, yields stay due at every window's end this long.
  static constexpr std::chrono::microseconds shared_for{1000};

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
    last_empty_end_ = {};
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
  // A spinning loop's window ended: yield the CPU when yields pay, else go on spinning.
  void spin_yield() noexcept {
    const Clock::time_point now = Clock::now();
    note_empty_end(now);
    if (!yield_due(now)) return;
    yield();
    const Clock::time_point after = Clock::now();
    note_yield(after - now, after);
  }
  // A window ended empty at `now`. The last one, with no data since, ended long ago: another task
  // had the CPU in between, so it is shared.
  void note_empty_end(Clock::time_point now) noexcept {
    if (last_empty_end_ != Clock::time_point{} && now - last_empty_end_ >= preempted_after) {
      note_shared(now);
    }
    last_empty_end_ = now;
  }
  [[nodiscard]] bool yield_due(Clock::time_point now) const noexcept { return now >= next_yield_; }
  // A yield took `took` and ended at `after`: the next is due at once while the CPU is shared,
  // else after a gap twice the last.
  void note_yield(Clock::duration took, Clock::time_point after) noexcept {
    last_empty_end_ = after;
    if (took >= yield_paid) {
      note_shared(after);
    } else if (after - shared_at_ >= shared_for) {
      const Clock::duration least = yield_gap_least;
      const Clock::duration most = yield_gap_most;
      yield_gap_ = std::clamp(yield_gap_ * 2, least, most);
      next_yield_ = after + yield_gap_;
    }
  }
  [[nodiscard]] Clock::duration yield_gap() const noexcept { return yield_gap_; }
  void note_shared(Clock::time_point now) noexcept {
    shared_at_ = now;
    yield_gap_ = Clock::duration::zero();
    next_yield_ = now;
  }
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
  Clock::duration yield_gap_{};            // from a yield that did not pay to the next yield
  Clock::time_point next_yield_{};         // no yield before this
  Clock::time_point last_empty_end_{};     // the last empty window's end; none since data came
  Clock::time_point shared_at_{};          // the last sign that another task wants this CPU
};

}  // namespace afxdp::detail
