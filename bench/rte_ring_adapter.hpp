// DPDK's rte_ring (Debian's libdpdk-dev, optional) behind the interface bench/ring_bench.cpp
// drives: single producer, single consumer, 16-byte elements, through DPDK's zero-copy calls, so
// that, like our rings, the producer writes descriptors in place between reserve and submit and
// the consumer reads them in place between peek and release. rte_ring keeps no cached copy of the
// peer's index: every start call reads it, as bench/naive_ring.hpp does.
//
// The ring lives in memory of its own (rte_ring_init, no EAL), not in the harness's RingLayout:
// its indices sit in its own header. Threading: one thread per side. Benchmark-only.
#pragma once

#include <afxdp/rings/ring.hpp>

#include <rte_ring.h>
#include <rte_ring_elem.h>

#include <cstdint>
#include <cstdlib>
#include <memory>
#include <stdexcept>

namespace afxdp::bench {

// One rte_ring shared by the two adapters below, sized like the harness's ring.
class RteRingMemory {
 public:
  explicit RteRingMemory(std::uint32_t entries) {
    const ssize_t bytes = rte_ring_get_memsize_elem(sizeof(xdp_desc), entries);
    if (bytes < 0) throw std::runtime_error("rte_ring_get_memsize_elem failed");
    memory_.reset(std::aligned_alloc(64, (static_cast<std::size_t>(bytes) + 63) / 64 * 64));
    ring_ = static_cast<rte_ring*>(memory_.get());
    // Without RING_F_EXACT_SZ: `entries` slots, of which rte_ring uses entries - 1.
    if (rte_ring_init(ring_, "ring_bench", entries, RING_F_SP_ENQ | RING_F_SC_DEQ) != 0) {
      throw std::runtime_error("rte_ring_init failed");
    }
  }
  [[nodiscard]] rte_ring* ring() const noexcept { return ring_; }

 private:
  struct Free {
    void operator()(void* p) const noexcept { std::free(p); }
  };
  std::unique_ptr<void, Free> memory_;
  rte_ring* ring_ = nullptr;
};

// The zero-copy window of a start call: n1 elements at ptr1, the rest (after the wrap) at ptr2.
inline xdp_desc& element(const rte_ring_zc_data& window, std::uint32_t i) noexcept {
  return i < window.n1 ? static_cast<xdp_desc*>(window.ptr1)[i]
                       : static_cast<xdp_desc*>(window.ptr2)[i - window.n1];
}

class RteProducer {
 public:
  explicit RteProducer(const RteRingMemory& memory) noexcept : ring_(memory.ring()) {}
  std::uint32_t reserve(std::uint32_t n) noexcept {
    return rte_ring_enqueue_zc_bulk_elem_start(ring_, sizeof(xdp_desc), n, &window_, nullptr);
  }
  xdp_desc& at(std::uint32_t i) noexcept { return element(window_, i); }
  void submit(std::uint32_t n) noexcept { rte_ring_enqueue_zc_finish(ring_, n); }

 private:
  rte_ring* ring_;
  rte_ring_zc_data window_{};
};

class RteConsumer {
 public:
  explicit RteConsumer(const RteRingMemory& memory) noexcept : ring_(memory.ring()) {}
  std::uint32_t peek(std::uint32_t max) noexcept {
    return rte_ring_dequeue_zc_burst_elem_start(ring_, sizeof(xdp_desc), max, &window_, nullptr);
  }
  [[nodiscard]] const xdp_desc& at(std::uint32_t i) const noexcept { return element(window_, i); }
  void release(std::uint32_t n) noexcept { rte_ring_dequeue_zc_finish(ring_, n); }

 private:
  rte_ring* ring_;
  rte_ring_zc_data window_{};
};

}  // namespace afxdp::bench
