// The real `afxdp` binary (AFXDP_TOOL_PATH) as a child of a reliability test, in the test's
// private network namespace, with what it prints collected.
//
// SIGINT and SIGTERM are blocked in the child from fork to exec: a signal the test sends before
// the tool reaches its own code is held pending instead of killing a process that is not yet the
// tool (between fork and exec it is still a copy of the test). The tool installs its handlers and
// unblocks them first thing, so such a signal lands at the earliest moment the tool can act on it.
#pragma once

#include <chrono>
#include <string>
#include <sys/types.h>
#include <vector>

namespace afxdp::reliability {

class RunningTool {
 public:
  // `wrapper` (e.g. setpriv ...) runs the tool: wrapper... AFXDP_TOOL_PATH args...
  explicit RunningTool(const std::vector<std::string>& args,
                       const std::vector<std::string>& wrapper = {});
  RunningTool(const RunningTool&) = delete;
  RunningTool& operator=(const RunningTool&) = delete;
  ~RunningTool();  // SIGKILL and reap if still running

  pid_t pid() const noexcept { return pid_; }
  void signal(int number);
  // Waits up to timeout_ms for one more complete line on stdout; false on timeout or end.
  bool read_line(std::string& line, int timeout_ms);
  // Waits up to timeout_ms for the exit (then SIGKILL); the exit code, 128 + signal if killed.
  int wait(int timeout_ms);
  bool exited() const noexcept { return pid_ < 0; }
  // How long wait() took from its call to the exit.
  std::chrono::milliseconds waited() const noexcept { return waited_; }

  const std::string& out() const noexcept { return out_; }
  const std::string& err() const noexcept { return err_; }

 private:
  bool pump(int timeout_ms);
  pid_t pid_ = -1;
  int out_fd_ = -1;
  int err_fd_ = -1;
  std::string out_, err_;
  std::size_t line_start_ = 0;
  std::chrono::milliseconds waited_{0};
};

// The last line of `text` containing `needle`, "" when none does.
std::string last_line_with(const std::string& text, const std::string& needle);
// The number after "key": in a JSON line; -1 when the key is missing.
double json_number(const std::string& line, const std::string& key);
// "key":true in a JSON line.
bool json_true(const std::string& line, const std::string& key);
// /sys/class/net/<interface>/statistics/<name>.
std::uint64_t interface_counter(const std::string& interface, const std::string& name);
// No IPv6 chatter on interfaces made after this call (this namespace only).
void quiet_ipv6();

}  // namespace afxdp::reliability
