// Which Queue lent a frame, for the queues that share one UMEM (Port::open_pair, shared_umem):
// a frame forwarded out of another queue comes back on that queue's completion ring and must
// go home. Queue i owns [first + i * span, first + (i + 1) * span), which is its own frames (its
// FrameGeometry's first and span): Queue::home_of relies on it.
#pragma once

#include <afxdp/queue.hpp>

#include <cstdint>
#include <vector>

namespace afxdp::detail {

struct FrameOwners {
  std::uint64_t first = 0;
  std::uint64_t span = 1;
  std::vector<Queue*> queues;

  [[nodiscard]] Queue* owner_of(std::uint64_t chunk) const noexcept {
    const std::uint64_t i = (chunk - first) / span;
    return chunk >= first && i < queues.size() ? queues[i] : nullptr;
  }
};

}  // namespace afxdp::detail
