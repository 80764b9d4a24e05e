// Runs the real `afxdp` binary (AFXDP_TOOL_PATH) as a child of the test, in the test's private
// network namespace (children inherit it), and collects what it prints.
#pragma once

#include <string>
#include <sys/types.h>
#include <vector>

namespace afxdp::test {

struct ToolResult {
  int exit_code = -1;  // 128 + signal when killed
  std::string out;
  std::string err;
};

class ToolProcess {
 public:
  explicit ToolProcess(const std::vector<std::string>& args);
  ToolProcess(const ToolProcess&) = delete;
  ToolProcess& operator=(const ToolProcess&) = delete;
  ~ToolProcess();  // SIGKILL and reap if still running

  // Waits up to timeout_ms for one complete line on stdout; false on timeout or end of output.
  bool read_line(std::string& line, int timeout_ms);
  void signal(int number);
  // Waits up to timeout_ms for the exit (then SIGKILL), with everything printed.
  ToolResult wait(int timeout_ms);

 private:
  bool pump(int timeout_ms);  // reads what is there; false when both pipes are closed
  pid_t pid_ = -1;
  int out_fd_ = -1;
  int err_fd_ = -1;
  std::string out_, err_;
  std::size_t line_start_ = 0;
};

ToolResult run_tool(const std::vector<std::string>& args, int timeout_ms = 60000);

// The last line of `text` that contains `needle` ("" when none does).
std::string last_line_with(const std::string& text, const std::string& needle);
// The number after "key": in a JSON line; -1 when the key is missing.
double json_number(const std::string& line, const std::string& key);
// True when every line of `text` parses as JSON (python3's json module, independent of ours).
bool every_line_is_json(const std::string& text, std::string& why);

// No IPv6 chatter (router solicitations, MLD) on veth pairs made after this call, so that
// counts on them are ours alone. Affects only the test's own network namespace.
void quiet_ipv6();

}  // namespace afxdp::test
