// Running this same binary as a child process (the demo runs `afxdp gen` and `afxdp rxdrop` side
// by side and reads their --json output).
#pragma once

#include <string>
#include <sys/types.h>
#include <vector>

namespace afxdp::tool {

class Child {
 public:
  // Start `program args...` (by default this same binary) with stdout and stderr captured.
  explicit Child(const std::vector<std::string>& args,
                 const std::string& program = "/proc/self/exe");
  Child(const Child&) = delete;
  Child& operator=(const Child&) = delete;
  // A child still running is killed (SIGKILL) and reaped.
  ~Child();

  // Wait up to timeout_ms for it to exit (SIGTERM, then SIGKILL, after that); returns the exit
  // code (128 + signal when killed). Reads all its output.
  int wait(int timeout_ms);
  // Ask it to stop now (SIGTERM: our subcommands print their summary and exit 0).
  void terminate();

  const std::string& out() const noexcept { return out_; }
  const std::string& err() const noexcept { return err_; }
  // The first line of stderr, for one-line error messages.
  std::string first_error_line() const;

 private:
  void drain(int timeout_ms);
  pid_t pid_ = -1;
  int out_fd_ = -1;
  int err_fd_ = -1;
  std::string out_, err_;
  int status_ = -1;
};

// Every child started by Child and still alive: killed by kill_all_children (signal handlers).
void kill_all_children() noexcept;

}  // namespace afxdp::tool
