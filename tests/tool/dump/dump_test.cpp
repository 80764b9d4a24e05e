// `afxdp dump` end to end: the tool runs as a child process on one end of a veth pair while test
// frames are sent into the other; what it wrote, read back with libpcap, must be the very bytes
// that were sent.
#include "system_test.hpp"

#include "common/pcap.hpp"
#include "tool_test.hpp"

#include <afxdp/interface.hpp>
#include <afxdp/xsk_program.hpp>
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

// Issue 17 item 3: the output used to be opened after the program was attached, with SIGINT
// and SIGTERM blocked: a FIFO without a reader hung there, the queue's frames went nowhere and
// Ctrl-C did nothing. Now nothing is attached while it waits, and SIGINT ends it.
TEST_F(Dump, AFifoWithoutAReaderWaitsWithNothingAttachedAndSigintEndsIt) {
  ASSERT_EQ(::mkfifo(path_.c_str(), 0600), 0);
  // Started with SIGINT and SIGTERM held, as start_tool and afxdp-demo start it: dump must take
  // them over before open() blocks, or the SIGINT stays pending for good.
  afxdp::test::Child tool = afxdp::test::start_tool({"dump", "-i", veth_->b(), "-w", path_});
  std::this_thread::sleep_for(500ms);  // long enough to have attached, had it gone on
  EXPECT_EQ(afxdp::attached_xdp_program(afxdp::interface_index(veth_->b())), 0U);
  tool.signal(SIGINT);
  ASSERT_TRUE(tool.exited(3000)) << "SIGINT did not end it within 3 s";  // else killed when done
  EXPECT_EQ(tool.wait(1000), 0) << tool.err();
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
  afxdp::test::Child dump = afxdp::test::start_tool({"dump", "-i", veth_->b(), "-w", "/dev/null"});
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

}  // namespace
