// Child (tools/afxdp/demo/child.hpp): what a child printed is all read, however it is waited for.
#include "demo/child.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <thread>

// exited() may reap the child before the last of its output is read: wait() still reads it.
// (It returned at once once exited() had reaped, so testpmd's last words went missing.)
TEST(Child, WaitReadsTheOutputAfterExitedReaped) {
  afxdp::tool::Child child({"-c", "echo out; echo err >&2"}, "/bin/sh");
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  ASSERT_TRUE(child.exited(0));  // reaped now, without reading: it had already ended
  EXPECT_EQ(child.wait(1000), 0);
  EXPECT_EQ(child.out(), "out\n");
  EXPECT_EQ(child.err(), "err\n");
}
