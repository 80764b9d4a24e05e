// Helpers shared by the gen and rxq-info tests: the tool binary as a child process, interface
// counters from the private namespace's own /sys, and a quiet link (no IPv6 chatter that would
// add frames of the kernel's own to exact counts).
#pragma once

#include <afxdp/interface.hpp>
#include <afxdp/xsk_program.hpp>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <fcntl.h>
#include <fstream>
#include <stdexcept>
#include <poll.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>
#include <string>
#include <thread>
#include <vector>

extern char** environ;

namespace afxdp::test {

inline std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::string line;
  for (const char c : text) {
    if (c == '\n') {
      lines.push_back(line);
      line.clear();
    } else {
      line += c;
    }
  }
  if (!line.empty()) lines.push_back(line);
  return lines;
}

// The tool binary built with the tests as a child process, stdout and stderr captured.
class Tool {
 public:
  // `prefix` runs the tool through another program (e.g. setpriv ...), searched in PATH.
  explicit Tool(const std::vector<std::string>& args, std::vector<std::string> prefix = {}) {
    std::vector<std::string> argv = std::move(prefix);
    argv.push_back(AFXDP_CLI_PATH);
    argv.insert(argv.end(), args.begin(), args.end());
    std::vector<char*> raw;
    for (auto& arg : argv) raw.push_back(arg.data());
    raw.push_back(nullptr);
    int out[2], err[2];
    if (::pipe2(out, O_CLOEXEC) != 0 || ::pipe2(err, O_CLOEXEC) != 0) throw std::runtime_error("pipe2");
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, out[1], STDOUT_FILENO);
    posix_spawn_file_actions_adddup2(&actions, err[1], STDERR_FILENO);
    const int rc = ::posix_spawnp(&pid_, raw[0], &actions, nullptr, raw.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    ::close(out[1]);
    ::close(err[1]);
    out_fd_ = out[0];
    err_fd_ = err[0];
    if (rc != 0) throw std::runtime_error("posix_spawn " + argv[0]);
  }
  Tool(const Tool&) = delete;
  Tool& operator=(const Tool&) = delete;
  ~Tool() {
    if (status_ < 0) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
    }
    ::close(out_fd_);
    ::close(err_fd_);
  }

  // SIGTERM: the subcommands print their summary and exit 0.
  void terminate() { ::kill(pid_, SIGTERM); }

  // Read its output until it exits (SIGKILL after timeout_ms); returns the exit code, or
  // 128 + the signal that ended it.
  int wait(int timeout_ms) {
    const auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
    bool open_out = true, open_err = true;
    while (open_out || open_err) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          end - std::chrono::steady_clock::now());
      if (left.count() <= 0) {
        ::kill(pid_, SIGKILL);
        break;
      }
      pollfd fds[2] = {{open_out ? out_fd_ : -1, POLLIN, 0}, {open_err ? err_fd_ : -1, POLLIN, 0}};
      if (::poll(fds, 2, static_cast<int>(left.count())) < 0 && errno != EINTR) break;
      open_out = open_out && drain(fds[0], out_fd_, out_);
      open_err = open_err && drain(fds[1], err_fd_, err_);
    }
    int status = 0;
    ::waitpid(pid_, &status, 0);
    status_ = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    return status_;
  }

  const std::string& out() const noexcept { return out_; }
  const std::string& err() const noexcept { return err_; }

 private:
  // false once the pipe is closed.
  static bool drain(const pollfd& entry, int fd, std::string& into) {
    if ((entry.revents & (POLLIN | POLLHUP | POLLERR)) == 0) return true;
    char buffer[4096];
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n <= 0) return false;
    into.append(buffer, static_cast<std::size_t>(n));
    return true;
  }

  pid_t pid_ = -1;
  int out_fd_ = -1;
  int err_fd_ = -1;
  int status_ = -1;
  std::string out_, err_;
};

inline Tool run_tool(const std::vector<std::string>& args) { return Tool(args); }

// /sys/class/net/IF/statistics/NAME (system_main remounted /sys for our namespace).
inline std::uint64_t statistic(const std::string& interface, const std::string& name) {
  std::ifstream in("/sys/class/net/" + interface + "/statistics/" + name);
  std::uint64_t value = 0;
  in >> value;
  return value;
}

// Turn IPv6 off for links created from now on in this (private) namespace, so the kernel sends
// no neighbour or multicast discovery frames of its own into counts we check exactly.
inline void quiet_ipv6() {
  for (const char* path : {"/proc/sys/net/ipv6/conf/default/disable_ipv6",
                           "/proc/sys/net/ipv6/conf/all/disable_ipv6"}) {
    std::ofstream out(path);
    out << "1\n";
  }
}

// Wait (bounded) until an XDP program is attached to `interface`; false if none came.
inline bool wait_attached(const std::string& interface, int timeout_ms = 10000) {
  const unsigned ifindex = afxdp::interface_index(interface);
  for (int waited = 0; waited < timeout_ms; waited += 10) {
    if (afxdp::attached_xdp_program(ifindex) != 0) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return false;
}

// Wait (bounded) until `statistic(interface, name)` reaches `target`; returns the last value.
inline std::uint64_t wait_statistic(const std::string& interface, const std::string& name,
                                    std::uint64_t target, int timeout_ms = 10000) {
  std::uint64_t value = statistic(interface, name);
  for (int waited = 0; value < target && waited < timeout_ms; waited += 10) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    value = statistic(interface, name);
  }
  return value;
}

}  // namespace afxdp::test
