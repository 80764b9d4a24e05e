// read_pcap against files it must accept and files it must refuse with a clear error: written
// with PcapWriter, then truncated or patched byte by byte. No root, no kernel.
#include "common/pcap.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>
#include <unistd.h>

namespace {

using Frames = std::vector<std::vector<std::uint8_t>>;
constexpr std::size_t file_header = 24;    // pcap global header
constexpr std::size_t record_header = 16;  // per-frame header

class PcapReader : public ::testing::Test {
 protected:
  void TearDown() override { std::filesystem::remove(path_); }

  std::string write(const Frames& frames, std::uint32_t snaplen = 65535) {
    afxdp::tool::PcapWriter writer(path_, snaplen);
    timespec when{1700000000, 123456000};
    for (const auto& f : frames) writer.write(f.data(), static_cast<std::uint32_t>(f.size()), when);
    writer.close();
    return path_;
  }
  std::vector<char> bytes() {
    std::ifstream in(path_, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), {}};
  }
  void replace(const std::vector<char>& content) {
    std::ofstream out(path_, std::ios::binary | std::ios::trunc);
    out.write(content.data(), static_cast<std::streamsize>(content.size()));
  }
  // The error read_pcap throws, "" when it throws none.
  std::string error() {
    try {
      afxdp::tool::read_pcap(path_);
    } catch (const std::runtime_error& e) {
      return e.what();
    }
    return "";
  }

  std::string path_ = (std::filesystem::temp_directory_path() /
                       ("afxdp_pcap_test_" + std::to_string(::getpid()) + ".pcap"))
                          .string();
};

Frames some_frames() {
  Frames frames;
  for (std::size_t length : {60u, 100u, 1514u}) {
    std::vector<std::uint8_t> f(length);
    for (std::size_t i = 0; i < length; ++i) f[i] = static_cast<std::uint8_t>(i * 7 + length);
    frames.push_back(f);
  }
  return frames;
}

TEST_F(PcapReader, ReadsBackWhatWasWritten) {
  const Frames frames = some_frames();
  write(frames);
  const afxdp::tool::PcapFrames read = afxdp::tool::read_pcap(path_);
  ASSERT_EQ(read.size(), frames.size());
  for (std::size_t i = 0; i < frames.size(); ++i) {
    EXPECT_EQ(std::vector<std::uint8_t>(read[i].begin(), read[i].end()), frames[i]) << i;
  }
}

TEST_F(PcapReader, AcceptsAnEmptyCapture) {
  write({});
  EXPECT_TRUE(afxdp::tool::read_pcap(path_).empty());
}

TEST_F(PcapReader, RefusesAMissingFile) {
  EXPECT_NE(error().find(path_), std::string::npos) << error();
}

TEST_F(PcapReader, RefusesAFileThatIsNotPcap) {
  replace(std::vector<char>(100, 'x'));
  const std::string e = error();
  EXPECT_NE(e.find(path_), std::string::npos) << e;
}

TEST_F(PcapReader, RefusesATruncatedFileHeader) {
  write(some_frames());
  auto b = bytes();
  b.resize(10);
  replace(b);
  EXPECT_NE(error().find("truncated"), std::string::npos) << error();
}

TEST_F(PcapReader, RefusesATruncatedRecordHeader) {
  write(some_frames());
  auto b = bytes();
  b.resize(file_header + record_header + 60 + 5);  // frame 2's header cut after 5 bytes
  replace(b);
  const std::string e = error();
  EXPECT_NE(e.find("frame 2"), std::string::npos) << e;
  EXPECT_NE(e.find("truncated"), std::string::npos) << e;
}

TEST_F(PcapReader, RefusesATruncatedFrame) {
  write(some_frames());
  auto b = bytes();
  b.resize(b.size() - 1);  // the last frame lacks its last byte
  replace(b);
  const std::string e = error();
  EXPECT_NE(e.find("frame 3"), std::string::npos) << e;
  EXPECT_NE(e.find("truncated"), std::string::npos) << e;
}

TEST_F(PcapReader, RefusesAnImpossibleCapturedLength) {
  write(some_frames());
  auto b = bytes();
  // Frame 1's captured length (record offset 8, little-endian as written here) far beyond the
  // snap length.
  b[file_header + 8 + 3] = 0x7f;
  replace(b);
  const std::string e = error();
  EXPECT_NE(e.find("frame 1"), std::string::npos) << e;
}

TEST_F(PcapReader, RefusesFramesCutByTheSnapLength) {
  write(some_frames(), 64);
  const std::string e = error();
  EXPECT_NE(e.find("frame 2"), std::string::npos) << e;
  EXPECT_NE(e.find("64 of its 100 bytes"), std::string::npos) << e;
}

TEST_F(PcapReader, RefusesALinkTypeOtherThanEthernet) {
  write(some_frames());
  auto b = bytes();
  b[20] = 101;  // LINKTYPE_RAW (raw IP)
  replace(b);
  EXPECT_NE(error().find("not Ethernet"), std::string::npos) << error();
}

TEST_F(PcapReader, WriterRefusesAnUncreatableFile) {
  EXPECT_THROW(afxdp::tool::PcapWriter("/nonexistent-dir/x.pcap"), std::runtime_error);
}

}  // namespace
