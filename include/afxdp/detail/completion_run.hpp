// Completions going home: the loop of Queue::complete_slow over the completed addresses that
// belong to one queue (its "home"), as a function of plain values, so that a test runs the
// checked build's variant and Release's side by side. Internal.
#pragma once

#include <afxdp/detail/frame_geometry.hpp>

#include <cstddef>
#include <cstdint>

namespace afxdp::detail {

// A queue's frames [first, first + span), their on-tx marks (a byte per frame, index (chunk -
// first) >> shift), and where completed ones are written (its pool's spare slots: room for a
// whole batch).
struct HomeRange {
  std::uint64_t first = 0;
  std::uint64_t span = 0;
  std::uint8_t* on_tx = nullptr;
  std::uint32_t shift = 0;
  std::uint64_t* free = nullptr;
};

// The completed addresses in[0, size), while they are home's frames: each written to
// home.free[accepted] and counted in `accepted` when it was out on tx. Checked: its on-tx mark
// was set (and is cleared); a duplicate, or a frame never sent, is written over and not counted.
// Release trusts the kernel to complete what was sent, once. Returns how many it went through:
// size, or where an address of another home starts.
template <bool Unaligned, bool Checked>
std::size_t accept_run(const FrameGeometry& g, const HomeRange& home, const std::uint64_t* in,
                       std::size_t size, std::size_t& accepted) noexcept {
  std::uint64_t* const free = home.free + accepted;
  // in[from] written at free[to] (kept only when counted). False: not one of home's frames.
  const auto put = [&](std::size_t from, std::size_t to) {
    std::uint64_t chunk = in[from] & g.chunk_mask;
    // Linux 6.18's copy mode hands an odd tx address back one lower (it tags bit 0 of the skb's
    // destructor_arg); our tx addresses are frame starts, so take the nearest one.
    if constexpr (Unaligned) chunk = g.nearest_frame(chunk);
    free[to] = chunk;
    return chunk - home.first < home.span;
  };
  std::size_t k = 0;
  if constexpr (Checked) {
    std::size_t marked = 0;
    for (; k < size && put(k, marked); ++k) {
      std::uint8_t& mark = home.on_tx[(free[marked] - home.first) >> home.shift];
      marked += mark;
      mark = 0;
    }
    accepted += marked;
  } else {
    // Each of home's is accepted: the run's length is the count. Four to a turn on one index
    // for both arrays: the loop's own step and test were a quarter of its instructions a frame
    // otherwise (scripts/cost). The rest one at a time, from the start of a turn that stopped.
    for (; k + 4 <= size; k += 4) {
      if (!(put(k, k) && put(k + 1, k + 1) && put(k + 2, k + 2) && put(k + 3, k + 3))) [[unlikely]]
        break;
    }
    while (k < size && put(k, k)) ++k;
    accepted += k;
  }
  return k;
}

// Release, on a UMEM no other queue shares: every completed address is one of home's frames
// (the kernel completes what was sent), so a whole run is taken with no test: the frames' starts
// written to free[0, size), one masked copy the compiler vectorises.
inline void accept_all(const FrameGeometry& g, const std::uint64_t* in, std::size_t size,
                       std::uint64_t* free) noexcept {
  const std::uint64_t mask = g.chunk_mask;
#pragma GCC unroll 4
  for (std::size_t k = 0; k < size; ++k) free[k] = in[k] & mask;
}

}  // namespace afxdp::detail
