// What the AF_XDP system tests share: a tally of test frames by sequence number (each one exactly
// once, bytes intact), the rx drain that recycles frames into the fill ring, and bounded waits.
//
// Threading: a Tally and a drain belong to the one thread that owns the socket's rings.
#pragma once

#include <gtest/gtest.h>

#include <afxdp/net/mac_address.hpp>
#include <afxdp/xsk/socket.hpp>
#include <afxdp/xsk/unique_fd.hpp>
#include <afxdp/xsk/xsk_program.hpp>
#include <lab.hpp>

#include <chrono>
#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

namespace afxdp::test {

// The two copy modes veth has, as test parameters: the program's attach mode with the matching
// bind mode.
struct CopyMode {
  const char* name;
  AttachMode attach;
  BindMode bind;
};
inline const CopyMode skb_mode{"skb", AttachMode::skb, BindMode::skb};
inline const CopyMode native_mode{"native", AttachMode::native, BindMode::native_copy};
// GoogleTest names and prints parameters with these.
inline void PrintTo(const CopyMode& mode, std::ostream* out) { *out << mode.name; }
struct CopyModeName {
  std::string operator()(const ::testing::TestParamInfo<CopyMode>& mode) const {
    return mode.param.name;
  }
};

// A loaded XDP program that only returns XDP_PASS: someone else's program on the interface.
UniqueFd load_pass_program();

// Lengths vary with the sequence so that a frame truncated or mixed up with another shows.
inline std::size_t test_length(std::uint32_t sequence) { return 60 + (sequence * 37U) % 1400U; }

// A test frame for `sequence`, addressed from `src` to `dst`.
inline std::vector<std::uint8_t> frame_for(std::uint32_t sequence, const MacAddress& dst,
                                           const MacAddress& src) {
  return lab::test_frame(sequence, test_length(sequence), dst, src);
}

// Counts frames: test frames by sequence (intact, duplicated, corrupt), and everything else
// (the kernel's own IPv6 frames on a fresh link) apart.
class Tally {
 public:
  explicit Tally(std::uint32_t expected) : seen_(expected, 0) {}

  void add(const std::uint8_t* frame, std::size_t length);
  // A descriptor that no frame should have: kept count of, the first one described.
  void add_bad_descriptor(const std::string& what) {
    if (bad_descriptors_++ == 0) first_bad_ = what;
  }

  [[nodiscard]] std::uint32_t unique() const noexcept { return unique_; }
  [[nodiscard]] std::uint32_t duplicates() const noexcept { return duplicates_; }
  [[nodiscard]] std::uint32_t corrupt() const noexcept { return corrupt_; }
  [[nodiscard]] std::uint32_t others() const noexcept { return others_; }
  [[nodiscard]] bool complete() const noexcept { return unique_ == seen_.size(); }
  [[nodiscard]] bool clean() const noexcept {
    return duplicates_ == 0 && corrupt_ == 0 && out_of_range_ == 0 && bad_descriptors_ == 0;
  }
  // "9990 of 10000 unique, 0 duplicates, ... first missing 17", for failure messages.
  [[nodiscard]] std::string summary() const;

 private:
  std::vector<std::uint8_t> seen_;
  std::uint32_t unique_ = 0;
  std::uint32_t duplicates_ = 0;
  std::uint32_t corrupt_ = 0;
  std::uint32_t out_of_range_ = 0;
  std::uint32_t bad_descriptors_ = 0;
  std::uint32_t others_ = 0;
  std::string first_bad_;
};

// UMEM addresses [begin, end) that a socket lent to the kernel: descriptors outside are counted
// as bad (a socket must only ever see its own frames).
struct FrameRange {
  std::uint64_t begin = 0;
  std::uint64_t end = UINT64_MAX;
};

// Lend every frame of `range` (frame_size apart) to `fill`; returns how many were lent.
std::uint32_t lend_frames(FillRing& fill, FrameRange range, std::uint32_t frame_size);

// Takes frames off a socket's rx ring into a Tally and gives them back to the fill ring it uses.
// A frame that does not fit on the fill ring yet waits here: the kernel publishes the rx
// producer before it publishes the fill consumer (xsk_flush), so right after new rx entries
// show, the fill ring can still look full by as many frames (SharedUmem.TwoQueues... saw this
// under load). Dropping those frames would leak them; spinning would stall.
class Receiver {
 public:
  explicit Receiver(Socket& socket, FrameRange range = {}) : socket_(socket), range_(range) {}

  // Take up to `max` descriptors; returns how many there were.
  std::uint32_t drain(Tally& tally, std::uint32_t max = 64);
  // Frames waiting for room on the fill ring.
  [[nodiscard]] std::size_t waiting() const noexcept { return waiting_.size(); }

 private:
  void refill();
  Socket& socket_;
  FrameRange range_;
  std::vector<std::uint64_t> waiting_;
};

// Stops a loop that makes no progress for `idle` (the whole test stays bounded on a busy machine).
class StallGuard {
 public:
  explicit StallGuard(std::chrono::milliseconds idle) : idle_(idle) { progress(); }
  void progress() { last_ = std::chrono::steady_clock::now(); }
  [[nodiscard]] bool stalled() const { return std::chrono::steady_clock::now() - last_ > idle_; }

 private:
  std::chrono::milliseconds idle_;
  std::chrono::steady_clock::time_point last_;
};

}  // namespace afxdp::test
