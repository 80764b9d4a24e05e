// What the tests of the `afxdp` tool share: the built binary (AFXDP_TOOL_PATH) started as a
// Child of the test, in the test's private network namespace (children inherit it), and small
// readers of what it prints (JSON through the tool's own reader, checked by json_check.hpp) and of
// the interfaces it runs on.
#pragma once

#include <common/child.hpp>
#include <lab.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace afxdp::test {

using afxdp::tool::Child;

// The tool with `args`, run through `wrapper` (e.g. setpriv ...) when given. A wait() that times
// out kills it (SIGKILL), so a hang shows as exit code 137 instead of a polite summary.
Child start_tool(const std::vector<std::string>& args,
                 const std::vector<std::string>& wrapper = {});

// The wrapper that runs a program (and all it starts) on a kernel refusing BPF_PROG_TEST_RUN,
// and so XDP live frames (tests/support/refuse_test_run.cpp): start_tool(args, refuse_test_run()).
// With `and_busy_poll` the kernel refuses busy polling too (SO_PREFER_BUSY_POLL: EPERM).
std::vector<std::string> refuse_test_run(bool and_busy_poll = false);

struct ToolResult {
  int exit_code = -1;  // 128 + signal when killed
  std::string out;
  std::string err;
};
// Wait up to timeout_ms for `tool` to exit, with everything it printed.
ToolResult wait_for(Child& tool, int timeout_ms);
// Start the tool (through `wrapper` when given) and wait up to timeout_ms for its exit, with
// everything it printed.
ToolResult run_tool(const std::vector<std::string>& args, int timeout_ms = 60000,
                    const std::vector<std::string>& wrapper = {});

// Waits (bounded, a failed assertion otherwise) for the tool's first statistics line: the
// benchmarks print it only once setup is done, so the tool is then running.
void wait_until_running(Child& tool);

// The lines of `text`, without their '\n' (a last line without one included).
std::vector<std::string> lines_of(const std::string& text);
// The last line of `text` that contains `needle` ("" when none does).
std::string last_line_with(const std::string& text, const std::string& needle);
// The number of "key" in a JSON line (the tool's own reader, common/json.hpp); -1 when the key
// is missing or no number.
double json_number(const std::string& line, const std::string& key);
// "key":true in a JSON line.
bool json_true(const std::string& line, const std::string& key);
// True when `text` has a line and every line is JSON (json_check.hpp's grammar, independent of
// the tool's writer); else false, with the first line that is not in `why`.
bool every_line_is_json(const std::string& text, std::string& why);

// /sys/class/net/IF/statistics/NAME (system_main remounted /sys for our namespace); throws
// std::runtime_error when it cannot be read.
std::uint64_t interface_counter(const std::string& interface, const std::string& name);
// Wait (bounded) until an XDP program is attached to `interface`; false if none came.
bool wait_attached(const std::string& interface, int timeout_ms = 10000);
// Wait (bounded) until interface_counter(interface, name) reaches `target`; the last value.
std::uint64_t wait_statistic(const std::string& interface, const std::string& name,
                             std::uint64_t target, int timeout_ms = 10000);

// An l2fwd on veth end `b` answers test frames sent from end `a` by `peer`: sends `count`
// lab::test_frame()s (frame i is size_of(i) bytes, 60 to the MTU; at most 32 outstanding, which
// a socket buffer holds) and reads them back until all returned or 5 s passed without one. A
// frame counts as returned when its addresses come back swapped and every other byte as sent;
// a frame returned twice fails the test.
struct Echo {
  std::uint32_t returned = 0;  // distinct frames back intact
  std::uint32_t wrong = 0;     // frames back with wrong addresses or contents
};
Echo echo_through_l2fwd(afxdp::lab::PacketSocket& peer, const std::string& a, const std::string& b,
                        std::uint32_t count, std::size_t (*size_of)(std::uint32_t));

// No IPv6 chatter (router solicitations, MLD, neighbour discovery) on links made after this
// call, so that counts on them are ours alone. Affects only the test's own network namespace.
void quiet_ipv6();

}  // namespace afxdp::test
