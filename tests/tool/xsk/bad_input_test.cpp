// Bad input to the real binary: each case gives exactly one line on stderr, a non-zero exit,
// and leaves no XDP program attached.
#include "system_test.hpp"
#include "tool_test.hpp"

#include <afxdp/xsk/interface.hpp>
#include <afxdp/xsk/xsk_program.hpp>
#include <lab.hpp>

#include <unistd.h>

#include <algorithm>
#include <cstdio>

namespace {

struct BadRun {
  std::vector<std::string> args;  // "A" and "B" stand for the veth pair's ends
  std::vector<std::string> says;  // parts of the one line on stderr
  int exit_code = 0;              // 0: any failure; 2: a command line refused
};

void expect_one_line_failure(const std::vector<std::string>& args,
                             const std::vector<std::string>& says, const std::string& label,
                             int exit_code = 0) {
  const afxdp::test::ToolResult r = afxdp::test::run_tool(args, 30000);
  EXPECT_NE(r.exit_code, 0) << label;
  if (exit_code != 0) {
    EXPECT_EQ(r.exit_code, exit_code) << label << ": " << r.err;
  }
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << label << ": " << r.err;
  EXPECT_EQ(r.err.back(), '\n') << label;
  for (const auto& part : says)
    EXPECT_NE(r.err.find(part), std::string::npos) << label << ": " << r.err;
  EXPECT_EQ(r.out, "") << label;
}

TEST(ToolBadInput, OneLineNonZeroExitNothingAttached) {
  AFXDP_REQUIRE_SYSTEM();
  afxdp::lab::VethPair veth(afxdp::lab::unique_prefix());
  const std::vector<BadRun> runs = {
      {{"rxdrop", "-i", "nosuchif0", "-d", "1"}, {"nosuchif0", "does not exist"}},
      {{"rxdrop", "-i", "B", "-q", "3", "-d", "1"}, {"queue", "B", "1 rx queue"}},
      {{"rxdrop", "-i", "B", "-q", "0-1", "-d", "1"}, {"queue 1 does not exist"}},
      {{"rxdrop", "-i", "B", "-z", "-d", "1"}, {"zero-copy", "B", "-c"}},
      {{"l2fwd", "-i", "B", "-z", "-d", "1"}, {"zero-copy", "B", "-c"}},
      {{"txpush", "-i", "A", "-s", "5000", "-d", "1"}, {"larger than a frame"}},
      {{"rxdrop", "-i", "B", "-b", "4096", "-d", "1"}, {"larger than a ring"}},
      {{"rxdrop", "-i", "B", "-f", "3000", "-d", "1"}, {"power of two"}},
      {{"l2fwd", "-i", "B", "--ring-size", "1000", "-d", "1"}, {"power of two"}},
      {{"txpush", "-i", "A", "-G", "11:22:33", "-d", "1"}, {"MAC"}},
      {{"txpush", "-i", "A", "-H", "11:22:33:44:55:zz", "-d", "1"}, {"MAC"}},
      {{"txpush", "-i", "A", "--dst-ip", "300.1.2.3", "-d", "1"}, {"IPv4"}},
      {{"rxdrop", "-i", "B", "--bogus", "-d", "1"}, {"--bogus"}},
      {{"rxdrop", "-i", "B", "--cpu", "4000", "-d", "1"}, {"CPU 4000"}},
      // Ids at the top of their range, and library rules: the tool's flag, exit 2.
      {{"dump", "-i", "B", "-q", "4294967295", "-w", "-"}, {"-q", "4294967295"}, 2},
      {{"latency", "-i", "B", "-q", "4294967295", "-C", "1"}, {"-q", "4294967295"}, 2},
      {{"rxdrop", "-i", "B", "-q", "4095", "-d", "1"}, {"-q", "4095"}, 2},
      {{"rxdrop", "-i", "B", "-B", "-b", "65536", "--ring-size", "65536", "--frames", "65536", "-d",
        "1"},
       {"-b", "65536", "65535"},
       2},
      {{"rxdrop", "-i", "B", "-f", "3000", "-d", "1"}, {"-f", "3000"}, 2},
      // -s above what an IPv4 total length holds, and above the MTU (1500 on the pair).
      {{"txpush", "-i", "A", "-F", "-s", "70000", "-d", "1"}, {"-s", "70000", "65535"}, 2},
      {{"txpush", "-i", "A", "-s", "4000", "-d", "1"}, {"-s", "4000", "MTU 1500"}},
      {{"rxdrop", "-i", "B", "--user", "4294967295", "-d", "1"}, {"--user", "4294967295"}},
      {{"rxdrop", "-i", "B", "--group", "4294967295", "-d", "1"}, {"--group", "4294967295"}},
      {{"l2fwd", "-i", "B", "--ring-size", "1000", "-d", "1"}, {"--ring-size", "1000"}, 2},
      // Issue 41 item 13: `-w ''` was a failure running (exit 1), not a command line refused.
      {{"dump", "-i", "B", "-w", ""}, {"-w", "empty path"}, 2},
      // ... and an empty interface name was shown as nothing: "interface  does not exist".
      {{"rxdrop", "-i", "", "-d", "1"}, {"interface '' does not exist"}},
  };
  const unsigned b_index = afxdp::interface_index(veth.b());
  for (const BadRun& run : runs) {
    std::vector<std::string> args = run.args;
    std::vector<std::string> says = run.says;
    for (auto* list : {&args, &says}) {
      for (auto& word : *list) {
        for (const auto& [from, to] : {std::pair{"A", veth.a()}, std::pair{"B", veth.b()}}) {
          if (word == from) word = to;
          if (const auto at = word.find(std::string(" ") + from); at != std::string::npos) {
            word.replace(at + 1, 1, to);
          }
        }
      }
    }
    std::string label;
    for (const auto& a : args) label += a + " ";
    expect_one_line_failure(args, says, label, run.exit_code);
    EXPECT_EQ(afxdp::attached_xdp_program(b_index), 0U) << label;
    EXPECT_EQ(afxdp::attached_xdp_program(afxdp::interface_index(veth.a())), 0U) << label;
  }
}

TEST(ToolBadInput, AnotherProgramIsNotReplacedWithoutForce) {
  AFXDP_REQUIRE_SYSTEM();
  afxdp::lab::VethPair veth(afxdp::lab::unique_prefix());
  const unsigned b_index = afxdp::interface_index(veth.b());
  {
    afxdp::XskProgram other({.interface = veth.b(), .mode = afxdp::AttachMode::native});
    for (const char* benchmark : {"rxdrop", "l2fwd"}) {
      expect_one_line_failure({benchmark, "-i", veth.b(), "-d", "1"},
                              {"already attached", veth.b(), "--force"}, benchmark);
      EXPECT_EQ(afxdp::attached_xdp_program(b_index), other.program_id());
    }
  }
  EXPECT_EQ(afxdp::attached_xdp_program(b_index), 0U);
}

// A subcommand without --force names no library field in its refusal (issue 41: the set-up
// failure said "XdpLinkConfig::replace, XskProgramConfig::replace, PortConfig::replace_program").
TEST(ToolBadInput, AnotherProgramIsRefusedInTheToolsWords) {
  AFXDP_REQUIRE_SYSTEM();
  afxdp::lab::VethPair veth(afxdp::lab::unique_prefix());
  const unsigned b_index = afxdp::interface_index(veth.b());
  afxdp::XskProgram other({.interface = veth.b(), .mode = afxdp::AttachMode::native});
  const std::string capture = "/tmp/afxdp-conflict-" + std::to_string(::getpid()) + ".pcap";
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"rxq-info", "-i", veth.b(), "-d", "1"},
        std::vector<std::string>{"dump", "-i", veth.b(), "-w", capture, "-C", "1"}}) {
    expect_one_line_failure(args, {"already attached", veth.b(), "detach it first"}, args[0]);
    const auto result = afxdp::test::run_tool(args);
    EXPECT_EQ(result.err.find("::"), std::string::npos) << result.err;
    EXPECT_EQ(afxdp::attached_xdp_program(b_index), other.program_id());
  }
  std::remove(capture.c_str());
}

}  // namespace
