// The hugepage reservation of the tool's tests cannot leave nr_hugepages raised: a holder killed
// by SIGTERM restores it on the way out, and one killed by SIGKILL is undone by the next
// reservation. Each case raises the count in a child by one page more than is free.
#include "hugepages.hpp"
#include "forked_child.hpp"
#include "system_test.hpp"

#include <csignal>
#include <fstream>
#include <string>
#include <sys/stat.h>
#include <unistd.h>
#include <utility>

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
  const auto end = afxdp::test::run_in_child([signal](const afxdp::test::ForkedChild::Pipe& pipe) {
    afxdp::test::HugepageReservation reservation(read_number(free_path) + 1);
    const long raised = reservation.failure().empty() ? read_number(nr_path) : -1;
    if (!pipe.say(std::to_string(raised) + "\n")) return 3;
    ::raise(signal);
    return 4;  // not reached
  });
  // Only a whole line is a count: a child that died before saying it raised nothing we know of.
  if (end.said.empty() || end.said.back() != '\n') return -1;
  return std::stol(end.said);
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

namespace {

// Issue 27 item 22: the journal sat in world-writable /tmp and was trusted, so any local user
// chose nr_hugepages for the next root test run. It lives in a directory only root can write.
TEST(HugepageJournal, LivesInARootOnlyDirectory) {
  AFXDP_REQUIRE_SYSTEM();
  const std::string path = afxdp::test::HugepageReservation::journal_path();
  const std::string directory = path.substr(0, path.rfind('/'));
  (void)afxdp::test::HugepageReservation::pages_reserved();
  afxdp::test::HugepageReservation none(0);  // creates the directory when missing
  struct stat st {};
  ASSERT_EQ(::lstat(directory.c_str(), &st), 0) << directory;
  EXPECT_TRUE(S_ISDIR(st.st_mode)) << directory;
  EXPECT_EQ(st.st_uid, 0U) << directory;
  EXPECT_EQ(st.st_mode & 07777, 0700U) << directory;
}

// A journal another user could have written (not root's, or not mode 0600), or one asking for
// more pages than are reserved now, is refused, not restored. The value asked for is one page
// more than now, so that the old behaviour costs 2 MiB, not the machine.
TEST(HugepageJournal, AnUntrustedJournalIsRefused) {
  AFXDP_REQUIRE_SYSTEM();
  const long before = read_number(nr_path);
  if (before < 0) GTEST_SKIP() << "no 2 MiB hugepages here (" << nr_path << ")";
  { afxdp::test::HugepageReservation none(0); }  // the directory exists from here
  const char* journal = afxdp::test::HugepageReservation::journal_path();
  const auto plant = [&](long value, uid_t owner, mode_t mode) {
    ::unlink(journal);
    std::ofstream(journal) << value << "\n";
    ASSERT_EQ(::chown(journal, owner, 0), 0);
    ASSERT_EQ(::chmod(journal, mode), 0);
  };
  for (const auto& [owner, mode] : {std::pair<uid_t, mode_t>{65534, 0600}, {0, 0644}}) {
    plant(before + 1, owner, mode);
    afxdp::test::HugepageReservation reservation(0);
    EXPECT_FALSE(reservation.failure().empty()) << "owner " << owner << " mode " << mode;
    EXPECT_EQ(read_number(nr_path), before);
  }
  plant(before + 1, 0, 0600);  // root's, but more than is reserved: not a count we raised from
  {
    afxdp::test::HugepageReservation reservation(0);
    EXPECT_FALSE(reservation.failure().empty());
    EXPECT_EQ(read_number(nr_path), before);
  }
  ::unlink(journal);
  std::ofstream(nr_path) << before << "\n";  // the old code followed the journal: put it back
}

}  // namespace
