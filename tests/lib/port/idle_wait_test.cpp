// IdleWait (include/afxdp/idle_wait.hpp): how many empty re-checks a loop makes before it gives the
// CPU away, as the ring's behaviour teaches it.
#include <afxdp/idle_wait.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

using afxdp::IdleWait;

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
