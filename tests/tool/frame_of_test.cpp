// Worker::frame_of and Worker::record on the addresses the kernel hands back: rx descriptors
// (past the headroom; in unaligned mode with the offset in the upper 16 bits) and completions
// (the tx address as submitted) must name the frame that was lent. No kernel: only arithmetic.
#include <bench_run.hpp>

#include <gtest/gtest.h>

#include <cstdint>

namespace {

using afxdp::FrameLedger;
using afxdp::FramePlace;
using afxdp::UmemConfig;
using afxdp::tool::Worker;

constexpr std::uint64_t offset_shift = 48;  // XSK_UNALIGNED_BUF_OFFSET_SHIFT

void set_up(Worker& w, const UmemConfig& config, std::uint64_t first_addr) {
  w.frame_size = config.frame_size;
  w.frames = 8;
  w.first_addr = first_addr;
  w.chunk_mask = afxdp::chunk_mask(config);
  w.ledger = FrameLedger(w.frames, w.frame_size);
}

TEST(WorkerFrameOf, AlignedRxAddressesGoBackToTheirFrame) {
  Worker w;
  set_up(w, {.frame_size = 4096}, 0);
  EXPECT_EQ(w.frame_of(4096 * 5 + 256), 4096U * 5);
  EXPECT_EQ(w.frame_of(4096 * 5), 4096U * 5);
  EXPECT_EQ(w.frame_of(4096 * 5 + 4095), 4096U * 5);
  set_up(w, {.frame_size = 2048}, 0);
  EXPECT_EQ(w.frame_of(2048 * 3 + 256), 2048U * 3);
}

TEST(WorkerFrameOf, UnalignedRxAddressesGoBackToTheirBase) {
  Worker w;
  const UmemConfig config{.frame_size = 3000, .unaligned_chunks = true, .hugepages = true};
  set_up(w, config, 3000 * 8);  // a second queue's share of a shared UMEM
  for (std::uint64_t i = 0; i < 8; ++i) {
    const std::uint64_t base = w.first_addr + i * 3000;
    EXPECT_EQ(w.frame_of(base | std::uint64_t{256} << offset_shift), base) << i;
    EXPECT_EQ(w.frame_of(base | std::uint64_t{0xFFFF} << offset_shift), base) << i;
    EXPECT_EQ(w.frame_of(base), base) << i;  // a completion of a plain tx address
  }
}

TEST(WorkerFrameOf, LedgerFollowsAFrameThroughUnalignedAddresses) {
  if (!FrameLedger::enabled) GTEST_SKIP() << "built without AFXDP_FRAME_LEDGER";
  Worker w;
  set_up(w, {.frame_size = 3000, .unaligned_chunks = true, .hugepages = true}, 0);
  const std::uint64_t base = 3000 * 6;
  const std::uint64_t rx = base | std::uint64_t{256} << offset_shift;
  w.record(base, FramePlace::free, FramePlace::fill);            // lent
  w.record(rx, FramePlace::fill, FramePlace::application);       // received
  w.record(rx, FramePlace::application, FramePlace::tx);         // forwarded as it came
  w.record(rx, FramePlace::tx, FramePlace::fill);                // completed, lent again
  EXPECT_EQ(w.ledger.errors(), 0U) << w.ledger.first_error();
  EXPECT_EQ(w.ledger.count(FramePlace::fill), 1U);
  EXPECT_EQ(w.ledger.count(FramePlace::free), 7U);
}

}  // namespace
