#include "child.hpp"

#include <afxdp/detail/socket_option.hpp>

#include <array>
#include <atomic>
#include <cerrno>
#include <chrono>
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

}  // namespace

void kill_all_children() noexcept {
  for (auto& slot : live) {
    const pid_t pid = slot.load();
    if (pid > 0) ::kill(pid, SIGKILL);
  }
}

Child::Child(const std::vector<std::string>& args, const std::string& program) {
  int out_pipe[2], err_pipe[2];
  if (::pipe2(out_pipe, O_CLOEXEC) != 0 || ::pipe2(err_pipe, O_CLOEXEC) != 0) {
    detail::throw_errno(errno, "pipe2");
  }
  std::vector<std::string> argv{"afxdp"};
  argv.insert(argv.end(), args.begin(), args.end());
  std::vector<char*> raw;
  for (auto& arg : argv) raw.push_back(arg.data());
  raw.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, out_pipe[1], STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, err_pipe[1], STDERR_FILENO);
  const int rc = ::posix_spawn(&pid_, program.c_str(), &actions, nullptr, raw.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  ::close(out_pipe[1]);
  ::close(err_pipe[1]);
  out_fd_ = out_pipe[0];
  err_fd_ = err_pipe[0];
  if (rc != 0) {
    ::close(out_fd_);
    ::close(err_fd_);
    detail::throw_errno(rc, "posix_spawn(" + program + ")");
  }
  remember(pid_);
}

Child::~Child() {
  if (status_ < 0 && pid_ > 0) {
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
    forget(pid_);
  }
  if (out_fd_ >= 0) ::close(out_fd_);
  if (err_fd_ >= 0) ::close(err_fd_);
}

void Child::terminate() {
  if (status_ < 0 && pid_ > 0) ::kill(pid_, SIGTERM);
}

// Read both pipes until they close or the time is up.
void Child::drain(int timeout_ms) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  char buffer[4096];
  while (out_fd_ >= 0 || err_fd_ >= 0) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                          deadline - std::chrono::steady_clock::now()).count();
    if (left <= 0) return;
    pollfd fds[2] = {{out_fd_, POLLIN, 0}, {err_fd_, POLLIN, 0}};
    if (::poll(fds, 2, static_cast<int>(left)) <= 0) continue;
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || fds[i].revents == 0) continue;
      const ssize_t n = ::read(fds[i].fd, buffer, sizeof buffer);
      if (n > 0) {
        (i == 0 ? out_ : err_).append(buffer, static_cast<std::size_t>(n));
      } else {
        ::close(fds[i].fd);
        (i == 0 ? out_fd_ : err_fd_) = -1;
      }
    }
  }
}

int Child::wait(int timeout_ms) {
  if (status_ >= 0) return WIFEXITED(status_) ? WEXITSTATUS(status_) : 128 + WTERMSIG(status_);
  drain(timeout_ms);
  if (out_fd_ >= 0 || err_fd_ >= 0) {  // still running: ask, then insist
    ::kill(pid_, SIGTERM);
    drain(2000);
    if (out_fd_ >= 0 || err_fd_ >= 0) ::kill(pid_, SIGKILL);
    drain(2000);
  }
  int status = 0;
  while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
  }
  status_ = status;
  forget(pid_);
  return WIFEXITED(status_) ? WEXITSTATUS(status_) : 128 + WTERMSIG(status_);
}

std::string Child::first_error_line() const {
  const auto end = err_.find('\n');
  return err_.substr(0, end);
}

}  // namespace afxdp::tool
