#include "hugepages.hpp"

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <string>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

namespace afxdp::test {
namespace {

constexpr const char* nr_hugepages = "/sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages";
constexpr const char* free_hugepages = "/sys/kernel/mm/hugepages/hugepages-2048kB/free_hugepages";
// Only root may write here: a journal anyone could write would choose nr_hugepages for the next
// root run.
constexpr const char* journal_directory = "/run/afxdp-tests";
constexpr const char* journal = "/run/afxdp-tests/nr-hugepages.restore";
constexpr int restoring_signals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGABRT};

long read_number(const char* path) {
  std::ifstream in(path);
  long value = -1;
  in >> value;
  return in ? value : -1;
}

// Writes `text` to `path` with plain syscalls (a signal handler uses it); false on failure.
bool write_text(const char* path, const char* text, std::size_t length, int flags) {
  const int fd = ::open(path, O_WRONLY | O_CLOEXEC | flags, 0600);
  if (fd < 0) return false;
  const bool ok = ::write(fd, text, length) == static_cast<ssize_t>(length);
  ::close(fd);
  return ok;
}

// The previous count as text, ready for the signal handler; length 0 while nothing is raised.
char restore_text[32];
volatile std::sig_atomic_t restore_length = 0;
struct sigaction previous_actions[std::size(restoring_signals)];

void restore_now() noexcept {
  const auto length = static_cast<std::size_t>(restore_length);
  if (length == 0) return;
  if (write_text(nr_hugepages, restore_text, length, 0)) ::unlink(journal);
  restore_length = 0;
}

extern "C" void restore_on_signal(int signal) {
  restore_now();
  // The signal's own course (the default: terminate, core) with nothing of ours left behind.
  ::signal(signal, SIG_DFL);
  ::raise(signal);
}

// The journal's directory, made when missing: root's, mode 0700, not a link.
std::string require_journal_directory() {
  if (::mkdir(journal_directory, 0700) != 0 && errno != EEXIST) {
    return std::string("cannot make ") + journal_directory + ": " + std::strerror(errno);
  }
  struct stat st {};
  if (::lstat(journal_directory, &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != 0 ||
      (st.st_mode & 07777) != 0700) {
    return std::string(journal_directory) + " is not a directory of root's with mode 0700";
  }
  return {};
}

// The count a journal holds, if root wrote it (root's, mode 0600, not a link) and it is no more
// than is reserved now (we only ever raised from it); -1 for no journal.
long read_journal(long reserved, std::string& failure) {
  const int fd = ::open(journal, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) {
    if (errno != ENOENT)
      failure = std::string("cannot open ") + journal + ": " + std::strerror(errno);
    return -1;
  }
  struct stat st {};
  char text[32] = {};
  const bool trusted = ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == 0 &&
                       (st.st_mode & 07777) == 0600;
  const ssize_t n = trusted ? ::read(fd, text, sizeof text - 1) : -1;
  ::close(fd);
  char* end = nullptr;
  const long value = n > 0 ? std::strtol(text, &end, 10) : -1;
  if (!trusted || value < 0 || value > reserved || end == text) {
    failure = std::string(journal) + " is not root's with mode 0600, or asks for more than the " +
              std::to_string(reserved) + " pages reserved: left alone, remove it";
    return -1;
  }
  return value;
}

// A journal left by a run that could not restore (killed by SIGKILL): put its count back.
std::string restore_left_over() {
  std::string failure = require_journal_directory();
  if (!failure.empty()) return failure;
  const long left_over = read_journal(read_number(nr_hugepages), failure);
  if (left_over < 0) return failure;
  const std::string text = std::to_string(left_over) + "\n";
  if (!write_text(nr_hugepages, text.data(), text.size(), 0)) {
    return std::string("cannot restore ") + nr_hugepages + " from " + journal + ": " +
           std::strerror(errno);
  }
  ::unlink(journal);
  return {};
}

}  // namespace

const char* HugepageReservation::journal_path() noexcept { return journal; }
long HugepageReservation::pages_reserved() noexcept { return read_number(nr_hugepages); }

HugepageReservation::HugepageReservation(long pages) {
  lock_fd_ = ::open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
  if (lock_fd_ >= 0) ::flock(lock_fd_, LOCK_EX);  // best effort: serializes this binary's tests
  if (failure_ = restore_left_over(); !failure_.empty()) return;
  const long previous = read_number(nr_hugepages);
  const long free = read_number(free_hugepages);
  if (previous < 0 || free < 0) {
    failure_ = std::string("cannot read ") + nr_hugepages + " or free_hugepages";
    return;
  }
  if (free >= pages) return;

  // Journal first, then the handlers, then the raise: every later way out finds what to restore.
  const int length = std::snprintf(restore_text, sizeof restore_text, "%ld\n", previous);
  if (!write_text(journal, restore_text, static_cast<std::size_t>(length),
                  O_CREAT | O_TRUNC | O_NOFOLLOW)) {
    failure_ = std::string("cannot write ") + journal + ": " + std::strerror(errno);
    return;
  }
  restore_length = length;
  changed_ = true;
  struct sigaction action {};
  action.sa_handler = restore_on_signal;
  sigemptyset(&action.sa_mask);
  for (std::size_t i = 0; i < std::size(restoring_signals); ++i) {
    ::sigaction(restoring_signals[i], &action, &previous_actions[i]);
  }
  const std::string raised = std::to_string(previous + (pages - free)) + "\n";
  if (!write_text(nr_hugepages, raised.data(), raised.size(), 0)) {
    failure_ = "cannot reserve " + std::to_string(pages) + " hugepages: write " + nr_hugepages +
               ": " + std::strerror(errno);
    return;
  }
  if (const long now = read_number(free_hugepages); now < pages) {
    failure_ = "the kernel reserved only " + std::to_string(now) + " free hugepages of the " +
               std::to_string(pages) + " needed (memory too fragmented?)";
  }
}

HugepageReservation::~HugepageReservation() {
  if (changed_) {
    restore_now();
    for (std::size_t i = 0; i < std::size(restoring_signals); ++i) {
      ::sigaction(restoring_signals[i], &previous_actions[i], nullptr);
    }
  }
  if (lock_fd_ >= 0) ::close(lock_fd_);  // releases the flock
}

}  // namespace afxdp::test
