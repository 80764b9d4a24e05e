#include "forked_child.hpp"

#include <cerrno>
#include <csignal>
#include <exception>
#include <fcntl.h>
#include <poll.h>
#include <sys/wait.h>
#include <system_error>
#include <unistd.h>

namespace afxdp::test {

bool ForkedChild::Pipe::say(std::string_view text) const noexcept {
  while (!text.empty()) {
    const ssize_t n = ::write(fd_, text.data(), text.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    text.remove_prefix(static_cast<std::size_t>(n));
  }
  return true;
}

ForkedChild::ForkedChild(const Body& body) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) throw std::system_error(errno, std::generic_category(), "pipe");
  pid_ = ::fork();
  if (pid_ < 0) {
    const int error = errno;
    ::close(fds[0]);
    ::close(fds[1]);
    throw std::system_error(error, std::generic_category(), "fork");
  }
  if (pid_ == 0) {
    ::close(fds[0]);
    const Pipe pipe(fds[1]);
    int code = escaped;
    try {
      code = body(pipe);
    } catch (const std::exception& e) {
      (void)pipe.say(std::string("exception: ") + e.what());
    } catch (...) {
      (void)pipe.say("exception: not a std::exception");
    }
    ::_exit(code);
  }
  ::close(fds[1]);
  from_child_ = fds[0];
}

ForkedChild::~ForkedChild() {
  if (!reaped_) kill();
  ::close(from_child_);
}

std::string ForkedChild::read(std::size_t most, std::chrono::milliseconds timeout) {
  pollfd entry{from_child_, POLLIN, 0};
  int ready = 0;
  while ((ready = ::poll(&entry, 1, static_cast<int>(timeout.count()))) < 0 && errno == EINTR) {
  }
  if (ready != 1) return {};
  std::string said(most, '\0');
  ssize_t n = 0;
  while ((n = ::read(from_child_, said.data(), most)) < 0 && errno == EINTR) {
  }
  said.resize(n > 0 ? static_cast<std::size_t>(n) : 0);
  return said;
}

std::string ForkedChild::read_all() {
  std::string said;
  char buffer[512];
  for (;;) {
    const ssize_t n = ::read(from_child_, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return said;
    said.append(buffer, static_cast<std::size_t>(n));
  }
}

int ForkedChild::kill() {
  if (!reaped_) ::kill(pid_, SIGKILL);
  return wait();
}

int ForkedChild::wait() {
  if (reaped_) return status_;
  int rc = 0;
  while ((rc = ::waitpid(pid_, &status_, 0)) < 0 && errno == EINTR) {
  }
  if (rc != pid_) status_ = -1;  // no exit at all, so that no test reads it as a success
  reaped_ = true;
  return status_;
}

bool ChildEnd::exited_with(int code) const noexcept {
  return WIFEXITED(status) && WEXITSTATUS(status) == code;
}

ChildEnd run_in_child(const ForkedChild::Body& body) {
  ForkedChild child(body);
  ChildEnd end;
  end.said = child.read_all();
  end.status = child.wait();
  return end;
}

}  // namespace afxdp::test
