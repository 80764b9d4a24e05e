// --drop-privileges: after setup every thread of the tool has no capability at all, and the run
// still counts.
#include "system_test.hpp"
#include "tool_test.hpp"

#include <afxdp/xsk/interface.hpp>
#include <afxdp/xsk/xsk_program.hpp>
#include <lab.hpp>

#include <csignal>
#include <dirent.h>
#include <fstream>
#include <thread>
#include <unistd.h>

namespace {

using afxdp::test::Child;
using afxdp::test::json_number;
using afxdp::test::last_line_with;
using afxdp::test::start_tool;

// "CapEff" -> the hex mask of every thread of `pid`, one per thread.
std::vector<std::string> thread_capabilities(pid_t pid, const std::string& field) {
  std::vector<std::string> masks;
  const std::string tasks = "/proc/" + std::to_string(pid) + "/task";
  DIR* dir = ::opendir(tasks.c_str());
  if (dir == nullptr) return masks;
  while (const dirent* entry = ::readdir(dir)) {
    if (entry->d_name[0] == '.') continue;
    std::ifstream status(tasks + "/" + entry->d_name + "/status");
    std::string line;
    while (std::getline(status, line)) {
      if (line.rfind(field + ":", 0) == 0) masks.push_back(line.substr(field.size() + 1));
    }
  }
  ::closedir(dir);
  return masks;
}

bool all_zero(const std::string& mask) {
  return mask.find_first_not_of("0 \t") == std::string::npos;
}

double last_count(Child& tool, const char* key, int timeout_ms) {
  double count = -1;
  std::string line;
  while (tool.read_line(line, timeout_ms)) {
    if (line.find("\"socket\"") != std::string::npos) count = json_number(line, key);
    timeout_ms = 50;
  }
  return count;
}

// `wrapper` runs the tool as someone else (setpriv); `expected_id` is the uid and gid it must end
// up with; the bounding set is emptied only by a process that may (CAP_SETPCAP).
void runs_without_capabilities(const char* benchmark, std::vector<std::string> extra = {},
                               const std::vector<std::string>& wrapper = {},
                               unsigned expected_id = 65534, bool bounding_dropped = true) {
  afxdp::test::quiet_ipv6();
  afxdp::lab::VethPair veth(afxdp::lab::unique_prefix());
  const bool sends = std::string(benchmark) == "txpush";
  const std::string interface = sends ? veth.a() : veth.b();
  std::vector<std::string> args{benchmark, "-i", interface, "--drop-privileges",
                                "--json",  "-n", "0.05"};
  if (sends) args.insert(args.end(), {"--rate", "20000"});
  args.insert(args.end(), extra.begin(), extra.end());
  Child tool = start_tool(args, wrapper);
  std::string line;
  ASSERT_TRUE(tool.read_line(line, 20000)) << tool.err();

  // Checked while it runs: the main thread and every queue thread.
  const auto effective = thread_capabilities(tool.pid(), "CapEff");
  ASSERT_GE(effective.size(), 2U) << "expected the main thread and a queue thread";
  for (const auto& mask : effective) EXPECT_TRUE(all_zero(mask)) << "CapEff " << mask;
  for (const char* set : {"CapPrm", "CapInh", "CapAmb"}) {
    for (const auto& mask : thread_capabilities(tool.pid(), set)) {
      EXPECT_TRUE(all_zero(mask)) << set << " " << mask;
    }
  }
  // Root's identity is gone too (nobody, unless --user says otherwise), and nothing can be
  // regained through exec.
  const std::string id = std::to_string(expected_id);
  // Real, effective, saved and filesystem ids, as /proc/<pid>/status lists them.
  const std::string all_four = "\t" + id + "\t" + id + "\t" + id + "\t" + id;
  for (const char* field : {"Uid", "Gid"}) {
    for (const auto& ids : thread_capabilities(tool.pid(), field)) {
      EXPECT_EQ(ids, all_four) << field;
    }
  }
  for (const auto& groups : thread_capabilities(tool.pid(), "Groups")) {
    EXPECT_TRUE(all_zero(groups)) << "Groups " << groups;
  }
  for (const auto& flag : thread_capabilities(tool.pid(), "NoNewPrivs")) {
    EXPECT_EQ(flag, "\t1");
  }
  if (bounding_dropped) {
    for (const auto& mask : thread_capabilities(tool.pid(), "CapBnd")) {
      EXPECT_TRUE(all_zero(mask)) << "CapBnd " << mask;
    }
  }

  // And it still counts.
  const char* key = sends ? "tx_packets" : "rx_packets";
  const double before = last_count(tool, key, 1000);
  if (!sends) {
    afxdp::lab::PacketSocket sender(veth.a());
    const auto frame =
        afxdp::lab::test_frame(1, 64, afxdp::mac_address(veth.b()), afxdp::mac_address(veth.a()));
    for (int i = 0; i < 2000; ++i) sender.send(frame.data(), frame.size());
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  EXPECT_GT(last_count(tool, key, 1000), before) << tool.err();

  tool.signal(SIGTERM);
  EXPECT_EQ(tool.wait(10000), 0) << tool.err();
  EXPECT_NE(last_line_with(tool.out(), "\"summary\":true"), "");
  EXPECT_EQ(afxdp::attached_xdp_program(afxdp::interface_index(interface)), 0U);
}

TEST(ReliabilityPrivilege, RxdropCountsWithoutCapabilities) {
  AFXDP_REQUIRE_SYSTEM();
  runs_without_capabilities("rxdrop");
}

TEST(ReliabilityPrivilege, TxpushCountsWithoutCapabilities) {
  AFXDP_REQUIRE_SYSTEM();
  runs_without_capabilities("txpush");
}

TEST(ReliabilityPrivilege, L2fwdCountsWithoutCapabilities) {
  AFXDP_REQUIRE_SYSTEM();
  runs_without_capabilities("l2fwd");
}

TEST(ReliabilityPrivilege, UserAndGroupAreTheOnesAskedFor) {
  AFXDP_REQUIRE_SYSTEM();
  runs_without_capabilities("rxdrop", {"--user", "1234", "--group", "1234"}, {}, 1234);
}

// The least-privilege deployment: a non-root user given just the capabilities it needs (here
// ambient ones, as file capabilities would give). It cannot empty the bounding set (no
// CAP_SETPCAP), and --drop-privileges used to fail outright on that.
TEST(ReliabilityPrivilege, ACapabilityUserDropsEverything) {
  AFXDP_REQUIRE_SYSTEM();
  if (::access("/usr/bin/setpriv", X_OK) != 0) GTEST_SKIP() << "needs setpriv (util-linux)";
  const std::string caps = "+net_admin,+net_raw,+bpf,+sys_admin,+ipc_lock";
  runs_without_capabilities("rxdrop", {},
                            {"setpriv", "--reuid=4321", "--regid=4321", "--clear-groups",
                             "--inh-caps=" + caps, "--ambient-caps=" + caps},
                            4321, false);
}

// Every subcommand that needs privilege says which capability is missing, in one line of one shape
// ("afxdp: <subcommand> needs CAP_..."), before touching anything. An unprivileged user (nobody)
// has no capabilities after exec.
TEST(ReliabilityPrivilege, EverySubcommandNamesTheMissingCapability) {
  AFXDP_REQUIRE_SYSTEM();
  if (::access("/usr/bin/setpriv", X_OK) != 0) GTEST_SKIP() << "needs setpriv (util-linux)";
  afxdp::lab::VethPair veth(afxdp::lab::unique_prefix());
  const std::vector<std::vector<std::string>> commands = {
      {"rxdrop", "-i", veth.b()},
      {"txpush", "-i", veth.a()},
      // The capture is not read before the privilege is known (/dev/null is no capture).
      {"txpush", "-i", veth.a(), "--pcap", "/dev/null"},
      {"l2fwd", "-i", veth.b()},
      {"gen", "-i", veth.a(), "-C", "10"},
      {"rxq-info", "-i", veth.b()},
      {"dump", "-i", veth.b(), "-w", "/dev/null"},
      {"demo", "--quick"}};
  for (const auto& args : commands) {
    Child tool = start_tool(args, {"setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"});
    EXPECT_NE(tool.wait(30000), 0) << args[0];
    const std::string& err = tool.err();
    EXPECT_EQ(err.find('\n'), err.size() - 1) << args[0] << ": " << err;  // one line
    EXPECT_EQ(err.rfind("afxdp: " + args[0] + " needs CAP_NET_ADMIN", 0), 0U) << err;
  }
  EXPECT_EQ(afxdp::attached_xdp_program(afxdp::interface_index(veth.a())), 0U);
  EXPECT_EQ(afxdp::attached_xdp_program(afxdp::interface_index(veth.b())), 0U);
}

}  // namespace
