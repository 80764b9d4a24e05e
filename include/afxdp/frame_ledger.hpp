// A debug ledger that knows where every UMEM frame is, so that a test can prove no frame was
// lost or used twice. The application reports each hand-over it makes (the ring verbs are the
// only places frames change hands); the ledger refuses a hand-over from the wrong place.
//
// Places, as the application can see them:
//   free         in the application's free pool (FramePool)
//   fill         lent for receiving: on the fill ring, inside the kernel, or on the rx ring
//   application  peeked off the rx or completion ring, not yet given anywhere
//   tx           handed to the kernel to send: on the tx ring, inside the kernel, or on the
//                completion ring
// Compiled in when AFXDP_FRAME_LEDGER is defined (the dev and asan presets); otherwise every
// call is an empty inline function and the ledger holds nothing.
//
// Threading: one thread owns a ledger, like the rings it watches.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace afxdp {

enum class FramePlace : std::uint8_t { free, fill, application, tx };
inline constexpr std::size_t frame_place_count = 4;

const char* to_string(FramePlace place) noexcept;

#ifdef AFXDP_FRAME_LEDGER

class FrameLedger {
 public:
  static constexpr bool enabled = true;
  FrameLedger() = default;
  // All frames start free. frame_size turns an address (with any offset) into a frame number.
  FrameLedger(std::uint32_t frame_count, std::uint32_t frame_size)
      : frame_size_(frame_size), places_(frame_count, FramePlace::free) {
    counts_[index(FramePlace::free)] = frame_count;
  }

  // Record that the frame at `addr` moved from `from` to `to`. A frame that is not where the
  // caller says, or an address outside the UMEM, is counted as an error and not moved.
  void move(std::uint64_t addr, FramePlace from, FramePlace to) {
    const std::uint64_t frame = addr / frame_size_;
    if (frame >= places_.size()) {
      fail("address " + std::to_string(addr) + " is outside the UMEM");
      return;
    }
    FramePlace& place = places_[frame];
    if (place != from) {
      fail("frame " + std::to_string(frame) + " moved from " + to_string(from) + " to " +
           to_string(to) + " but it is in " + to_string(place));
      return;
    }
    place = to;
    --counts_[index(from)];
    ++counts_[index(to)];
  }

  [[nodiscard]] std::uint32_t count(FramePlace place) const noexcept {
    return counts_[index(place)];
  }
  [[nodiscard]] std::uint32_t total() const noexcept {
    std::uint32_t sum = 0;
    for (const std::uint32_t c : counts_) sum += c;
    return sum;
  }
  [[nodiscard]] std::uint64_t errors() const noexcept { return errors_; }
  [[nodiscard]] const std::string& first_error() const noexcept { return first_error_; }

 private:
  static std::size_t index(FramePlace place) noexcept { return static_cast<std::size_t>(place); }
  void fail(std::string message) {
    if (errors_++ == 0) first_error_ = std::move(message);
  }
  std::uint32_t frame_size_ = 1;
  std::vector<FramePlace> places_;
  std::array<std::uint32_t, frame_place_count> counts_{};
  std::uint64_t errors_ = 0;
  std::string first_error_;
};

#else

class FrameLedger {
 public:
  static constexpr bool enabled = false;
  FrameLedger() = default;
  FrameLedger(std::uint32_t, std::uint32_t) {}
  void move(std::uint64_t, FramePlace, FramePlace) noexcept {}
  std::uint32_t count(FramePlace) const noexcept { return 0; }
  std::uint32_t total() const noexcept { return 0; }
  std::uint64_t errors() const noexcept { return 0; }
  const std::string& first_error() const noexcept {
    static const std::string none;
    return none;
  }
};

#endif

inline const char* to_string(FramePlace place) noexcept {
  if (place == FramePlace::free) return "free";
  if (place == FramePlace::fill) return "fill";
  if (place == FramePlace::application) return "application";
  return "tx";
}

}  // namespace afxdp
