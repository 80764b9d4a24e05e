#include "hugepages.hpp"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <sstream>
#include <sys/file.h>
#include <unistd.h>

namespace afxdp::test {
namespace {

constexpr const char* nr_hugepages = "/proc/sys/vm/nr_hugepages";

// A "Key:   value" line of /proc/meminfo; -1 when missing.
long meminfo(const std::string& key) {
  std::ifstream in("/proc/meminfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(key + ":", 0) != 0) continue;
    std::istringstream fields(line.substr(key.size() + 1));
    long value = -1;
    fields >> value;
    return value;
  }
  return -1;
}

long read_number(const char* path) {
  std::ifstream in(path);
  long value = -1;
  in >> value;
  return in ? value : -1;
}

// Writes `value` to nr_hugepages; "" or why it failed.
std::string write_number(const char* path, long value) {
  const int fd = ::open(path, O_WRONLY | O_CLOEXEC);
  if (fd < 0) return std::string("open ") + path + ": " + std::strerror(errno);
  const std::string text = std::to_string(value) + "\n";
  const ssize_t n = ::write(fd, text.data(), text.size());
  const int error = errno;
  ::close(fd);
  if (n != static_cast<ssize_t>(text.size())) {
    return std::string("write ") + text.substr(0, text.size() - 1) + " to " + path + ": " +
           std::strerror(n < 0 ? error : EIO);
  }
  return {};
}

}  // namespace

HugepageReservation::HugepageReservation(long pages) {
  lock_fd_ = ::open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
  if (lock_fd_ >= 0) ::flock(lock_fd_, LOCK_EX);  // best effort: serializes this binary's tests
  if (meminfo("Hugepagesize") != 2048) {
    failure_ = "the default hugepage size is not 2 MiB (/proc/meminfo Hugepagesize)";
    return;
  }
  previous_ = read_number(nr_hugepages);
  const long free = meminfo("HugePages_Free");
  if (previous_ < 0 || free < 0) {
    failure_ = std::string("cannot read ") + nr_hugepages + " or HugePages_Free";
    return;
  }
  if (free >= pages) return;
  if (std::string why = write_number(nr_hugepages, previous_ + (pages - free)); !why.empty()) {
    failure_ = "cannot reserve " + std::to_string(pages) + " hugepages: " + why;
    return;
  }
  changed_ = true;
  if (const long now = meminfo("HugePages_Free"); now < pages) {
    failure_ = "the kernel reserved only " + std::to_string(now) + " free hugepages of the " +
               std::to_string(pages) + " needed (memory too fragmented?)";
  }
}

HugepageReservation::~HugepageReservation() {
  if (changed_) write_number(nr_hugepages, previous_);
  if (lock_fd_ >= 0) ::close(lock_fd_);  // releases the flock
}

}  // namespace afxdp::test
