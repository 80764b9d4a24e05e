// Link loss: the interface deleted under a running benchmark ends it with one line naming the
// interface and a non-zero exit; the link going down and up again only pauses it.
#include "system_test.hpp"
#include "tool_test.hpp"

#include <afxdp/xsk/interface.hpp>
#include <afxdp/xsk/xsk_program.hpp>
#include <lab.hpp>

#include <chrono>
#include <csignal>
#include <thread>

namespace {

using afxdp::test::Child;
using afxdp::test::json_number;
using afxdp::test::last_line_with;
using afxdp::test::start_tool;
using afxdp::test::wait_until_running;

void deleted_under(const char* benchmark) {
  afxdp::lab::VethPair veth(afxdp::lab::unique_prefix());
  const bool sends = std::string(benchmark) == "txpush";
  const std::string interface = sends ? veth.a() : veth.b();
  // -c: copy mode asked for, so that the only line on stderr is the one under test.
  std::vector<std::string> args{benchmark, "-i", interface, "-c", "--json", "-n", "0.1"};
  if (sends) args.insert(args.end(), {"--rate", "100000"});
  Child tool = start_tool(args);
  wait_until_running(tool);
  afxdp::lab::run({"ip", "link", "del", interface});
  // Generous bound: the tool looks every 20 ms; the time taken is printed for the record.
  const int code = tool.wait(10000);
  std::printf("%s exited %lld ms after its interface was deleted\n", benchmark,
              static_cast<long long>(tool.waited().count()));
  EXPECT_NE(code, 0);
  EXPECT_LT(code, 128) << "killed, not exited";
  // One line, naming the interface.
  ASSERT_FALSE(tool.err().empty());
  EXPECT_EQ(tool.err().find('\n'), tool.err().size() - 1) << tool.err();
  EXPECT_NE(tool.err().find(interface), std::string::npos) << tool.err();
  EXPECT_NE(tool.err().find("disappeared"), std::string::npos) << tool.err();
}

TEST(ReliabilityLink, RxdropEndsWhenItsInterfaceIsDeleted) {
  AFXDP_REQUIRE_SYSTEM();
  deleted_under("rxdrop");
}

TEST(ReliabilityLink, TxpushEndsWhenItsInterfaceIsDeleted) {
  AFXDP_REQUIRE_SYSTEM();
  deleted_under("txpush");
}

TEST(ReliabilityLink, L2fwdEndsWhenItsInterfaceIsDeleted) {
  AFXDP_REQUIRE_SYSTEM();
  deleted_under("l2fwd");
}

// Sends test frames from `from` until the tool's running rx count passes `above` (or 10 s).
double send_until_counted(Child& tool, afxdp::lab::PacketSocket& sender,
                          const std::vector<std::uint8_t>& frame, double above) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  double seen = -1;
  while (std::chrono::steady_clock::now() < deadline) {
    for (int i = 0; i < 100; ++i) sender.send(frame.data(), frame.size());
    std::string line;
    while (tool.read_line(line, 50)) {
      if (line.find("\"socket\"") != std::string::npos) seen = json_number(line, "rx_packets");
    }
    if (seen > above) return seen;
  }
  return seen;
}

TEST(ReliabilityLink, RxdropResumesAfterDownAndUp) {
  AFXDP_REQUIRE_SYSTEM();
  afxdp::test::quiet_ipv6();
  afxdp::lab::VethPair veth(afxdp::lab::unique_prefix());
  Child tool = start_tool({"rxdrop", "-i", veth.b(), "--json", "-n", "0.05"});
  wait_until_running(tool);
  afxdp::lab::PacketSocket sender(veth.a());
  const auto frame =
      afxdp::lab::test_frame(1, 64, afxdp::mac_address(veth.b()), afxdp::mac_address(veth.a()));
  const double before = send_until_counted(tool, sender, frame, 0);
  ASSERT_GT(before, 0) << tool.err();

  afxdp::lab::run({"ip", "link", "set", veth.b(), "down"});
  for (int i = 0; i < 1000; ++i) sender.send(frame.data(), frame.size());
  std::this_thread::sleep_for(std::chrono::milliseconds(300));  // several intervals while down
  afxdp::lab::run({"ip", "link", "set", veth.b(), "up"});
  std::string line;
  double while_down = before;
  while (tool.read_line(line, 50)) {
    if (line.find("\"socket\"") != std::string::npos) while_down = json_number(line, "rx_packets");
  }
  const double after = send_until_counted(tool, sender, frame, while_down);
  EXPECT_GT(after, while_down) << "no count after the link came back: " << tool.err();

  tool.signal(SIGTERM);
  EXPECT_EQ(tool.wait(10000), 0) << tool.err();
  EXPECT_NE(last_line_with(tool.out(), "\"summary\":true"), "");
  EXPECT_EQ(afxdp::attached_xdp_program(afxdp::interface_index(veth.b())), 0U);
}

// Issue 17 item 16: the check compared the interface's name with the index it bound to, so a
// rename (the index stays) was taken for a deletion and ended the run with exit 1.
TEST(ReliabilityLink, ARenamedInterfaceIsNotTakenForDeleted) {
  AFXDP_REQUIRE_SYSTEM();
  afxdp::lab::VethPair veth(afxdp::lab::unique_prefix());
  Child tool = start_tool({"rxdrop", "-i", veth.b(), "-c", "--json", "-n", "0.05"});
  wait_until_running(tool);
  const std::string renamed = veth.b() + "r";
  afxdp::lab::run({"ip", "link", "set", veth.b(), "name", renamed});
  EXPECT_FALSE(tool.exited(500)) << tool.err();
  tool.signal(SIGTERM);
  EXPECT_EQ(tool.wait(10000), 0) << tool.err();
  afxdp::lab::run({"ip", "link", "set", renamed, "name", veth.b()});  // for VethPair's delete
  EXPECT_EQ(afxdp::attached_xdp_program(afxdp::interface_index(veth.b())), 0U);
}

}  // namespace
