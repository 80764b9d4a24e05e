// afxdp l2fwd: send every received frame back out of the queue it came in on, MAC addresses
// swapped. No copy: the rx descriptor becomes the tx descriptor (Queue::serve).
#pragma once

#include "subcommands.hpp"
#include "xsk/xsk_run.hpp"

namespace afxdp::tool {

Subcommand add_l2fwd_subcommand(CLI::App& parent);

// The per-packet step of l2fwd: swap the MAC addresses, or drop a runt.
struct SwapMacs {
  Verdict operator()(Frame& frame) const noexcept;
  // -F: the Ethernet header is in the first fragment; the chain goes back whole.
  Verdict operator()(Packet& packet) const noexcept { return (*this)(packet[0]); }
};

void l2fwd_loop(Queue& queue, const std::stop_token& stop, const QueueContext& context);

}  // namespace afxdp::tool
