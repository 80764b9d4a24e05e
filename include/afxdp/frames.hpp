// What Queue::receive hands its reader: Frames, the batch as a view over the received
// descriptors themselves. A Frame is built when it is read (in registers, once the reader is
// inlined), so a reader pays only for what it looks at: one that counts sizes reads one field a
// frame, one that ignores the batch reads nothing. Valid until the reader returns; keep() refuses
// a Frame read from it after that.
//
// Threading: the Queue's thread.
#pragma once

#include <afxdp/detail/frame_geometry.hpp>
#include <afxdp/frame.hpp>
#include <afxdp/rings/ring.hpp>

#include <linux/if_xdp.h>

#include <compare>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <ranges>

namespace afxdp {

// A std::ranges view through view_base (clang 14's concept checks, which clang-tidy runs, reject
// view_interface's CRTP here, where g++ 12 accepts it).
class Frames : public std::ranges::view_base {
 public:
  // Each read builds a new Frame, a prvalue: `for (Frame f : frames)`, `const Frame&`, or
  // keep(frames[i]). A resize() changes that Frame only, not what the next read of it builds.
  class iterator;

  Frames() = default;
  [[nodiscard]] std::uint32_t size() const noexcept { return descs_.size(); }
  [[nodiscard]] bool empty() const noexcept { return descs_.size() == 0; }
  // Frame i of the batch, as the kernel wrote it.
  Frame operator[](std::uint32_t i) const noexcept {
    const xdp_desc& desc = descs_[i];
    const std::uint64_t chunk = geo_.chunk(desc.addr);
    const std::uint64_t offset = geo_.unaligned ? geo_.offset_in<true>(desc.addr, chunk)
                                                : geo_.offset_in<false>(desc.addr, chunk);
    return {geo_.area + chunk + offset,         desc.addr,       desc.len,
            static_cast<std::uint16_t>(offset), geo_.frame_size, batch_};
  }
  [[nodiscard]] iterator begin() const noexcept;
  [[nodiscard]] iterator end() const noexcept;

 private:
  friend class Queue;
  Frames(const RingWindow<const xdp_desc>& descs, const detail::FrameGeometry& geo,
         std::uint32_t batch) noexcept
      : descs_(descs), geo_(geo), batch_(batch) {}
  RingWindow<const xdp_desc> descs_{nullptr, 0, 0, 0};
  detail::FrameGeometry geo_;
  std::uint32_t batch_ = 0;  // the Queue's batch it belongs to (Frame::batch_)
};

class Frames::iterator {
 public:
  using iterator_concept = std::random_access_iterator_tag;
  using value_type = Frame;
  using difference_type = std::ptrdiff_t;
  iterator() = default;
  Frame operator*() const noexcept { return frames_[i_]; }
  Frame operator[](difference_type n) const noexcept {
    return frames_[static_cast<std::uint32_t>(i_ + n)];
  }
  iterator& operator++() noexcept { return *this += 1; }
  iterator operator++(int) noexcept {
    iterator before = *this;
    ++*this;
    return before;
  }
  iterator& operator--() noexcept { return *this -= 1; }
  iterator operator--(int) noexcept {
    iterator before = *this;
    --*this;
    return before;
  }
  iterator& operator+=(difference_type n) noexcept {
    i_ = static_cast<std::uint32_t>(i_ + n);
    return *this;
  }
  iterator& operator-=(difference_type n) noexcept { return *this += -n; }
  friend iterator operator+(iterator it, difference_type n) noexcept { return it += n; }
  friend iterator operator+(difference_type n, iterator it) noexcept { return it += n; }
  friend iterator operator-(iterator it, difference_type n) noexcept { return it -= n; }
  friend difference_type operator-(const iterator& a, const iterator& b) noexcept {
    return static_cast<difference_type>(a.i_) - static_cast<difference_type>(b.i_);
  }
  bool operator==(const iterator& other) const noexcept { return i_ == other.i_; }
  auto operator<=>(const iterator& other) const noexcept { return i_ <=> other.i_; }

 private:
  friend class Frames;
  iterator(const Frames& frames, std::uint32_t i) noexcept : frames_(frames), i_(i) {}
  // The view itself, not a pointer to it: an iterator outlives the Frames it came from (a
  // helper taking Frames by value may return one), not the batch.
  Frames frames_;
  std::uint32_t i_ = 0;
};

inline Frames::iterator Frames::begin() const noexcept { return {*this, 0}; }
inline Frames::iterator Frames::end() const noexcept { return {*this, size()}; }

static_assert(std::random_access_iterator<Frames::iterator>);
static_assert(std::ranges::random_access_range<Frames> && std::ranges::view<Frames>);

// A reader: called with each batch's Frames.
template <class R>
concept FrameReader = std::invocable<R&, Frames>;

}  // namespace afxdp

// Its iterators read the batch, not the Frames object: one outlives the other.
template <>
inline constexpr bool std::ranges::enable_borrowed_range<afxdp::Frames> = true;
