// `afxdp txpush --pcap FILE --loop N`: the capture's frames leave, in order, N times, as the
// very bytes in the file; a corrupt or truncated file is refused with one line and a non-zero
// exit, and nothing is sent.
#include "system_test.hpp"

#include "common/pcap.hpp"
#include "tool_test.hpp"

#include <lab.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <unistd.h>

namespace {

class TxpushPcap : public ::testing::Test {
 protected:
  void SetUp() override {
    AFXDP_REQUIRE_SYSTEM();
    afxdp::test::quiet_ipv6();  // only our frames on the link
    veth_.emplace(afxdp::lab::unique_prefix());
    const auto dst = afxdp::mac_address(veth_->b()), src = afxdp::mac_address(veth_->a());
    for (std::uint32_t i = 0; i < 5; ++i)
      frames_.push_back(afxdp::lab::test_frame(i, 60 + 37 * i, dst, src));
    afxdp::tool::PcapWriter writer(path_);
    for (const auto& f : frames_) writer.write(f.data(), static_cast<std::uint32_t>(f.size()), {});
    writer.close();
  }
  void TearDown() override { std::filesystem::remove(path_); }

  std::optional<afxdp::lab::VethPair> veth_;
  std::vector<std::vector<std::uint8_t>> frames_;
  std::string path_ = (std::filesystem::temp_directory_path() /
                       ("afxdp_txpush_pcap_" + std::to_string(::getpid()) + ".pcap"))
                          .string();
};

TEST_F(TxpushPcap, SendsTheCaptureInOrderLoopTimes) {
  afxdp::lab::PacketSocket receiver(veth_->b());
  const auto result = afxdp::test::run_tool(
      {"txpush", "-i", veth_->a(), "-c", "-Q", "--pcap", path_, "--loop", "3"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  std::vector<std::vector<std::uint8_t>> got;
  std::vector<std::uint8_t> buffer;
  while (got.size() < 16 && receiver.receive(buffer, 500) != 0) got.push_back(buffer);
  std::vector<std::vector<std::uint8_t>> expected;
  for (int loop = 0; loop < 3; ++loop)
    expected.insert(expected.end(), frames_.begin(), frames_.end());
  EXPECT_EQ(got, expected);
}

TEST_F(TxpushPcap, RefusesATruncatedFileWithOneLine) {
  std::filesystem::resize_file(path_, std::filesystem::file_size(path_) - 3);
  afxdp::lab::PacketSocket receiver(veth_->b());
  const auto result = afxdp::test::run_tool({"txpush", "-i", veth_->a(), "-c", "--pcap", path_});
  EXPECT_NE(result.exit_code, 0);
  EXPECT_NE(result.err.find("pcap file " + path_ + ", frame 5: truncated"), std::string::npos)
      << result.err;
  EXPECT_EQ(std::count(result.err.begin(), result.err.end(), '\n'), 1) << result.err;
  std::vector<std::uint8_t> buffer;
  EXPECT_EQ(receiver.receive(buffer, 200), 0U);  // nothing was sent
}

TEST_F(TxpushPcap, RefusesAFileThatIsNotPcap) {
  std::ofstream(path_, std::ios::trunc) << "not a capture\n";
  const auto result = afxdp::test::run_tool({"txpush", "-i", veth_->a(), "-c", "--pcap", path_});
  EXPECT_NE(result.exit_code, 0);
  EXPECT_NE(result.err.find("pcap file " + path_), std::string::npos) << result.err;
}

// Issue 17 item 6: the capture was read once per queue, so `-q 0-1 --pcap -` failed on the second
// read of standard input. Now it is read once and shared: both queues send all of it.
TEST_F(TxpushPcap, SeveralQueuesShareOneReadOfStandardInput) {
  afxdp::lab::VethPair two(afxdp::lab::unique_prefix(), 2);
  afxdp::lab::PacketSocket receiver(two.b());
  afxdp::test::Child tool = afxdp::test::start_tool(
      {"txpush", "-i", two.a(), "-q", "0-1", "-c", "-Q", "--pcap", "-", "--loop", "2"},
      {"bash", "-c", "exec \"$0\" \"$@\" < " + path_});
  ASSERT_EQ(tool.wait(20000), 0) << tool.err();
  std::size_t got = 0;
  std::vector<std::uint8_t> buffer;
  while (receiver.receive(buffer, 500) != 0) {
    EXPECT_NE(std::find(frames_.begin(), frames_.end(), buffer), frames_.end());
    ++got;
  }
  EXPECT_EQ(got, frames_.size() * 2 * 2);  // two queues, twice through the capture
}

}  // namespace
