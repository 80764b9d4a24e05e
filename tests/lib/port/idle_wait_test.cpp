// IdleWait (include/afxdp/detail/idle_wait.hpp): how many empty re-checks a loop makes before it
// gives the CPU away, as the ring's behaviour teaches it.
#include <afxdp/detail/idle_wait.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include <sched.h>

using afxdp::detail::IdleWait;

namespace {

// Empty re-checks until note_empty() says to sleep or yield: the window's length.
std::uint32_t run_empty_window(IdleWait& idle) {
  std::uint32_t checks = 1;
  while (!idle.note_empty()) ++checks;
  return checks;
}

}  // namespace

TEST(IdleWait, StartsWithTheLongestWindow) {
  IdleWait idle;
  EXPECT_EQ(run_empty_window(idle), IdleWait::longest);
}

// One core: the kernel cannot deliver while we re-check, so every window ends empty. They shrink
// to none at all (the failed peek, then straight to sleep), apart from the probes, and each probe
// that ends empty doubles the gap to the next, up to probe_every_most windows.
TEST(IdleWait, WindowsThatEndEmptyShrinkToNoneAndProbesBackOff) {
  IdleWait idle;
  std::vector<std::uint32_t> probes;  // the windows that were probes
  std::uint32_t others_after_shrinking = 0;
  for (std::uint32_t i = 0; i < 5000; ++i) {
    const std::uint32_t checks = run_empty_window(idle);
    if (i == 0) continue;  // the first window is the longest, before anything was learnt
    if (checks == IdleWait::longest) {
      probes.push_back(i);
    } else if (i >= 100) {
      EXPECT_EQ(checks, IdleWait::shortest) << "window " << i;
      ++others_after_shrinking;
    }
  }
  EXPECT_EQ(IdleWait::shortest, 1U);  // note_empty() says yes at the first empty peek
  ASSERT_GE(probes.size(), 8U);
  EXPECT_EQ(probes[0], IdleWait::probe_every);
  std::uint32_t gap = IdleWait::probe_every;
  for (std::size_t k = 1; k < probes.size(); ++k) {
    gap = std::min(gap * 2, IdleWait::probe_every_most);
    EXPECT_EQ(probes[k] - probes[k - 1], gap) << "probe " << k;
  }
  EXPECT_EQ(idle.probe_gap(), IdleWait::probe_every_most);
  EXPECT_GT(others_after_shrinking, 4800U);
}

// Two cores: data arrives some re-checks into a window; the windows grow to twice that wait.
TEST(IdleWait, DataDuringAWindowLengthensTheNext) {
  IdleWait idle;
  for (int i = 0; i < 100; ++i) run_empty_window(idle);
  ASSERT_EQ(idle.window(), IdleWait::shortest);
  // A probe comes within probe_every_most windows; data arrives 300 checks into it.
  bool grew = false;
  for (std::uint32_t w = 0; w < IdleWait::probe_every_most + 1 && !grew; ++w) {
    std::uint32_t checks = 0;
    bool gave_up = false;
    while (checks < 300 && !(gave_up = idle.note_empty())) ++checks;
    if (gave_up) continue;  // a short window: it ended before the data came
    idle.note_data();
    grew = true;
  }
  ASSERT_TRUE(grew) << "no probe window within " << IdleWait::probe_every_most + 1 << " windows";
  EXPECT_EQ(idle.window(), 2 * 300U);
  EXPECT_EQ(idle.probe_gap(), IdleWait::probe_every);  // a probe that paid: probe often again
  EXPECT_EQ(run_empty_window(idle), 2 * 300U);
}

// Data after a sleep (poll() returned) says nothing about the window: it stays as it was.
TEST(IdleWait, DataAfterGivingUpLeavesTheWindow) {
  IdleWait idle;
  run_empty_window(idle);
  const std::uint32_t before = idle.window();
  idle.note_data();
  EXPECT_EQ(idle.window(), before);
}

// A spinner's yields: one that came straight back (nothing else wanted the CPU) spaces out the
// next, twice as far each time, up to the most.
TEST(IdleWait, YieldsThatComeStraightBackSpaceOutTheNext) {
  using std::chrono::microseconds;
  IdleWait idle;
  IdleWait::Clock::time_point t{std::chrono::seconds(100)};
  ASSERT_TRUE(idle.yield_due(t));  // the first window's end yields
  idle.note_yield(microseconds(1), t);
  EXPECT_EQ(idle.yield_gap(), IdleWait::yield_gap_least);
  EXPECT_FALSE(idle.yield_due(t + IdleWait::yield_gap_least - microseconds(1)));
  EXPECT_TRUE(idle.yield_due(t + IdleWait::yield_gap_least));
  IdleWait::Clock::duration gap = IdleWait::yield_gap_least;
  for (int i = 0; i < 30; ++i) {
    t += idle.yield_gap();
    idle.note_yield(microseconds(1), t);
    gap = std::min<IdleWait::Clock::duration>(gap * 2, IdleWait::yield_gap_most);
    EXPECT_EQ(idle.yield_gap(), gap) << "yield " << i;
  }
  EXPECT_EQ(idle.yield_gap(), IdleWait::Clock::duration(IdleWait::yield_gap_most));
}

// A yield that gave the CPU away (one core: the kernel's NAPI thread ran) makes the next due at
// the next window's end.
TEST(IdleWait, AYieldThatPaidMakesTheNextDueAtOnce) {
  IdleWait idle;
  IdleWait::Clock::time_point t{std::chrono::seconds(100)};
  for (int i = 0; i < 5; ++i) idle.note_yield(std::chrono::microseconds(1), t);
  ASSERT_FALSE(idle.yield_due(t));
  t += std::chrono::milliseconds(3);
  idle.note_yield(IdleWait::yield_paid, t);
  EXPECT_EQ(idle.yield_gap(), IdleWait::Clock::duration::zero());
  EXPECT_TRUE(idle.yield_due(t));
}

// For real: with a second thread busy on the same CPU, spin_yield() hands it the CPU, sees that
// it did and keeps yielding at every window's end.
TEST(IdleWait, SpinYieldOnASharedCpuKeepsYielding) {
  cpu_set_t cpus;
  ASSERT_EQ(::sched_getaffinity(0, sizeof(cpus), &cpus), 0);
  std::size_t cpu = 0;
  while (cpu < CPU_SETSIZE && !CPU_ISSET(cpu, &cpus)) ++cpu;
  ASSERT_LT(cpu, std::size_t{CPU_SETSIZE});
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(cpu, &one);
  std::atomic<bool> running{false};
  std::atomic<bool> stop{false};
  std::thread busy([&] {
    ::sched_setaffinity(0, sizeof(one), &one);
    running = true;
    while (!stop) {
    }
  });
  ASSERT_EQ(::sched_setaffinity(0, sizeof(one), &one), 0);
  while (!running) IdleWait::yield();
  IdleWait idle;
  idle.note_yield(std::chrono::microseconds(1), IdleWait::Clock::now());  // as after one unpaid
  ASSERT_NE(idle.yield_gap(), IdleWait::Clock::duration::zero());
  // The scheduler may pick us again at a yield while the busy thread is behind its share (EEVDF:
  // not yet eligible); within a few yields it takes the CPU for a time slice.
  IdleWait::Clock::duration gap = idle.yield_gap();
  for (int yields = 0; yields < 12 && gap != IdleWait::Clock::duration::zero(); ++yields) {
    while (!idle.yield_due(IdleWait::Clock::now())) {
    }
    idle.spin_yield();
    gap = idle.yield_gap();
  }
  stop = true;
  busy.join();
  ASSERT_EQ(::sched_setaffinity(0, sizeof(cpus), &cpus), 0);
  EXPECT_EQ(gap, IdleWait::Clock::duration::zero());
}

// Empty windows far apart with no data between: another task had the CPU (one core: the NAPI
// thread, kept waiting for our yield), so yields are due at every window's end again. Data in
// between says nothing: the stretch was our own work.
TEST(IdleWait, EmptyWindowsFarApartMakeYieldsDueAgain) {
  using std::chrono::microseconds;
  IdleWait idle;
  IdleWait::Clock::time_point t{std::chrono::seconds(100)};
  for (int i = 0; i < 10; ++i) idle.note_yield(microseconds(1), t);
  idle.note_empty_end(t + IdleWait::preempted_after - microseconds(1));
  EXPECT_FALSE(idle.yield_due(t + IdleWait::preempted_after));
  t += IdleWait::preempted_after - microseconds(1);
  idle.note_data();
  idle.note_empty_end(t + IdleWait::preempted_after);  // the first window after data
  EXPECT_FALSE(idle.yield_due(t + IdleWait::preempted_after));
  t += IdleWait::preempted_after;
  idle.note_empty_end(t + IdleWait::preempted_after);
  EXPECT_TRUE(idle.yield_due(t + IdleWait::preempted_after));
  EXPECT_EQ(idle.yield_gap(), IdleWait::Clock::duration::zero());
}

// While the CPU is shared, a yield that comes straight back proves nothing (the other task may be
// behind its share for a moment): yields stay due for shared_for after the last one that paid.
TEST(IdleWait, WhileTheCpuIsSharedYieldsThatComeStraightBackStayDue) {
  using std::chrono::microseconds;
  IdleWait idle;
  IdleWait::Clock::time_point t{std::chrono::seconds(100)};
  idle.note_yield(IdleWait::yield_paid, t);
  idle.note_yield(microseconds(1), t + IdleWait::shared_for - microseconds(1));
  EXPECT_EQ(idle.yield_gap(), IdleWait::Clock::duration::zero());
  EXPECT_TRUE(idle.yield_due(t + IdleWait::shared_for - microseconds(1)));
  idle.note_yield(microseconds(1), t + IdleWait::shared_for);
  EXPECT_EQ(idle.yield_gap(), IdleWait::yield_gap_least);
  EXPECT_FALSE(idle.yield_due(t + IdleWait::shared_for + microseconds(1)));
}
