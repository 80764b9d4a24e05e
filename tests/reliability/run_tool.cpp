#include "run_tool.hpp"

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <fcntl.h>
#include <fstream>
#include <poll.h>
#include <stdexcept>
#include <sys/wait.h>
#include <unistd.h>

namespace afxdp::reliability {

RunningTool::RunningTool(const std::vector<std::string>& args,
                         const std::vector<std::string>& wrapper) {
  int out[2], err[2];
  if (::pipe2(out, O_CLOEXEC) != 0 || ::pipe2(err, O_CLOEXEC) != 0) {
    throw std::runtime_error("pipe2 failed");
  }
  std::vector<std::string> text = wrapper;
  text.push_back(AFXDP_TOOL_PATH);
  text.insert(text.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : text) argv.push_back(a.data());
  argv.push_back(nullptr);
  sigset_t stop, previous;
  sigemptyset(&stop);
  sigaddset(&stop, SIGINT);
  sigaddset(&stop, SIGTERM);
  ::pthread_sigmask(SIG_BLOCK, &stop, &previous);
  pid_ = ::fork();
  if (pid_ == 0) {
    ::dup2(out[1], STDOUT_FILENO);
    ::dup2(err[1], STDERR_FILENO);
    ::execvp(argv[0], argv.data());
    ::_exit(127);
  }
  ::pthread_sigmask(SIG_SETMASK, &previous, nullptr);
  if (pid_ < 0) throw std::runtime_error("fork failed");
  ::close(out[1]);
  ::close(err[1]);
  out_fd_ = out[0];
  err_fd_ = err[0];
}

RunningTool::~RunningTool() {
  if (pid_ > 0) {
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
  }
  if (out_fd_ >= 0) ::close(out_fd_);
  if (err_fd_ >= 0) ::close(err_fd_);
}

void RunningTool::signal(int number) {
  if (pid_ > 0) ::kill(pid_, number);
}

bool RunningTool::pump(int timeout_ms) {
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

bool RunningTool::read_line(std::string& line, int timeout_ms) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  for (;;) {
    const std::size_t end = out_.find('\n', line_start_);
    if (end != std::string::npos) {
      line = out_.substr(line_start_, end - line_start_);
      line_start_ = end + 1;
      return true;
    }
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0 || out_fd_ < 0) return false;
    pump(static_cast<int>(left.count()));
  }
}

int RunningTool::wait(int timeout_ms) {
  const auto start = std::chrono::steady_clock::now();
  const auto deadline = start + std::chrono::milliseconds(timeout_ms);
  int status = 0;
  for (;;) {
    const pid_t done = ::waitpid(pid_, &status, WNOHANG);
    if (done == pid_) break;
    if (std::chrono::steady_clock::now() >= deadline) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, &status, 0);
      break;
    }
    pump(10);
  }
  waited_ = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() -
                                                                  start);
  pid_ = -1;
  while (pump(1000)) {
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

std::string last_line_with(const std::string& text, const std::string& needle) {
  std::string found;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    const std::string line = text.substr(start, end - start);
    if (line.find(needle) != std::string::npos) found = line;
    start = end + 1;
  }
  return found;
}

double json_number(const std::string& line, const std::string& key) {
  const std::string quoted = "\"" + key + "\":";
  const std::size_t at = line.find(quoted);
  if (at == std::string::npos) return -1;
  return std::strtod(line.c_str() + at + quoted.size(), nullptr);
}

bool json_true(const std::string& line, const std::string& key) {
  return line.find("\"" + key + "\":true") != std::string::npos;
}

std::uint64_t interface_counter(const std::string& interface, const std::string& name) {
  std::ifstream in("/sys/class/net/" + interface + "/statistics/" + name);
  std::uint64_t value = 0;
  if (!(in >> value)) throw std::runtime_error("cannot read " + name + " of " + interface);
  return value;
}

void quiet_ipv6() {
  for (const char* which : {"all", "default"}) {
    std::ofstream(std::string("/proc/sys/net/ipv6/conf/") + which + "/disable_ipv6") << "1\n";
  }
}

}  // namespace afxdp::reliability
