#include "xsk_fixture.hpp"

namespace afxdp::test {
namespace {
constexpr std::uint8_t ethertype_high = 0x88;  // 0x88B5, the type lab::test_frame writes
constexpr std::uint8_t ethertype_low = 0xB5;
}  // namespace

void Tally::add(const std::uint8_t* frame, std::size_t length) {
  if (length < 14 || frame[12] != ethertype_high || frame[13] != ethertype_low) {
    ++others_;
    return;
  }
  std::uint32_t sequence = 0;
  if (!lab::check_test_frame(frame, length, sequence) || length != test_length(sequence)) {
    ++corrupt_;
  } else if (sequence >= seen_.size()) {
    ++out_of_range_;
  } else if (seen_[sequence]++ != 0) {
    ++duplicates_;
  } else {
    ++unique_;
  }
}

std::string Tally::summary() const {
  std::string text = std::to_string(unique_) + " of " + std::to_string(seen_.size()) +
                     " unique, " + std::to_string(duplicates_) + " duplicates, " +
                     std::to_string(corrupt_) + " corrupt, " + std::to_string(out_of_range_) +
                     " out of range, " + std::to_string(bad_descriptors_) +
                     " bad descriptors, " + std::to_string(others_) + " other frames";
  for (std::size_t i = 0; i < seen_.size(); ++i) {
    if (seen_[i] == 0) return text + ", first missing " + std::to_string(i);
  }
  return text;
}

std::uint32_t lend_frames(FillRing& fill, FrameRange range, std::uint32_t frame_size) {
  const auto count = static_cast<std::uint32_t>((range.end - range.begin) / frame_size);
  if (fill.reserve(count) != count) return 0;
  for (std::uint32_t i = 0; i < count; ++i) fill.at(i) = range.begin + std::uint64_t{i} * frame_size;
  fill.submit(count);
  return count;
}

std::uint32_t drain_rx(Socket& socket, Tally& tally, FrameRange range, std::uint32_t max) {
  RxRing& rx = socket.rx();
  FillRing& fill = socket.fill();
  Umem& umem = socket.umem();
  const std::uint32_t frame_size = umem.config().frame_size;
  const std::uint32_t n = rx.peek(max);
  if (n == 0) return 0;
  // Every frame on rx came off this fill ring, so the same count always fits back on it.
  const std::uint32_t refill = fill.reserve(n);
  for (std::uint32_t i = 0; i < n; ++i) {
    const xdp_desc& desc = rx.at(i);
    const std::uint64_t base = desc.addr - desc.addr % frame_size;
    if (!umem.contains(desc.addr, desc.len) || base < range.begin || base >= range.end) {
      tally.add_bad_descriptor();
    } else {
      tally.add(reinterpret_cast<const std::uint8_t*>(umem.data(desc.addr)), desc.len);
    }
    if (refill == n) fill.at(i) = base;
  }
  if (refill == n) fill.submit(n);
  rx.release(n);
  if (refill != n) tally.add_bad_descriptor();  // the fill ring had no room: frames leaked
  return n;
}

}  // namespace afxdp::test
