#include "xsk_fixture.hpp"

#include <bpf/bpf.h>
#include <linux/bpf.h>

#include <cerrno>

namespace afxdp::test {
namespace {
constexpr std::uint8_t ethertype_high = 0x88;  // 0x88B5, the type lab::test_frame writes
constexpr std::uint8_t ethertype_low = 0xB5;
}  // namespace

UniqueFd load_pass_program() {
  const bpf_insn program[] = {
      {.code = BPF_ALU64 | BPF_MOV | BPF_K,
       .dst_reg = BPF_REG_0,
       .src_reg = 0,
       .off = 0,
       .imm = XDP_PASS},
      {.code = BPF_JMP | BPF_EXIT, .dst_reg = 0, .src_reg = 0, .off = 0, .imm = 0},
  };
  const int fd = bpf_prog_load(BPF_PROG_TYPE_XDP, "pass", "GPL", program, 2, nullptr);
  if (fd < 0) errno = -fd;
  return UniqueFd::adopt(fd, "bpf_prog_load(XDP_PASS)");
}

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
  std::string text = std::to_string(unique_) + " of " + std::to_string(seen_.size()) + " unique, " +
                     std::to_string(duplicates_) + " duplicates, " + std::to_string(corrupt_) +
                     " corrupt, " + std::to_string(out_of_range_) + " out of range, " +
                     std::to_string(bad_descriptors_) + " bad descriptors" +
                     (first_bad_.empty() ? "" : " (first: " + first_bad_ + ")") + ", " +
                     std::to_string(others_) + " other frames";
  for (std::size_t i = 0; i < seen_.size(); ++i) {
    if (seen_[i] == 0) return text + ", first missing " + std::to_string(i);
  }
  return text;
}

std::uint32_t lend_frames(FillRing& fill, FrameRange range, std::uint32_t frame_size) {
  const auto count = static_cast<std::uint32_t>((range.end - range.begin) / frame_size);
  if (fill.reserve(count) != count) return 0;
  for (std::uint32_t i = 0; i < count; ++i)
    fill.at(i) = range.begin + std::uint64_t{i} * frame_size;
  fill.submit(count);
  return count;
}

void Receiver::refill() {
  FillRing& fill = socket_.fill();
  const auto wanted = static_cast<std::uint32_t>(waiting_.size());
  std::uint32_t n = fill.free_slots(wanted);
  if (n > wanted) n = wanted;
  if (n == 0 || fill.reserve(n) != n) return;
  for (std::uint32_t i = 0; i < n; ++i) fill.at(i) = waiting_[waiting_.size() - n + i];
  fill.submit(n);
  waiting_.resize(waiting_.size() - n);
}

std::uint32_t Receiver::drain(Tally& tally, std::uint32_t max) {
  RxRing& rx = socket_.rx();
  Umem& umem = socket_.umem();
  const std::uint32_t frame_size = umem.config().frame_size;
  const std::uint32_t n = rx.peek(max);
  for (std::uint32_t i = 0; i < n; ++i) {
    const xdp_desc& desc = rx.at(i);
    const std::uint64_t base = desc.addr - desc.addr % frame_size;
    if (!umem.contains(desc.addr, desc.len) || base < range_.begin || base >= range_.end) {
      tally.add_bad_descriptor("addr " + std::to_string(desc.addr) + " len " +
                               std::to_string(desc.len) + " outside [" +
                               std::to_string(range_.begin) + ", " + std::to_string(range_.end) +
                               ") of " + socket_.name());
    } else {
      tally.add(reinterpret_cast<const std::uint8_t*>(umem.data(desc.addr)), desc.len);
    }
    waiting_.push_back(base);
  }
  rx.release(n);  // read before released: the frames are ours until they go back on fill
  refill();
  return n;
}

}  // namespace afxdp::test
