// detail::accept_run and accept_all, complete_slow's loops over one home's completions, in both
// builds' variants: Release's (four to a turn, the run's length counted; a whole run with no test
// on a UMEM of its own) is built in no test preset's library, so it is checked here, at every
// place a run can stop.
#include <afxdp/detail/completion_run.hpp>

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <vector>

namespace {

using afxdp::detail::accept_all;
using afxdp::detail::accept_run;
using afxdp::detail::FrameGeometry;
using afxdp::detail::HomeRange;

constexpr std::uint64_t frame_size = 2048;
constexpr std::uint64_t first = 4 * frame_size;  // the home's frames: [first, first + span)
constexpr std::uint64_t frames = 16;

FrameGeometry geometry() {
  FrameGeometry g;
  g.chunk_mask = ~(frame_size - 1);
  g.first = first;
  g.span = frames * frame_size;
  g.frame_size = frame_size;
  g.frame_shift = 11;
  return g;
}

struct Home {
  std::vector<std::uint8_t> on_tx = std::vector<std::uint8_t>(frames, 1);  // all out on tx
  std::vector<std::uint64_t> free = std::vector<std::uint64_t>(std::size_t{2} * 64, 0);
  HomeRange range() { return {first, frames * frame_size, on_tx.data(), 11, free.data()}; }
};

// size completions of home frames (an offset in each, as the kernel may hand back), with one of
// another home's at `foreign` (none when foreign >= size).
std::vector<std::uint64_t> completions(std::size_t size, std::size_t foreign) {
  std::vector<std::uint64_t> in;
  for (std::size_t i = 0; i < size; ++i) {
    in.push_back(i == foreign ? first + frames * frame_size
                              : first + (i % frames) * frame_size + i);
  }
  return in;
}

template <bool Checked>
void expect_stops_at_each_place() {
  for (std::size_t size = 0; size <= 13; ++size) {
    for (std::size_t foreign = 0; foreign <= size; ++foreign) {
      SCOPED_TRACE(testing::Message() << "size " << size << ", another home's at " << foreign);
      Home home;
      const std::vector<std::uint64_t> in = completions(size, foreign);
      std::size_t accepted = 3;  // a run of this home's written before: kept
      const std::size_t went =
          accept_run<false, Checked>(geometry(), home.range(), in.data(), in.size(), accepted);
      EXPECT_EQ(went, foreign);
      EXPECT_EQ(accepted, 3 + foreign);
      for (std::size_t i = 0; i < foreign; ++i) EXPECT_EQ(home.free[3 + i], in[i] - i);
    }
  }
}

TEST(CompletionRun, ReleaseStopsWhereAnotherHomeStarts) { expect_stops_at_each_place<false>(); }
TEST(CompletionRun, CheckedStopsWhereAnotherHomeStarts) { expect_stops_at_each_place<true>(); }

TEST(CompletionRun, CheckedRefusesAFrameNotOutOnTx) {
  Home home;
  home.on_tx[1] = 0;  // never sent, or completed already
  const std::vector<std::uint64_t> in = completions(4, 4);
  std::size_t accepted = 0;
  EXPECT_EQ((accept_run<false, true>(geometry(), home.range(), in.data(), 4, accepted)), 4U);
  EXPECT_EQ(accepted, 3U);
  EXPECT_EQ(home.free[1], first + 2 * frame_size);              // frame 1 written over by the next
  EXPECT_EQ(home.on_tx[0] + home.on_tx[2] + home.on_tx[3], 0);  // accepted once: marks cleared
}

TEST(CompletionRun, UnalignedTakesTheNearestFrameStart) {
  FrameGeometry g = geometry();
  g.chunk_mask = ~std::uint64_t{0};
  Home home;
  const std::vector<std::uint64_t> in{first + frame_size - 1, first + 2 * frame_size};
  std::size_t accepted = 0;
  EXPECT_EQ((accept_run<true, false>(g, home.range(), in.data(), 2, accepted)), 2U);
  EXPECT_EQ(home.free[0], first + frame_size);
  EXPECT_EQ(home.free[1], first + 2 * frame_size);
}

// Release on a UMEM of its own: a whole run taken, each address at its frame's start.
TEST(CompletionRun, AcceptAllWritesEachFramesStart) {
  for (std::size_t size = 0; size <= 13; ++size) {
    Home home;
    const std::vector<std::uint64_t> in = completions(size, size);
    accept_all(geometry(), in.data(), in.size(), home.free.data() + 1);
    for (std::size_t i = 0; i < size; ++i) EXPECT_EQ(home.free[1 + i], in[i] - i) << i;
    EXPECT_EQ(home.free[0], 0U);
    EXPECT_EQ(home.free[1 + size], 0U) << "nothing past the run";
  }
}

}  // namespace
