#include "common/child.hpp"

#include <afxdp/error.hpp>

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace afxdp::tool {
namespace {

// Live children for kill_all_children; a small fixed table so a signal handler can read it.
std::array<std::atomic<pid_t>, 16> live{};

void remember(pid_t pid) {
  for (auto& slot : live) {
    pid_t empty = 0;
    if (slot.compare_exchange_strong(empty, pid)) return;
  }
}
void forget(pid_t pid) {
  for (auto& slot : live) {
    pid_t expected = pid;
    slot.compare_exchange_strong(expected, 0);
  }
}

int exit_code(int status) {
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

long long left_ms(std::chrono::steady_clock::time_point deadline) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(deadline -
                                                               std::chrono::steady_clock::now())
      .count();
}

}  // namespace

void kill_all_children() noexcept {
  for (auto& slot : live) {
    const pid_t pid = slot.load();
    if (pid > 0) ::kill(pid, SIGKILL);
  }
}

Child::Child(const std::vector<std::string>& args, const std::string& program,
             const std::vector<std::string>& wrapper, OnTimeout on_timeout, Signals signals)
    : on_timeout_(on_timeout) {
  int out_pipe[2], err_pipe[2];
  if (::pipe2(out_pipe, O_CLOEXEC) != 0) throw_errno(errno, "pipe2");
  if (::pipe2(err_pipe, O_CLOEXEC) != 0) {
    const int error = errno;
    ::close(out_pipe[0]);
    ::close(out_pipe[1]);
    throw_errno(error, "pipe2");
  }
  // Through a wrapper the program must be named by its path; alone, it is just "afxdp".
  std::vector<std::string> argv = wrapper;
  argv.push_back(wrapper.empty() ? "afxdp" : program);
  argv.insert(argv.end(), args.begin(), args.end());
  std::vector<char*> raw;
  raw.reserve(argv.size() + 1);
  for (auto& arg : argv) raw.push_back(arg.data());
  raw.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, out_pipe[1], STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, err_pipe[1], STDERR_FILENO);
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  sigset_t stop;
  sigemptyset(&stop);
  if (signals == Signals::held) {
    sigaddset(&stop, SIGINT);
    sigaddset(&stop, SIGTERM);
  }
  posix_spawnattr_setsigmask(&attributes, &stop);
  posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSIGMASK);
  const int rc = wrapper.empty() ? ::posix_spawn(&pid_, program.c_str(), &actions, &attributes,
                                                 raw.data(), environ)
                                 : ::posix_spawnp(&pid_, wrapper.front().c_str(), &actions,
                                                  &attributes, raw.data(), environ);
  posix_spawnattr_destroy(&attributes);
  posix_spawn_file_actions_destroy(&actions);
  ::close(out_pipe[1]);
  ::close(err_pipe[1]);
  out_fd_ = out_pipe[0];
  err_fd_ = err_pipe[0];
  if (rc != 0) {
    ::close(out_fd_);
    ::close(err_fd_);
    throw_errno(rc, "posix_spawn(" + argv.front() + ")");
  }
  remember(pid_);
}

Child::~Child() {
  if (status_ < 0 && pid_ > 0) {
    ::kill(pid_, SIGKILL);
    reap(true);
  }
  if (out_fd_ >= 0) ::close(out_fd_);
  if (err_fd_ >= 0) ::close(err_fd_);
}

void Child::signal(int number) {
  if (status_ < 0 && pid_ > 0) ::kill(pid_, number);
}

void Child::terminate() { signal(SIGTERM); }

bool Child::pump(int timeout_ms) {
  if (out_fd_ < 0 && err_fd_ < 0) return false;
  pollfd fds[2] = {{out_fd_, POLLIN, 0}, {err_fd_, POLLIN, 0}};
  if (::poll(fds, 2, timeout_ms) <= 0) return true;
  char buffer[4096];
  int* fd[2] = {&out_fd_, &err_fd_};
  std::string* text[2] = {&out_, &err_};
  for (int i = 0; i < 2; ++i) {
    if (*fd[i] < 0 || fds[i].revents == 0) continue;
    const ssize_t n = ::read(*fd[i], buffer, sizeof buffer);
    if (n > 0) {
      text[i]->append(buffer, static_cast<std::size_t>(n));
    } else if (n == 0 || errno != EINTR) {
      ::close(*fd[i]);
      *fd[i] = -1;
    }
  }
  return out_fd_ >= 0 || err_fd_ >= 0;
}

// Read both pipes until they close or the time is up.
void Child::drain(int timeout_ms) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  for (long long left = timeout_ms; left > 0 && pump(static_cast<int>(left));
       left = left_ms(deadline)) {
  }
}

bool Child::reap(bool block) {
  if (status_ >= 0) return true;
  int status = 0;
  pid_t done;
  while ((done = ::waitpid(pid_, &status, block ? 0 : WNOHANG)) < 0 && errno == EINTR) {
  }
  if (done != pid_) return false;
  status_ = status;
  forget(pid_);
  return true;
}

bool Child::read_line(std::string& line, int timeout_ms) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  for (;;) {
    const std::size_t end = out_.find('\n', line_start_);
    if (end != std::string::npos) {
      line = out_.substr(line_start_, end - line_start_);
      line_start_ = end + 1;
      return true;
    }
    const long long left = left_ms(deadline);
    if (left <= 0 || out_fd_ < 0) return false;
    pump(static_cast<int>(left));
  }
}

bool Child::exited(int timeout_ms) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  while (!reap(false)) {
    const long long left = left_ms(deadline);
    if (left <= 0) return false;
    // Both pipes closed but not exited yet: sleep instead of spinning on waitpid.
    if (!pump(static_cast<int>(std::min(left, 10LL)))) ::poll(nullptr, 0, 10);
  }
  return true;
}

int Child::wait(int timeout_ms) {
  const auto start = std::chrono::steady_clock::now();
  const bool reaped = status_ >= 0;  // by exited(), perhaps before its last output was read
  // The exit itself decides (not the pipes closing), so waited() is the time to the exit.
  if (!reaped && !exited(timeout_ms)) {
    if (on_timeout_ == OnTimeout::terminate) {  // ask, then insist
      ::kill(pid_, SIGTERM);
      exited(2000);
    }
    if (status_ < 0) ::kill(pid_, SIGKILL);
    reap(true);
  }
  if (!reaped) {
    waited_ = std::chrono::duration_cast<std::chrono::milliseconds>(
        std::chrono::steady_clock::now() - start);
  }
  // What it printed last; bounded, in case something it started still holds the pipes.
  drain(2000);
  return exit_code(status_);
}

std::string Child::first_error_line() const {
  const auto end = err_.find('\n');
  return err_.substr(0, end);
}

namespace {

std::string last_nonblank_line(const std::string& text) {
  const std::string found = last_line_where(text, [](const std::string& line) {
    return line.find_first_not_of(" \t\r") != std::string::npos;
  });
  const auto start = found.find_first_not_of(" \t");
  return start == std::string::npos ? found : found.substr(start);
}

}  // namespace

std::string Child::last_error_line() const {
  std::string line = last_nonblank_line(err_);
  return line.empty() ? last_nonblank_line(out_) : line;
}

}  // namespace afxdp::tool
