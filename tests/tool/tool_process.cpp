#include "tool_process.hpp"

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <fcntl.h>
#include <fstream>
#include <poll.h>
#include <stdexcept>
#include <sys/wait.h>
#include <unistd.h>

namespace afxdp::test {

ToolProcess::ToolProcess(const std::vector<std::string>& args) {
  int out[2], err[2];
  if (::pipe2(out, O_CLOEXEC) != 0 || ::pipe2(err, O_CLOEXEC) != 0) {
    throw std::runtime_error("pipe2 failed");
  }
  std::vector<std::string> argv_text{AFXDP_TOOL_PATH};
  argv_text.insert(argv_text.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : argv_text) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_ = ::fork();
  if (pid_ < 0) throw std::runtime_error("fork failed");
  if (pid_ == 0) {
    ::dup2(out[1], STDOUT_FILENO);
    ::dup2(err[1], STDERR_FILENO);
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  ::close(out[1]);
  ::close(err[1]);
  out_fd_ = out[0];
  err_fd_ = err[0];
}

ToolProcess::~ToolProcess() {
  if (pid_ > 0) {
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
  }
  if (out_fd_ >= 0) ::close(out_fd_);
  if (err_fd_ >= 0) ::close(err_fd_);
}

bool ToolProcess::pump(int timeout_ms) {
  pollfd fds[2] = {{out_fd_, POLLIN, 0}, {err_fd_, POLLIN, 0}};
  if (out_fd_ < 0 && err_fd_ < 0) return false;
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

bool ToolProcess::read_line(std::string& line, int timeout_ms) {
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

void ToolProcess::signal(int number) {
  if (pid_ > 0) ::kill(pid_, number);
}

ToolResult ToolProcess::wait(int timeout_ms) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  while (std::chrono::steady_clock::now() < deadline && pump(50)) {
  }
  if (out_fd_ >= 0 || err_fd_ >= 0) ::kill(pid_, SIGKILL);  // timed out
  while (pump(50)) {
  }
  ToolResult result;
  int status = 0;
  ::waitpid(pid_, &status, 0);
  pid_ = -1;
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  result.out = out_;
  result.err = err_;
  return result;
}

ToolResult run_tool(const std::vector<std::string>& args, int timeout_ms) {
  ToolProcess process(args);
  return process.wait(timeout_ms);
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

bool every_line_is_json(const std::string& text, std::string& why) {
  char path[] = "/tmp/afxdp_json_XXXXXX";
  const int fd = ::mkstemp(path);
  if (fd < 0) {
    why = "mkstemp failed";
    return false;
  }
  const bool written = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  ::close(fd);
  const std::string command =
      std::string("python3 -c 'import json,sys\nn=0\nfor l in open(sys.argv[1]):\n"
                  "    json.loads(l); n+=1\nassert n>0' ") + path + " 2>&1";
  FILE* pipe = ::popen(command.c_str(), "r");
  char buffer[512];
  while (pipe && std::fgets(buffer, sizeof buffer, pipe)) why += buffer;
  const int status = pipe ? ::pclose(pipe) : -1;
  ::unlink(path);
  return written && status == 0;
}

void quiet_ipv6() {
  for (const char* which : {"all", "default"}) {
    std::ofstream(std::string("/proc/sys/net/ipv6/conf/") + which + "/disable_ipv6") << "1\n";
  }
}

}  // namespace afxdp::test
