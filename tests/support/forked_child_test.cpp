// ForkedChild: what the child says arrives, its exit code is kept, an escaping exception is said,
// and no child outlives its owner.
#include "forked_child.hpp"

#include <gtest/gtest.h>

#include <cerrno>
#include <csignal>
#include <stdexcept>
#include <sys/wait.h>
#include <unistd.h>

namespace {

using afxdp::test::ForkedChild;
using afxdp::test::run_in_child;

TEST(ForkedChild, WhatTheChildSaysAndItsExitCode) {
  const auto end = run_in_child([](const ForkedChild::Pipe& pipe) {
    return pipe.say("hello ") && pipe.say(std::string(2000, 'x')) ? 7 : 1;
  });
  EXPECT_EQ(end.said, "hello " + std::string(2000, 'x'));
  EXPECT_TRUE(end.exited_with(7)) << end.status;
  EXPECT_FALSE(end.exited_with(0));
}

TEST(ForkedChild, AnEscapingExceptionIsSaidAndExits125) {
  const auto end = run_in_child(
      [](const ForkedChild::Pipe&) -> int { throw std::runtime_error("no namespace"); });
  EXPECT_EQ(end.said, "exception: no namespace");
  EXPECT_TRUE(end.exited_with(ForkedChild::escaped)) << end.status;
}

TEST(ForkedChild, ReadWaitsForTheChildThenKillEndsIt) {
  ForkedChild child([](const ForkedChild::Pipe& pipe) {
    ::usleep(100 * 1000);
    if (!pipe.say("R")) return 2;
    for (;;) ::pause();
  });
  EXPECT_EQ(child.read(1), "R");
  const int status = child.kill();
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) << status;
  EXPECT_EQ(child.wait(), status);
}

TEST(ForkedChild, ReadGivesNothingWhenTheChildIsSilent) {
  ForkedChild silent([](const ForkedChild::Pipe&) {
    for (;;) ::pause();
    return 0;
  });
  EXPECT_EQ(silent.read(1, std::chrono::milliseconds(50)), "");
  ForkedChild gone([](const ForkedChild::Pipe&) { return 3; });
  EXPECT_EQ(gone.read(1), "");  // closed without a word
  EXPECT_TRUE(WIFEXITED(gone.wait()) && WEXITSTATUS(gone.wait()) == 3);
}

TEST(ForkedChild, NoChildOutlivesItsOwner) {
  pid_t pid = 0;
  {
    ForkedChild child([](const ForkedChild::Pipe&) {
      for (;;) ::pause();
      return 0;
    });
    pid = child.pid();
    ASSERT_EQ(::kill(pid, 0), 0);
  }
  EXPECT_EQ(::kill(pid, 0), -1);  // killed and reaped: not even a zombie holds the pid
  EXPECT_EQ(errno, ESRCH);
}

}  // namespace
