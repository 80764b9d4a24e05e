// pcap files through libpcap: read every frame of a capture (txpush --pcap replays them) and
// write frames as they arrive (dump). Ethernet link type only: AF_XDP carries Ethernet frames.
#pragma once

#include <cstdint>
#include <cstdio>
#include <ctime>
#include <span>
#include <string>
#include <vector>

struct pcap;         // libpcap's pcap_t, kept out of this header
struct pcap_dumper;  // libpcap's pcap_dumper_t

namespace afxdp::tool {

// The frames of a capture, stored one after another in one buffer (a frame costs its bytes and
// an offset, not an allocation of its own: a capture near txpush's limit stays near its size).
class PcapFrames {
 public:
  [[nodiscard]] std::size_t size() const noexcept { return offsets_.size() - 1; }
  [[nodiscard]] bool empty() const noexcept { return size() == 0; }
  [[nodiscard]] std::span<const std::uint8_t> operator[](std::size_t i) const noexcept {
    return {bytes_.data() + offsets_[i], offsets_[i + 1] - offsets_[i]};
  }
  void push_back(std::span<const std::uint8_t> frame) {
    bytes_.insert(bytes_.end(), frame.begin(), frame.end());
    offsets_.push_back(bytes_.size());
  }
  // Frame by frame, in order.
  class Iterator {
   public:
    Iterator(const PcapFrames& frames, std::size_t i) noexcept : frames_(&frames), i_(i) {}
    std::span<const std::uint8_t> operator*() const noexcept { return (*frames_)[i_]; }
    Iterator& operator++() noexcept {
      ++i_;
      return *this;
    }
    bool operator==(const Iterator& other) const noexcept { return i_ == other.i_; }

   private:
    const PcapFrames* frames_;
    std::size_t i_;
  };
  [[nodiscard]] Iterator begin() const noexcept { return {*this, 0}; }
  [[nodiscard]] Iterator end() const noexcept { return {*this, size()}; }

 private:
  std::vector<std::uint8_t> bytes_;
  std::vector<std::size_t> offsets_{0};
};

// Every frame of the pcap file at `path` ("-": standard input), in order. Throws
// std::runtime_error naming the file and the problem when it cannot be opened, is not a pcap
// file, is not Ethernet, is truncated or corrupt, or holds a frame cut short by the capture
// (captured length != original length: replaying it would send a different frame);
// std::invalid_argument as soon as the frames read pass `max_bytes`.
PcapFrames read_pcap(const std::string& path, std::uint64_t max_bytes = UINT64_MAX);

// Writes Ethernet frames to a pcap file ("-": standard output), microsecond timestamps.
// Not thread-safe: one thread writes.
class PcapWriter {
 public:
  // Throws std::runtime_error naming the file when it cannot be created.
  explicit PcapWriter(const std::string& path, std::uint32_t snaplen = 65535);
  // To `file`, opened by the caller (how it was opened is the caller's policy), named `path` in
  // messages; the writer owns it from here, closed even when this throws.
  PcapWriter(std::FILE* file, const std::string& path, std::uint32_t snaplen = 65535);
  PcapWriter(const PcapWriter&) = delete;
  PcapWriter& operator=(const PcapWriter&) = delete;
  ~PcapWriter();  // close() unless done; errors are lost there, so call close() yourself

  // One frame, with the time it arrived (CLOCK_REALTIME); frames longer than snaplen are cut.
  void write(const std::uint8_t* frame, std::uint32_t length, const timespec& when);
  // Push buffered records to the file; throws std::runtime_error when the write fails.
  void flush();
  // Flush and close; throws std::runtime_error when the final write fails.
  void close();

  [[nodiscard]] std::uint64_t frames() const noexcept { return frames_; }

 private:
  std::string path_;
  std::uint32_t snaplen_ = 0;
  ::pcap* pcap_ = nullptr;
  ::pcap_dumper* dumper_ = nullptr;
  std::uint64_t frames_ = 0;
};

}  // namespace afxdp::tool
