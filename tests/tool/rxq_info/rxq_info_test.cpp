// `afxdp rxq-info` on real veth pairs: the tool binary runs as a child with --json while this
// test sends a known count of frames from a packet socket on the peer, then stops it (SIGTERM)
// and reads the final summary's counts.
#include "json_check.hpp"
#include "system_test.hpp"
#include "tool_test.hpp"

#include <afxdp/run.hpp>
#include <afxdp/xsk/interface.hpp>
#include <afxdp/xsk/xsk_program.hpp>
#include <lab.hpp>

#include <algorithm>
#include <atomic>
#include <fstream>
#include <regex>
#include <set>
#include <sys/socket.h>
#include <thread>

namespace {

using afxdp::test::interface_counter;
using afxdp::test::start_tool;

struct Totals {
  std::uint64_t total = 0;      // summary "total"
  std::uint64_t cpu_sum = 0;    // the per-CPU entries added up
  std::uint64_t queue_sum = 0;  // the per-queue entries added up
  std::size_t queues = 0;       // queues that saw frames
};

std::string summary_line(const std::string& out) {
  for (const auto& line : afxdp::test::lines_of(out)) {
    if (line.find("\"summary\":true") != std::string::npos) return line;
  }
  return {};
}

std::uint64_t sum_matches(const std::string& text, const std::regex& pattern, std::size_t group,
                          std::size_t* count = nullptr) {
  std::uint64_t sum = 0;
  for (auto it = std::sregex_iterator(text.begin(), text.end(), pattern);
       it != std::sregex_iterator(); ++it) {
    sum += std::stoull((*it)[group].str());
    if (count != nullptr) ++*count;
  }
  return sum;
}

Totals parse_summary(const std::string& line) {
  Totals t;
  std::smatch m;
  if (std::regex_search(line, m, std::regex("\"total\":\\{\"processed\":(\\d+)"))) {
    t.total = std::stoull(m[1].str());
  }
  const std::size_t total_at = line.find("\"total\"");
  const std::size_t queues_at = line.find("\"queues\"");
  if (total_at == std::string::npos || queues_at == std::string::npos) return t;
  t.cpu_sum =
      sum_matches(line.substr(0, total_at), std::regex("\\{\"cpu\":\\d+,\"processed\":(\\d+)"), 1);
  t.queue_sum = sum_matches(line.substr(queues_at),
                            std::regex("\\{\"queue\":\\d+,\"overflow\":\\w+,\"processed\":(\\d+)"),
                            1, &t.queues);
  return t;
}

// Send `count` test frames, paced (a pause every 16) so that no queue on the way overflows.
void send_frames(afxdp::lab::PacketSocket& socket, std::uint32_t count,
                 const afxdp::MacAddress& dst, const afxdp::MacAddress& src) {
  for (std::uint32_t i = 0; i < count; ++i) {
    const auto frame = afxdp::lab::test_frame(i, 64, dst, src);
    while (!socket.send(frame.data(), frame.size())) {
      std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
    if (i % 16 == 15) std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
}

// Capture test frames on `socket` in a thread until `count` arrived or a second passes quietly.
class Capture {
 public:
  Capture(afxdp::lab::PacketSocket& socket, std::uint32_t count)
      : thread_([this, &socket, count] {
          // A deep socket buffer, so that what we count is what arrived, not what fitted.
          const int bytes = 16 << 20;
          ::setsockopt(socket.fd(), SOL_SOCKET, SO_RCVBUFFORCE, &bytes, sizeof bytes);
          std::vector<std::uint8_t> buffer;
          while (sequences_.size() < count) {
            const std::size_t n = socket.receive(buffer, 1000);
            if (n == 0) {
              if (sent_done_) break;
              continue;
            }
            std::uint32_t sequence = 0;
            if (!afxdp::lab::check_test_frame(buffer.data(), n, sequence)) continue;
            sequences_.insert(sequence);
            std::copy_n(buffer.begin(), 6, last_dst_.begin());
            std::copy_n(buffer.begin() + 6, 6, last_src_.begin());
          }
        }) {}
  ~Capture() {
    if (thread_.joinable()) thread_.join();
  }
  // After sending: wait for the rest, then the results are stable.
  void finish() {
    sent_done_ = true;
    thread_.join();
  }
  [[nodiscard]] std::size_t received() const { return sequences_.size(); }
  [[nodiscard]] const afxdp::MacAddress& last_dst() const { return last_dst_; }
  [[nodiscard]] const afxdp::MacAddress& last_src() const { return last_src_; }

 private:
  std::set<std::uint32_t> sequences_;
  afxdp::MacAddress last_dst_{}, last_src_{};
  std::atomic<bool> sent_done_{false};
  std::thread thread_;
};

// rxq-info on `interface` as a child: started, attached, then stopped with SIGTERM once `count`
// frames went through its XDP program (veth counts rx_packets after the program ran).
class RxqInfo {
 public:
  explicit RxqInfo(const std::string& interface, const std::vector<std::string>& extra = {})
      : interface_(interface), tool_(start_tool(make_args(interface, extra))) {
    before_ = interface_counter(interface, "rx_packets");
  }
  bool attached() { return afxdp::test::wait_attached(interface_); }
  // Stop once `count` frames were processed (bounded wait); returns the exit code.
  int stop_after(std::uint64_t count) {
    afxdp::test::wait_statistic(interface_, "rx_packets", before_ + count);
    tool_.terminate();
    return tool_.wait(30000);
  }
  [[nodiscard]] const afxdp::test::Child& tool() const { return tool_; }
  [[nodiscard]] Totals totals() const { return parse_summary(summary_line(tool_.out())); }

 private:
  static std::vector<std::string> make_args(const std::string& interface,
                                            const std::vector<std::string>& extra) {
    std::vector<std::string> args{"rxq-info", "-i", interface, "--json", "-s", "0.2"};
    args.insert(args.end(), extra.begin(), extra.end());
    return args;
  }
  std::string interface_;
  afxdp::test::Child tool_;
  std::uint64_t before_ = 0;
};

afxdp::XskProgram pass_program(const std::string& interface) {
  return afxdp::XskProgram({.interface = interface,
                            .mode = afxdp::AttachMode::native,
                            .fallback = afxdp::XdpAction::pass});
}

constexpr std::uint32_t frames = 2000;

TEST(RxqInfo, DropCountsEveryFramePerCpuAndPerQueue) {
  AFXDP_REQUIRE_SYSTEM();
  afxdp::test::quiet_ipv6();
  afxdp::lab::VethPair veth(afxdp::lab::unique_prefix());
  RxqInfo rxq(veth.b(), {"-a", "drop"});
  ASSERT_TRUE(rxq.attached()) << rxq.tool().err();
  afxdp::lab::PacketSocket sender(veth.a());
  send_frames(sender, frames, afxdp::mac_address(veth.b()), afxdp::mac_address(veth.a()));
  ASSERT_EQ(rxq.stop_after(frames), 0) << rxq.tool().err();
  const Totals t = rxq.totals();
  EXPECT_EQ(t.total, frames) << rxq.tool().out();
  EXPECT_EQ(t.cpu_sum, frames);
  EXPECT_EQ(t.queue_sum, frames);
  // Every line is JSON: the interval objects and the summary.
  const auto lines = afxdp::test::lines_of(rxq.tool().out());
  ASSERT_GE(lines.size(), 1U);
  for (const auto& line : lines) EXPECT_TRUE(afxdp::test::is_json(line)) << line;
  // Nothing stays attached once the tool is gone.
  EXPECT_EQ(afxdp::attached_xdp_program(afxdp::interface_index(veth.b())), 0U);
}

TEST(RxqInfo, TxSendsEveryFrameBackWithMacsSwapped) {
  AFXDP_REQUIRE_SYSTEM();
  afxdp::test::quiet_ipv6();
  afxdp::lab::VethPair veth(afxdp::lab::unique_prefix());
  // The sender's end takes XDP_TX'd frames only with a native XDP program of its own (veth).
  const auto program = pass_program(veth.a());
  RxqInfo rxq(veth.b(), {"-a", "TX"});
  ASSERT_TRUE(rxq.attached()) << rxq.tool().err();
  afxdp::lab::PacketSocket peer(veth.a());
  const auto mac_a = afxdp::mac_address(veth.a());
  const auto mac_b = afxdp::mac_address(veth.b());
  Capture capture(peer, frames);
  send_frames(peer, frames, mac_b, mac_a);
  capture.finish();
  ASSERT_EQ(rxq.stop_after(frames), 0) << rxq.tool().err();
  EXPECT_EQ(capture.received(), frames);
  EXPECT_EQ(capture.last_dst(), mac_a);
  EXPECT_EQ(capture.last_src(), mac_b);
  EXPECT_EQ(rxq.totals().total, frames);
}

TEST(RxqInfo, PassHandsFramesToTheStack) {
  AFXDP_REQUIRE_SYSTEM();
  afxdp::test::quiet_ipv6();
  afxdp::lab::VethPair veth(afxdp::lab::unique_prefix());
  RxqInfo rxq(veth.b(), {"-a", "pass", "--read"});
  ASSERT_TRUE(rxq.attached()) << rxq.tool().err();
  // A packet socket sees only what XDP passed on to the stack.
  afxdp::lab::PacketSocket stack(veth.b());
  afxdp::lab::PacketSocket sender(veth.a());
  Capture capture(stack, frames);
  send_frames(sender, frames, afxdp::mac_address(veth.b()), afxdp::mac_address(veth.a()));
  capture.finish();
  ASSERT_EQ(rxq.stop_after(frames), 0) << rxq.tool().err();
  EXPECT_EQ(capture.received(), frames);
  EXPECT_EQ(rxq.totals().total, frames);
}

TEST(RxqInfo, RedirectSendsFramesOutOfTheSecondInterface) {
  AFXDP_REQUIRE_SYSTEM();
  afxdp::test::quiet_ipv6();
  afxdp::lab::VethPair in(afxdp::lab::unique_prefix());
  afxdp::lab::VethPair out(afxdp::lab::unique_prefix());
  // Frames redirected into out.a() reach out.b() through its XDP path: it needs a program.
  const auto program = pass_program(out.b());
  RxqInfo rxq(in.b(), {"-a", "REDIRECT", "--redirect-to", out.a()});
  ASSERT_TRUE(rxq.attached()) << rxq.tool().err();
  afxdp::lab::PacketSocket far_end(out.b());
  afxdp::lab::PacketSocket sender(in.a());
  Capture capture(far_end, frames);
  send_frames(sender, frames, afxdp::mac_address(in.b()), afxdp::mac_address(in.a()));
  capture.finish();
  ASSERT_EQ(rxq.stop_after(frames), 0) << rxq.tool().err();
  EXPECT_EQ(capture.received(), frames)
      << "far end rx_packets " << interface_counter(out.b(), "rx_packets") << " rx_dropped "
      << interface_counter(out.b(), "rx_dropped") << ", redirect port tx_dropped "
      << interface_counter(out.a(), "tx_dropped");
  EXPECT_EQ(rxq.totals().total, frames);
}

TEST(RxqInfo, TwoQueuesBothCount) {
  AFXDP_REQUIRE_SYSTEM();
  if (!afxdp::pin_to_cpu(1)) GTEST_SKIP() << "needs two CPUs";
  afxdp::pin_to_cpu(0);
  afxdp::test::quiet_ipv6();
  afxdp::lab::VethPair veth(afxdp::lab::unique_prefix(), 2);
  RxqInfo rxq(veth.b(), {"-a", "DROP"});
  ASSERT_TRUE(rxq.attached()) << rxq.tool().err();
  const auto dst = afxdp::mac_address(veth.b());
  const auto src = afxdp::mac_address(veth.a());
  // veth delivers a frame to the peer's rx queue with the number of the tx queue it left by;
  // transmit packet steering (XPS) makes that the sending CPU's for the packet sockets.
  for (unsigned q = 0; q < 2; ++q) {
    std::ofstream("/sys/class/net/" + veth.a() + "/queues/tx-" + std::to_string(q) + "/xps_cpus")
        << (1U << q) << "\n";
  }
  std::vector<std::thread> senders;
  for (unsigned cpu = 0; cpu < 2; ++cpu) {
    senders.emplace_back([&, cpu] {
      afxdp::pin_to_cpu(cpu);
      afxdp::lab::PacketSocket sender(veth.a());
      send_frames(sender, frames, dst, src);
    });
  }
  for (auto& t : senders) t.join();
  ASSERT_EQ(rxq.stop_after(std::uint64_t{2} * frames), 0) << rxq.tool().err();
  const Totals t = rxq.totals();
  EXPECT_EQ(t.total, 2 * frames) << "rx_packets " << interface_counter(veth.b(), "rx_packets")
                                 << " rx_dropped " << interface_counter(veth.b(), "rx_dropped")
                                 << " tx_dropped(a) " << interface_counter(veth.a(), "tx_dropped")
                                 << " tx_packets(a) " << interface_counter(veth.a(), "tx_packets");
  EXPECT_EQ(t.queue_sum, 2 * frames);
  EXPECT_GE(t.queues, 2U) << summary_line(rxq.tool().out());
}

TEST(RxqInfo, TextOutputHasTheOriginalShape) {
  AFXDP_REQUIRE_SYSTEM();
  afxdp::test::quiet_ipv6();
  afxdp::lab::VethPair veth(afxdp::lab::unique_prefix());
  auto tool = start_tool({"rxq-info", "-i", veth.b(), "-s", "0.2", "-a", "DROP"});
  ASSERT_TRUE(afxdp::test::wait_attached(veth.b())) << tool.err();
  afxdp::lab::PacketSocket sender(veth.a());
  send_frames(sender, 500, afxdp::mac_address(veth.b()), afxdp::mac_address(veth.a()));
  std::this_thread::sleep_for(std::chrono::milliseconds(500));  // at least one full interval
  tool.terminate();
  ASSERT_EQ(tool.wait(30000), 0) << tool.err();
  const std::string& out = tool.out();
  EXPECT_NE(out.find("Running XDP on dev:" + veth.b() +
                     " (ifindex:" + std::to_string(afxdp::interface_index(veth.b())) +
                     ") action:XDP_DROP options:no_touch"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("XDP stats       CPU     pps         issue-pps"), std::string::npos) << out;
  EXPECT_NE(out.find("XDP-RX CPU      total   "), std::string::npos);
  EXPECT_NE(out.find("RXQ stats       RXQ:CPU pps         issue-pps"), std::string::npos);
  EXPECT_TRUE(std::regex_search(out, std::regex("rx_queue_index    0:sum [0-9,]+ "))) << out;
  EXPECT_NE(out.find("processed 500 issue 0"), std::string::npos) << out;
}

// Without -a the verdict is PASS (the kernel's sample's default): frames still reach the stack,
// so `rxq-info -i eth0` does not cut a host off.
TEST(RxqInfo, DefaultsToPassAndSaysSo) {
  AFXDP_REQUIRE_SYSTEM();
  afxdp::test::quiet_ipv6();
  afxdp::lab::VethPair veth(afxdp::lab::unique_prefix());
  auto tool = start_tool({"rxq-info", "-i", veth.b(), "-s", "0.2"});
  ASSERT_TRUE(afxdp::test::wait_attached(veth.b())) << tool.err();
  // A packet socket on b sees what the program passed up, and nothing it dropped.
  afxdp::lab::PacketSocket receiver(veth.b());
  Capture capture(receiver, 200);
  afxdp::lab::PacketSocket sender(veth.a());
  send_frames(sender, 200, afxdp::mac_address(veth.b()), afxdp::mac_address(veth.a()));
  capture.finish();
  tool.terminate();
  ASSERT_EQ(tool.wait(30000), 0) << tool.err();
  EXPECT_EQ(capture.received(), 200U);
  EXPECT_NE(tool.out().find("action:XDP_PASS"), std::string::npos) << tool.out();
}

// Interface names may hold quotes and backslashes (the kernel refuses only '/', ':' and
// whitespace): --json escapes them, so every line still parses and names the interface.
TEST(RxqInfo, JsonEscapesTheInterfaceName) {
  AFXDP_REQUIRE_SYSTEM();
  afxdp::lab::VethPair veth("q\"\\");  // q"\a and q"\b
  auto tool = start_tool({"rxq-info", "-i", veth.b(), "--json", "-s", "0.1", "-d", "0.5"});
  ASSERT_EQ(tool.wait(30000), 0) << tool.err();
  std::string why;
  EXPECT_TRUE(afxdp::test::every_line_is_json(tool.out(), why)) << why << tool.out();
  EXPECT_NE(tool.out().find(R"("interface":"q\"\\b")"), std::string::npos) << tool.out();
}

TEST(RxqInfo, BadInputIsOneLineAndAFailure) {
  AFXDP_REQUIRE_SYSTEM();
  afxdp::lab::VethPair veth(afxdp::lab::unique_prefix());
  const auto program = pass_program(veth.a());  // "another program" for the refusal case
  const std::vector<std::vector<std::string>> cases = {
      {"rxq-info"},
      {"rxq-info", "-i", "nosuchif0"},
      {"rxq-info", "-i", veth.b(), "-a", "forward"},
      {"rxq-info", "-i", veth.b(), "-a", "REDIRECT"},
      {"rxq-info", "-i", veth.b(), "-a", "REDIRECT", "--redirect-to", "nosuchif0"},
      {"rxq-info", "-i", veth.b(), "--redirect-to"},
      {"rxq-info", "-i", veth.a()},  // already has an XDP program
  };
  for (const auto& args : cases) {
    auto tool = start_tool(args);
    EXPECT_NE(tool.wait(30000), 0) << args.back();
    EXPECT_EQ(afxdp::test::lines_of(tool.err()).size(), 1U) << args.back() << ": " << tool.err();
  }
  EXPECT_EQ(afxdp::attached_xdp_program(afxdp::interface_index(veth.b())), 0U);
}

TEST(RxqInfo, WithoutPrivilegeOneLine) {
  AFXDP_REQUIRE_SYSTEM();
  afxdp::lab::VethPair veth(afxdp::lab::unique_prefix());
  if (::access("/usr/bin/setpriv", X_OK) != 0) GTEST_SKIP() << "needs setpriv (util-linux)";
  // An unprivileged user (nobody) has no capabilities after exec.
  auto tool = start_tool({"rxq-info", "-i", veth.b()},
                         {"setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"});
  EXPECT_NE(tool.wait(30000), 0);
  const auto lines = afxdp::test::lines_of(tool.err());
  ASSERT_EQ(lines.size(), 1U) << tool.err();
  EXPECT_NE(lines[0].find("CAP_"), std::string::npos) << lines[0];
  EXPECT_EQ(afxdp::attached_xdp_program(afxdp::interface_index(veth.b())), 0U);
}

}  // namespace
