// afxdp l2fwd: send every received frame back out of the queue it came in on, MAC addresses
// swapped. No copy: the rx descriptor becomes the tx descriptor, and completed frames go back to
// the fill ring.
#pragma once

#include "bench_run.hpp"
#include "command.hpp"

#include <cstdint>

namespace afxdp::tool {

Command add_l2fwd(CLI::App& parent);

enum class Verdict { forward, drop };

// The per-packet step of l2fwd: swap the MAC addresses, or drop a runt.
struct SwapMacs {
  Verdict operator()(std::uint8_t* frame, std::uint32_t length) const noexcept;
};

// One queue's forwarding loop; the per-packet step is a template parameter, so it inlines.
template <class Handler>
void forward_loop(Worker& worker, Handler handler);

void l2fwd_loop(Worker& worker);

}  // namespace afxdp::tool
