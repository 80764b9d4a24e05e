// IdleWait (tools/afxdp/idle.hpp): how many empty re-checks a loop makes before it gives the
// CPU away, as the ring's behaviour teaches it.
#include "idle.hpp"

#include <gtest/gtest.h>

using afxdp::tool::IdleWait;

namespace {

// Empty re-checks until give_up_cpu() says to sleep or yield: the window's length.
std::uint32_t run_empty_window(IdleWait& idle) {
  std::uint32_t checks = 1;
  while (!idle.give_up_cpu()) ++checks;
  return checks;
}

}  // namespace

TEST(IdleWait, StartsWithTheLongestWindow) {
  IdleWait idle;
  EXPECT_EQ(run_empty_window(idle), IdleWait::longest);
}

// One core: the kernel cannot deliver while we re-check, so every window ends empty and they
// shrink to the shortest, except the periodic long probe.
TEST(IdleWait, WindowsThatEndEmptyShrinkToTheShortestApartFromProbes) {
  IdleWait idle;
  std::uint32_t probes = 0, shortest = 0;
  for (int i = 0; i < 200; ++i) {
    const std::uint32_t checks = run_empty_window(idle);
    if (i < 100) continue;  // long enough to have shrunk
    if (checks == IdleWait::longest) ++probes;
    if (checks == IdleWait::shortest) ++shortest;
    EXPECT_TRUE(checks == IdleWait::longest || checks == IdleWait::shortest) << checks;
  }
  std::uint32_t expected_probes = 0;  // window j is a probe when j is a multiple of probe_every
  for (std::uint32_t j = 100; j < 200; ++j) expected_probes += j % IdleWait::probe_every == 0;
  EXPECT_EQ(probes, expected_probes) << "one probe every " << IdleWait::probe_every << " windows";
  EXPECT_EQ(probes + shortest, 100U);
}

// Two cores: data arrives some re-checks into a window; the windows grow to twice that wait.
TEST(IdleWait, DataDuringAWindowLengthensTheNext) {
  IdleWait idle;
  for (int i = 0; i < 100; ++i) run_empty_window(idle);
  ASSERT_EQ(idle.window(), IdleWait::shortest);
  // A probe comes within probe_every windows; data arrives 300 checks into it.
  bool grew = false;
  for (std::uint32_t w = 0; w < IdleWait::probe_every + 1 && !grew; ++w) {
    std::uint32_t checks = 0;
    bool gave_up = false;
    while (checks < 300 && !(gave_up = idle.give_up_cpu())) ++checks;
    if (gave_up) continue;  // a short window: it ended before the data came
    idle.busy();
    grew = true;
  }
  ASSERT_TRUE(grew) << "no probe window within " << IdleWait::probe_every + 1 << " windows";
  EXPECT_EQ(idle.window(), 2 * 300U);
  EXPECT_EQ(run_empty_window(idle), 2 * 300U);
}

// Data after a sleep (poll() returned) says nothing about the window: it stays as it was.
TEST(IdleWait, DataAfterGivingUpLeavesTheWindow) {
  IdleWait idle;
  run_empty_window(idle);
  const std::uint32_t before = idle.window();
  idle.busy();
  EXPECT_EQ(idle.window(), before);
}
