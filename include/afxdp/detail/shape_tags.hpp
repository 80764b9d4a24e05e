// afxdp::detail::ShapeTags: the tag each steering shape (a distinct field mask) is published
// under in the redirect program: (generation << 6) | wide | slot (bpf/xsk_steer_shared.h). The
// program skips tag 0 ("no shape") and every hash key carries its shape's tag.
//
// Each slot counts its own generations, 1 .. 2^26 - 1, and then starts again at 1: a tag is
// never 0 (a wrap to generation 0 gave slot 0's narrow shape tag 0, listed but never matched:
// issue 41), and a slot's tag comes back only after 2^26 - 2 other shapes held that slot, each
// published after the one before was withdrawn and its entries deleted. A frame holds a tag for
// one program run, so it cannot meet a reused tag with the old mask.
//
// Threading: a value type; used under Steering's lock.
#pragma once

#include <array>
#include <cstdint>

namespace afxdp::detail {

class ShapeTags {
 public:
  static constexpr std::uint32_t slots = 32;     // AFXDP_STEER_SHAPES
  static constexpr std::uint32_t wide_bit = 32;  // AFXDP_STEER_WIDE
  static constexpr std::uint32_t shift = 6;      // the generation's place
  static constexpr std::uint32_t generations = 1U << (32 - shift);

  // Each slot's next tag has generation `first` (1 .. generations - 1); tests start near the wrap.
  explicit ShapeTags(std::uint32_t first = 1) noexcept {
    generation_.fill(first <= 1 || first >= generations ? generations - 1 : first - 1);
  }

  // The tag for a new shape in `slot` (< slots).
  std::uint32_t next(std::uint32_t slot, bool wide) noexcept {
    std::uint32_t& g = generation_.at(slot);
    g = g + 1 == generations ? 1 : g + 1;
    return (g << shift) | (wide ? wide_bit : 0U) | slot;
  }

 private:
  std::array<std::uint32_t, slots> generation_{};  // the last one each slot gave
};

}  // namespace afxdp::detail
