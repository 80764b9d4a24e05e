// Child (tools/afxdp/common/child.hpp): what a child printed is all read, however it is waited for.
#include "common/child.hpp"

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

// A reference program's reason is its last non-blank line, stderr first: libbpf's and EAL's notes
// come before it, a blank line may come after it.
TEST(Child, LastErrorLineIsTheLastNonBlankLineOfStderrElseStdout) {
  afxdp::tool::Child both(
      {"-c", "echo 'libbpf: note' >&2; echo '  the reason' >&2; echo >&2; echo out"}, "/bin/sh");
  ASSERT_EQ(both.wait(2000), 0);
  EXPECT_EQ(both.last_error_line(), "the reason");
  afxdp::tool::Child out_only({"-c", "echo first; echo 'EAL: last'; echo '   '"}, "/bin/sh");
  ASSERT_EQ(out_only.wait(2000), 0);
  EXPECT_EQ(out_only.last_error_line(), "EAL: last");
  afxdp::tool::Child silent({"-c", "exit 3"}, "/bin/sh");
  EXPECT_EQ(silent.wait(2000), 3);
  EXPECT_EQ(silent.last_error_line(), "");
}
