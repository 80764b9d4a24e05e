// The hugepage reservation of the tool's tests cannot leave nr_hugepages raised: a holder killed
// by SIGTERM restores it on the way out, and one killed by SIGKILL is undone by the next
// reservation. Each case raises the count in a child by one page more than is free.
#include "hugepages.hpp"
#include "system_test.hpp"

#include <csignal>
#include <fstream>
#include <string>
#include <sys/wait.h>
#include <unistd.h>

namespace {

constexpr const char* nr_path = "/sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages";
constexpr const char* free_path = "/sys/kernel/mm/hugepages/hugepages-2048kB/free_hugepages";

long read_number(const char* path) {
  std::ifstream in(path);
  long value = -1;
  in >> value;
  return in ? value : -1;
}

// Forks a child that reserves one page more than is free, reports the raised count on a pipe,
// then dies by `signal`. Returns the count the child saw raised (-1 when it could not raise).
long raise_then_die(int signal) {
  int pipe_fds[2];
  if (::pipe(pipe_fds) != 0) return -1;
  const pid_t child = ::fork();
  if (child < 0) return -1;
  if (child == 0) {
    ::close(pipe_fds[0]);
    afxdp::test::HugepageReservation reservation(read_number(free_path) + 1);
    const long raised = reservation.failure().empty() ? read_number(nr_path) : -1;
    if (::write(pipe_fds[1], &raised, sizeof raised) != sizeof raised) ::_exit(3);
    ::raise(signal);
    ::_exit(4);  // not reached
  }
  ::close(pipe_fds[1]);
  long raised = -1;
  if (::read(pipe_fds[0], &raised, sizeof raised) != sizeof raised) raised = -1;
  ::close(pipe_fds[0]);
  int status = 0;
  ::waitpid(child, &status, 0);
  return raised;
}

TEST(HugepageReservation, SigtermRestoresOnTheWayOut) {
  AFXDP_REQUIRE_SYSTEM();
  const long before = read_number(nr_path);
  if (before < 0) GTEST_SKIP() << "no 2 MiB hugepages here (" << nr_path << ")";
  const long raised = raise_then_die(SIGTERM);
  if (raised <= before) GTEST_SKIP() << "could not raise nr_hugepages (memory?)";
  EXPECT_EQ(read_number(nr_path), before);
}

TEST(HugepageReservation, SigkillIsUndoneByTheNextReservation) {
  AFXDP_REQUIRE_SYSTEM();
  const long before = read_number(nr_path);
  if (before < 0) GTEST_SKIP() << "no 2 MiB hugepages here (" << nr_path << ")";
  const long raised = raise_then_die(SIGKILL);
  if (raised <= before) GTEST_SKIP() << "could not raise nr_hugepages (memory?)";
  { afxdp::test::HugepageReservation next(0); }
  const long after = read_number(nr_path);
  if (after != before) {
    // Leave the machine as found even when the test fails.
    std::ofstream(nr_path) << before << "\n";
  }
  EXPECT_EQ(after, before);
}

}  // namespace
