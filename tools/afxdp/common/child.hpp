// Running the `afxdp` binary as a child process with its stdout and stderr collected: the demo
// (afxdp-demo) runs `afxdp gen` and `afxdp rxdrop` side by side and reads their --json output,
// and the tests run the built tool the same way.
//
// SIGINT and SIGTERM are blocked in the child from spawn to exec: a signal sent before the tool
// reaches its own code is held pending instead of killing a process that is not the tool yet.
// Every subcommand catches them and unblocks them (or collects them with sigtimedwait) first
// thing, so such a signal lands at the earliest moment the tool can act on it.
#pragma once

#include <chrono>
#include <sstream>
#include <string>
#include <sys/types.h>
#include <vector>

namespace afxdp::tool {

class Child {
 public:
  // What wait() does when its time is up: ask (SIGTERM, our subcommands print their summary and
  // exit 0), then insist; or kill at once, so that a hang shows as 128 + SIGKILL (tests).
  enum class OnTimeout { terminate, kill };
  // Whether SIGINT and SIGTERM are held from spawn to exec (above: for our own subcommands), or
  // open: a program that is not ours (testpmd) never unblocks them and would ignore them.
  enum class Signals { held, open };

  // Start `program args...` with stdout and stderr captured.
  // A non-empty `wrapper` (e.g. setpriv ...) runs it instead: wrapper... program args...,
  // the wrapper searched in PATH.
  explicit Child(const std::vector<std::string>& args, const std::string& program,
                 const std::vector<std::string>& wrapper = {},
                 OnTimeout on_timeout = OnTimeout::terminate, Signals signals = Signals::held);
  Child(const Child&) = delete;
  Child& operator=(const Child&) = delete;
  // A child still running is killed (SIGKILL) and reaped.
  ~Child();

  // Wait up to timeout_ms for it to exit (then see OnTimeout); returns the exit code (128 +
  // signal when killed). Reads all its output.
  int wait(int timeout_ms);
  // True once it has exited, waiting up to timeout_ms and reading its output meanwhile; unlike
  // wait(), a child still running after that is left running.
  bool exited(int timeout_ms);
  // Ask it to stop now (SIGTERM: our subcommands print their summary and exit 0).
  void terminate();
  void signal(int number);
  // Waits up to timeout_ms for one more complete line on stdout; false on timeout or end.
  bool read_line(std::string& line, int timeout_ms);

  [[nodiscard]] pid_t pid() const noexcept { return pid_; }
  // How long wait() took from its call to the exit.
  [[nodiscard]] std::chrono::milliseconds waited() const noexcept { return waited_; }

  [[nodiscard]] const std::string& out() const noexcept { return out_; }
  [[nodiscard]] const std::string& err() const noexcept { return err_; }
  // The first line of stderr, for one-line error messages.
  [[nodiscard]] std::string first_error_line() const;
  // Its last line with something on it, leading blanks stripped, from stderr or else stdout (""
  // when both are blank): a program that is not ours (xdpsock, testpmd) prints its reason last,
  // after libbpf's or EAL's notes.
  [[nodiscard]] std::string last_error_line() const;

 private:
  bool pump(int timeout_ms);  // reads what is there; false once both pipes are closed
  bool reap(bool block);      // true once the child's status is collected
  void drain(int timeout_ms);
  pid_t pid_ = -1;
  int out_fd_ = -1;
  int err_fd_ = -1;
  std::string out_, err_;
  std::size_t line_start_ = 0;
  int status_ = -1;
  OnTimeout on_timeout_;
  std::chrono::milliseconds waited_{0};
};

// Every child started by Child and still alive: killed by kill_all_children (signal handlers).
void kill_all_children() noexcept;

// The last line of a program's output for which `wanted(line)` holds ("" when none does).
template <class Wanted>
std::string last_line_where(const std::string& text, Wanted wanted) {
  std::istringstream lines(text);
  std::string line, found;
  while (std::getline(lines, line)) {
    if (wanted(line)) found = line;
  }
  return found;
}

}  // namespace afxdp::tool
