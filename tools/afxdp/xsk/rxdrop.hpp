// afxdp rxdrop: receive on each queue and give every frame straight back to the kernel.
#pragma once

#include "subcommands.hpp"
#include "xsk/xsk_run.hpp"

namespace afxdp::tool {

Subcommand add_rxdrop_subcommand(CLI::App& parent);

// One queue's loop (exposed for tests).
void rxdrop_loop(Queue& queue, const std::stop_token& stop, const QueueContext& context);

}  // namespace afxdp::tool
