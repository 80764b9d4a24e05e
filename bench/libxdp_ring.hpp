// libxdp's own ring helpers (<xdp/xsk.h>, Debian's libxdp-dev) behind the interface
// bench/ring_bench.cpp drives, so that the reference is measured in the same harness, on the same
// memory, in the same run as our rings. Only the header's inline helpers are used: nothing is
// linked from libxdp.
//
// Threading: one thread per side, as for the real rings. Benchmark-only.
#pragma once

#include <xdp/xsk.h>

#include <afxdp/rings/ring.hpp>
#include <cstdint>

namespace afxdp::bench {

namespace detail_libxdp {
// xsk_socket__create fills these structures from the mmap offsets; here from a RingLayout.
template <class XskRing>
XskRing from_layout(const RingLayout& l, bool producer) noexcept {
  XskRing r{};
  r.mask = l.size - 1;
  r.size = l.size;
  r.producer = l.producer;
  r.consumer = l.consumer;
  r.ring = l.entries;
  r.flags = l.flags;
  r.cached_prod = *l.producer;
  r.cached_cons = *l.consumer;
  if (producer) r.cached_cons += l.size;  // as libxdp's xsk_socket__create does for tx and fill
  return r;
}
}  // namespace detail_libxdp

class LibxdpProducer {
 public:
  explicit LibxdpProducer(const RingLayout& l) noexcept
      : ring_(detail_libxdp::from_layout<xsk_ring_prod>(l, true)) {}

  std::uint32_t reserve(std::uint32_t n) noexcept {
    return xsk_ring_prod__reserve(&ring_, n, &index_);
  }
  xdp_desc& at(std::uint32_t i) noexcept { return *xsk_ring_prod__tx_desc(&ring_, index_ + i); }
  void submit(std::uint32_t n) noexcept { xsk_ring_prod__submit(&ring_, n); }

 private:
  xsk_ring_prod ring_;
  std::uint32_t index_ = 0;
};

class LibxdpConsumer {
 public:
  explicit LibxdpConsumer(const RingLayout& l) noexcept
      : ring_(detail_libxdp::from_layout<xsk_ring_cons>(l, false)) {}

  std::uint32_t peek(std::uint32_t max) noexcept {
    return xsk_ring_cons__peek(&ring_, max, &index_);
  }
  [[nodiscard]] const xdp_desc& at(std::uint32_t i) const noexcept {
    return *xsk_ring_cons__rx_desc(&ring_, index_ + i);
  }
  void release(std::uint32_t n) noexcept { xsk_ring_cons__release(&ring_, n); }

 private:
  xsk_ring_cons ring_;
  std::uint32_t index_ = 0;
};

}  // namespace afxdp::bench
