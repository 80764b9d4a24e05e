// What Queue::receive hands its reader: Frames, the batch as a range over the received
// descriptors themselves. A Frame is built when it is read (in registers, once the reader is
// inlined), so a reader pays only for what it looks at: one that counts sizes reads one field a
// frame, one that ignores the batch reads nothing. Valid until the reader returns.
//
// Threading: the Queue's thread.
#pragma once

#include <afxdp/detail/frame_geometry.hpp>
#include <afxdp/frame.hpp>
#include <afxdp/rings/ring.hpp>

#include <linux/if_xdp.h>

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <iterator>

namespace afxdp {

class Frames {
 public:
  // Each Frame a prvalue: `for (Frame f : frames)` or `const Frame& f`, and Queue::keep(f) on the
  // one you read (keep refuses a frame already kept, whichever Frame of it is asked).
  class iterator {
   public:
    using iterator_concept = std::forward_iterator_tag;
    using value_type = Frame;
    using difference_type = std::ptrdiff_t;
    iterator() = default;
    Frame operator*() const noexcept { return frames_->operator[](i_); }
    iterator& operator++() noexcept {
      ++i_;
      return *this;
    }
    iterator operator++(int) noexcept {
      iterator before = *this;
      ++i_;
      return before;
    }
    bool operator==(const iterator& other) const noexcept { return i_ == other.i_; }

   private:
    friend class Frames;
    iterator(const Frames* frames, std::uint32_t i) noexcept : frames_(frames), i_(i) {}
    const Frames* frames_ = nullptr;
    std::uint32_t i_ = 0;
  };

  [[nodiscard]] std::uint32_t size() const noexcept { return descs_.size(); }
  [[nodiscard]] bool empty() const noexcept { return descs_.size() == 0; }
  // Frame i of the batch, as the kernel wrote it (the same frame each time it is read).
  Frame operator[](std::uint32_t i) const noexcept {
    const xdp_desc& desc = descs_[i];
    const std::uint64_t chunk = geo_.chunk(desc.addr);
    const std::uint64_t offset = geo_.unaligned ? geo_.offset_in<true>(desc.addr, chunk)
                                                : geo_.offset_in<false>(desc.addr, chunk);
    return Frame(geo_.area + chunk + offset, desc.addr, desc.len,
                 static_cast<std::uint16_t>(offset), geo_.frame_size);
  }
  [[nodiscard]] iterator begin() const noexcept { return {this, 0}; }
  [[nodiscard]] iterator end() const noexcept { return {this, size()}; }

 private:
  friend class Queue;
  Frames(const RingWindow<const xdp_desc>& descs, const detail::FrameGeometry& geo) noexcept
      : descs_(descs), geo_(geo) {}
  RingWindow<const xdp_desc> descs_;
  detail::FrameGeometry geo_;
};

static_assert(std::forward_iterator<Frames::iterator>);

// A reader: called with each batch's Frames.
template <class R>
concept FrameReader = std::invocable<R&, Frames>;

}  // namespace afxdp
