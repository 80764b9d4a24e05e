// `afxdp dump` end to end: the tool runs as a child process on one end of a veth pair while test
// frames are sent into the other; what it wrote, read back with libpcap, must be the very bytes
// that were sent.
#include "system_test.hpp"

#include "common/pcap.hpp"
#include "tool_test.hpp"

#include <afxdp/xsk/interface.hpp>
#include <afxdp/xsk/xsk_program.hpp>
#include <lab.hpp>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>
#include <vector>

namespace {

using namespace std::chrono_literals;
constexpr std::size_t frame_length = 128;

class Dump : public ::testing::Test {
 protected:
  void SetUp() override {
    AFXDP_REQUIRE_SYSTEM();
    veth_.emplace(afxdp::lab::unique_prefix());
    peer_.emplace(veth_->a());
    dst_ = afxdp::mac_address(veth_->b());
    src_ = afxdp::mac_address(veth_->a());
  }
  void TearDown() override { std::filesystem::remove(path_); }

  void send(std::uint32_t sequence) {
    const auto frame = afxdp::lab::test_frame(sequence, frame_length, dst_, src_);
    peer_->send(frame.data(), frame.size());
  }
  // Every frame is either one of ours, byte for byte, in the order sent, or the kernel's own
  // IPv6 chatter on a fresh link. Returns how many of ours there were.
  std::size_t check(const afxdp::tool::PcapFrames& frames) {
    std::size_t ours = 0;
    std::int64_t previous = -1;
    for (const std::span<const std::uint8_t> f : frames) {
      std::uint32_t sequence = 0;
      if (afxdp::lab::check_test_frame(f.data(), f.size(), sequence)) {
        EXPECT_EQ(std::vector<std::uint8_t>(f.begin(), f.end()),
                  afxdp::lab::test_frame(sequence, frame_length, dst_, src_));
        EXPECT_GT(std::int64_t{sequence}, previous);
        previous = sequence;
        ++ours;
      } else {
        EXPECT_TRUE(f.size() >= 14 && f[12] == 0x86 && f[13] == 0xDD)
            << "a frame that is neither ours nor IPv6, " << f.size() << " bytes";
      }
    }
    return ours;
  }

  std::optional<afxdp::lab::VethPair> veth_;
  std::optional<afxdp::lab::PacketSocket> peer_;
  afxdp::MacAddress dst_{}, src_{};
  std::string path_ = (std::filesystem::temp_directory_path() /
                       ("afxdp_dump_test_" + std::to_string(::getpid()) + ".pcap"))
                          .string();
};

TEST_F(Dump, WritesExactlyCountFramesAsSent) {
  afxdp::test::Child tool =
      afxdp::test::start_tool({"dump", "-i", veth_->b(), "-w", path_, "-C", "20"});
  // Frames sent before the socket is in place pass to the stack and are not captured: keep
  // sending until the tool has its 20. The deadline only bounds a failure.
  const auto deadline = std::chrono::steady_clock::now() + 20s;
  for (std::uint32_t sequence = 0; !tool.exited(2) && std::chrono::steady_clock::now() < deadline;
       ++sequence) {
    send(sequence);
  }
  ASSERT_EQ(tool.wait(0), 0) << tool.err();
  const auto frames = afxdp::tool::read_pcap(path_);
  EXPECT_EQ(frames.size(), 20U);
  EXPECT_GT(check(frames), 0U);
  EXPECT_EQ(afxdp::attached_xdp_program(afxdp::interface_index(veth_->b())), 0U);
}

TEST_F(Dump, WritesToStandardOutputAndStopsCleanlyOnSigterm) {
  afxdp::test::Child tool = afxdp::test::start_tool({"dump", "-i", veth_->b(), "-w", "-"});
  const unsigned ifindex = afxdp::interface_index(veth_->b());
  for (int i = 0; i < 2000 && afxdp::attached_xdp_program(ifindex) == 0; ++i) {
    std::this_thread::sleep_for(5ms);
  }
  for (std::uint32_t sequence = 0; sequence < 50; ++sequence) {
    send(sequence);
    std::this_thread::sleep_for(5ms);
  }
  std::this_thread::sleep_for(100ms);
  tool.terminate();
  ASSERT_EQ(tool.wait(10000), 0) << tool.err();
  {
    std::ofstream capture(path_, std::ios::binary);
    capture << tool.out();
  }
  // Flushed and closed: a complete pcap with our frames in it.
  EXPECT_GT(check(afxdp::tool::read_pcap(path_)), 0U);
  EXPECT_EQ(afxdp::attached_xdp_program(ifindex), 0U);
}

TEST_F(Dump, RefusesAnInterfaceThatDoesNotExist) {
  EXPECT_NE(afxdp::test::run_tool({"dump", "-i", veth_->b() + "x", "-w", path_}).exit_code, 0);
  EXPECT_FALSE(std::filesystem::exists(path_));
}

// Issue 27 item 17: the file was created (truncated) before the port opened, so a set-up that
// failed (another XDP program on the interface) left an old capture as an empty pcap.
TEST_F(Dump, AFailedSetUpLeavesAnExistingCaptureAlone) {
  const std::string old = "an earlier capture";
  {
    std::FILE* f = std::fopen(path_.c_str(), "w");
    ASSERT_NE(f, nullptr);
    std::fputs(old.c_str(), f);
    std::fclose(f);
  }
  afxdp::XskProgram other({.interface = veth_->b(), .mode = afxdp::AttachMode::native});
  EXPECT_NE(afxdp::test::run_tool({"dump", "-i", veth_->b(), "-w", path_, "-C", "1"}).exit_code, 0);
  EXPECT_EQ(std::filesystem::file_size(path_), old.size());
}

// Issue 17 item 3 and issue 41 item 11: a FIFO planted as the capture blocked dump in open()
// (first before attaching, and with the program attached when it was planted between dump's
// stat() and its late open). The capture is a regular file or standard output: a FIFO is refused
// in one line, without blocking, with nothing attached.
TEST_F(Dump, AFifoIsRefusedWithoutBlockingAndNothingAttached) {
  ASSERT_EQ(::mkfifo(path_.c_str(), 0600), 0);
  afxdp::test::Child tool = afxdp::test::start_tool({"dump", "-i", veth_->b(), "-w", path_});
  if (!tool.exited(3000)) tool.signal(SIGKILL);
  const afxdp::test::ToolResult r = afxdp::test::wait_for(tool, 3000);
  EXPECT_EQ(r.exit_code, 1) << "blocked, or not refused: " << r.err;
  EXPECT_EQ(afxdp::test::lines_of(r.err).size(), 1U) << r.err;
  EXPECT_NE(r.err.find("not a regular file"), std::string::npos) << r.err;
  EXPECT_EQ(afxdp::attached_xdp_program(afxdp::interface_index(veth_->b())), 0U);
}

// Issue 41 item 11: dump, run as root, followed a symlink planted at the capture's path and
// truncated its target. Now the path is opened without following a symlink, and a file with
// another hard link (planted the same way) is refused too: one line, the target untouched.
TEST_F(Dump, APlantedLinkIsRefusedAndItsTargetLeftAlone) {
  const std::string target = path_ + ".target";
  const std::string content = "a file root can write, which the planter cannot";
  for (const bool symbolic : {true, false}) {
    SCOPED_TRACE(symbolic ? "symlink" : "hard link");
    {
      std::ofstream f(target, std::ios::binary);
      f << content;
    }
    if (symbolic) {
      std::filesystem::create_symlink(target, path_);
    } else {
      std::filesystem::create_hard_link(target, path_);
    }
    afxdp::test::Child tool =
        afxdp::test::start_tool({"dump", "-i", veth_->b(), "-w", path_, "-C", "1"});
    for (std::uint32_t sequence = 0; !tool.exited(10) && sequence < 500; ++sequence) {
      send(sequence);
    }
    if (!tool.exited(1000)) tool.signal(SIGKILL);
    const afxdp::test::ToolResult r = afxdp::test::wait_for(tool, 3000);
    EXPECT_EQ(r.exit_code, 1) << r.err;
    EXPECT_EQ(afxdp::test::lines_of(r.err).size(), 1U) << r.err;
    EXPECT_NE(r.err.find(path_), std::string::npos) << r.err;
    std::ifstream f(target, std::ios::binary);
    EXPECT_EQ(std::string(std::istreambuf_iterator<char>(f), {}), content);
    EXPECT_EQ(afxdp::attached_xdp_program(afxdp::interface_index(veth_->b())), 0U);
    std::filesystem::remove(path_);
    std::filesystem::remove(target);
  }
}

// Issue 41 item 11: a new capture was created 0644, traffic readable by every user.
TEST_F(Dump, ANewCaptureIsReadableByItsOwnerOnly) {
  afxdp::test::Child tool =
      afxdp::test::start_tool({"dump", "-i", veth_->b(), "-w", path_, "-C", "1"});
  const auto deadline = std::chrono::steady_clock::now() + 20s;
  for (std::uint32_t sequence = 0; !tool.exited(2) && std::chrono::steady_clock::now() < deadline;
       ++sequence) {
    send(sequence);
  }
  ASSERT_EQ(tool.wait(0), 0) << tool.err();
  struct stat st {};
  ASSERT_EQ(::stat(path_.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0600U) << std::oct << (st.st_mode & 07777);
  EXPECT_EQ(afxdp::tool::read_pcap(path_).size(), 1U);
}

// ... and `-w -` into a reader that goes away: the summary and one error line, an ordinary
// non-zero exit, not a silent death by SIGPIPE.
TEST_F(Dump, AReaderThatGoesAwayGetsTheSummaryNotSigpipe) {
  afxdp::test::Child tool = afxdp::test::start_tool(
      {"dump", "-i", veth_->b(), "-w", "-"},
      {"bash", "-c", "set -o pipefail; \"$0\" \"$@\" | head -c 100 > /dev/null"});
  const auto deadline = std::chrono::steady_clock::now() + 20s;
  for (std::uint32_t sequence = 0; !tool.exited(2) && std::chrono::steady_clock::now() < deadline;
       ++sequence) {
    send(sequence);
  }
  const int code = tool.wait(5000);
  EXPECT_NE(code, 0) << tool.err();
  EXPECT_LT(code, 128) << "killed by a signal: " << tool.err();
  EXPECT_NE(tool.err().find("dump: "), std::string::npos) << tool.err();
  EXPECT_NE(tool.err().find("write failed"), std::string::npos) << tool.err();
  EXPECT_EQ(afxdp::attached_xdp_program(afxdp::interface_index(veth_->b())), 0U);
}

// Issue 17: traffic into dump for AFXDP_DUMP_LOAD_SECONDS (10 by default, as in CI; scripts/soak
// runs it for a minute), every frame counted end to end. What txpush sent and the veth did not
// drop reached b's XDP program, and each of those is written or counted by the kernel where it was
// lost; dump's own frame account closes (it exits non-zero otherwise).
TEST_F(Dump, UnderLoadCountsEveryFrame) {
  afxdp::test::quiet_ipv6();
  afxdp::test::Child dump = afxdp::test::start_tool({"dump", "-i", veth_->b(), "-w", path_});
  const unsigned a = afxdp::interface_index(veth_->a()), b = afxdp::interface_index(veth_->b());
  for (int i = 0; i < 2000 && afxdp::attached_xdp_program(b) == 0; ++i) {
    std::this_thread::sleep_for(5ms);
  }
  ASSERT_NE(afxdp::attached_xdp_program(b), 0U) << dump.err();
  const std::uint64_t dropped_before = afxdp::interface_link(a).tx_dropped;
  const char* seconds_text = std::getenv("AFXDP_DUMP_LOAD_SECONDS");
  const int seconds = seconds_text != nullptr ? std::atoi(seconds_text) : 10;
  ASSERT_GT(seconds, 0) << "AFXDP_DUMP_LOAD_SECONDS=" << seconds_text;
  const auto count = static_cast<std::uint64_t>(seconds) * 20000;  // at 20,000 frames a second
  const auto tx = afxdp::test::run_tool({"txpush", "-i", veth_->a(), "-c", "-Q", "--json", "--rate",
                                         "20000", "-C", std::to_string(count)},
                                        (seconds * 2 + 60) * 1000);
  ASSERT_EQ(tx.exit_code, 0) << tx.err;
  const std::string tx_summary = afxdp::test::last_line_with(tx.out, "\"summary\":true");
  ASSERT_EQ(afxdp::test::json_number(tx_summary, "tx_packets"), count) << tx_summary;
  std::this_thread::sleep_for(300ms);
  dump.signal(SIGTERM);
  ASSERT_EQ(dump.wait(10000), 0) << dump.err();
  unsigned long long written = 0, kernel_dropped = 0, ring_full = 0, bad = 0;
  const std::string& err = dump.err();
  ASSERT_EQ(std::sscanf(err.c_str() + err.find("dump: "),
                        "dump: %llu frames from %*s to %*s (kernel dropped %llu, ring full %llu, "
                        "bad descriptors %llu)",
                        &written, &kernel_dropped, &ring_full, &bad),
            4)
      << err;
  const std::uint64_t veth_dropped = afxdp::interface_link(a).tx_dropped - dropped_before;
  EXPECT_EQ(written + kernel_dropped + ring_full, count - veth_dropped) << err;
  EXPECT_EQ(bad, 0U);
  EXPECT_GT(written, 0U);
  EXPECT_EQ(afxdp::attached_xdp_program(b), 0U);
}

// Without -q the capture is the interface's: frames sent to either rx queue of a two-queue veth
// all land in the one file (gen's xsk engine sends on the queue -q names, which veth delivers to
// the peer's queue of the same number). Before, dump opened queue 0 only: half the frames went to
// the kernel.
TEST(DumpInterface, CapturesEveryRxQueueIntoOneFile) {
  AFXDP_REQUIRE_SYSTEM();
  afxdp::lab::VethPair veth(afxdp::lab::unique_prefix(), 2);
  const std::string path = (std::filesystem::temp_directory_path() /
                            ("afxdp_dump_queues_" + std::to_string(::getpid()) + ".pcap"))
                               .string();
  afxdp::test::Child dump =
      afxdp::test::start_tool({"dump", "-i", veth.b(), "-w", path, "--steer", "udp dst port 4242"});
  const unsigned ifindex = afxdp::interface_index(veth.b());
  for (int i = 0; i < 2000 && afxdp::attached_xdp_program(ifindex) == 0; ++i) {
    std::this_thread::sleep_for(5ms);
  }
  std::this_thread::sleep_for(300ms);  // both sockets in the program's map
  constexpr int per_queue = 100;
  for (const char* queue : {"0", "1"}) {
    const auto gen = afxdp::test::run_tool({"gen", "-i", veth.a(), "-q", queue, "--engine", "xsk",
                                            "-C", std::to_string(per_queue), "--dst-port", "4242"},
                                           30000);
    ASSERT_EQ(gen.exit_code, 0) << gen.err;
  }
  std::this_thread::sleep_for(300ms);
  dump.terminate();
  ASSERT_EQ(dump.wait(10000), 0) << dump.err();
  EXPECT_NE(dump.err().find("dump: " + std::to_string(2 * per_queue) + " frames from " + veth.b() +
                            ":0,1 to "),
            std::string::npos)
      << dump.err();
  EXPECT_EQ(afxdp::tool::read_pcap(path).size(), 2U * per_queue);
  std::filesystem::remove(path);
  EXPECT_EQ(afxdp::attached_xdp_program(ifindex), 0U);
}

}  // namespace
