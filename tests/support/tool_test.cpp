#include "tool_test.hpp"

#include "common/json.hpp"
#include "json_check.hpp"

#include <afxdp/xsk/interface.hpp>
#include <afxdp/xsk/xsk_program.hpp>
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <set>
#include <stdexcept>
#include <thread>
#include <unistd.h>

namespace afxdp::test {

Child start_tool(const std::vector<std::string>& args, const std::vector<std::string>& wrapper) {
  return Child(args, AFXDP_TOOL_PATH, wrapper, Child::OnTimeout::kill);
}

ToolResult wait_for(Child& tool, int timeout_ms) {
  ToolResult result;
  result.exit_code = tool.wait(timeout_ms);
  result.out = tool.out();
  result.err = tool.err();
  return result;
}

std::vector<std::string> refuse_test_run(bool and_busy_poll) {
  if (and_busy_poll) return {AFXDP_REFUSE_TEST_RUN, "--busy-poll"};
  return {AFXDP_REFUSE_TEST_RUN};
}

ToolResult run_tool(const std::vector<std::string>& args, int timeout_ms,
                    const std::vector<std::string>& wrapper) {
  Child tool = start_tool(args, wrapper);
  return wait_for(tool, timeout_ms);
}

void wait_until_running(Child& tool) {
  std::string line;
  ASSERT_TRUE(tool.read_line(line, 20000)) << "no statistics line: " << tool.err();
  ASSERT_NE(line.find("\"socket\""), std::string::npos) << line;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    lines.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return lines;
}

std::string last_line_with(const std::string& text, const std::string& needle) {
  std::string found;
  for (const std::string& line : lines_of(text)) {
    if (line.find(needle) != std::string::npos) found = line;
  }
  return found;
}

double json_number(const std::string& line, const std::string& key) {
  double value = -1;
  return afxdp::tool::json_number(line, key, value) ? value : -1;
}

bool json_true(const std::string& line, const std::string& key) {
  return afxdp::tool::json_value(line, key) == "true";
}

bool every_line_is_json(const std::string& text, std::string& why) {
  const std::vector<std::string> lines = lines_of(text);
  if (lines.empty()) why = "no line";
  for (const std::string& line : lines) {
    if (!is_json(line)) {
      why = "not JSON: " + line;
      return false;
    }
  }
  return !lines.empty();
}

std::uint64_t interface_counter(const std::string& interface, const std::string& name) {
  std::ifstream in("/sys/class/net/" + interface + "/statistics/" + name);
  std::uint64_t value = 0;
  if (!(in >> value)) throw std::runtime_error("cannot read " + name + " of " + interface);
  return value;
}

bool wait_attached(const std::string& interface, int timeout_ms) {
  const unsigned ifindex = afxdp::interface_index(interface);
  for (int waited = 0; waited < timeout_ms; waited += 10) {
    if (afxdp::attached_xdp_program(ifindex) != 0) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return false;
}

std::uint64_t wait_statistic(const std::string& interface, const std::string& name,
                             std::uint64_t target, int timeout_ms) {
  std::uint64_t value = interface_counter(interface, name);
  for (int waited = 0; value < target && waited < timeout_ms; waited += 10) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    value = interface_counter(interface, name);
  }
  return value;
}

void quiet_ipv6() {
  for (const char* which : {"all", "default"}) {
    std::ofstream(std::string("/proc/sys/net/ipv6/conf/") + which + "/disable_ipv6") << "1\n";
  }
}

Echo echo_through_l2fwd(afxdp::lab::PacketSocket& peer, const std::string& a, const std::string& b,
                        std::uint32_t count, std::size_t (*size_of)(std::uint32_t)) {
  const auto mac_a = afxdp::mac_address(a);
  const auto mac_b = afxdp::mac_address(b);
  std::set<std::uint32_t> returned;
  Echo echo;
  std::uint32_t sent = 0;
  std::vector<std::uint8_t> frame;
  int idle = 0;
  while (returned.size() < count && idle < 50) {
    while (sent < count && sent - returned.size() < 32) {
      const auto out = afxdp::lab::test_frame(sent, size_of(sent), mac_b, mac_a);
      EXPECT_TRUE(peer.send(out.data(), out.size())) << "frame " << sent;
      ++sent;
    }
    const std::size_t n = peer.receive(frame, 100);
    if (n == 0) {
      ++idle;
      continue;
    }
    idle = 0;
    // l2fwd swapped the addresses in the frame it read: destination a, source b. Swap back and
    // every other byte must be as sent (a frame read or sent from the wrong offset is not).
    if (std::memcmp(frame.data(), mac_a.data(), 6) != 0 ||
        std::memcmp(frame.data() + 6, mac_b.data(), 6) != 0) {
      ++echo.wrong;
      continue;
    }
    std::swap_ranges(frame.begin(), frame.begin() + 6, frame.begin() + 6);
    std::uint32_t sequence = 0;
    if (afxdp::lab::check_test_frame(frame.data(), n, sequence)) {
      EXPECT_TRUE(returned.insert(sequence).second) << "frame " << sequence << " came back twice";
    } else {
      ++echo.wrong;
    }
  }
  echo.returned = static_cast<std::uint32_t>(returned.size());
  return echo;
}

}  // namespace afxdp::test
