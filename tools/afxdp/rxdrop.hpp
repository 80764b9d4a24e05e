// afxdp rxdrop: receive on each queue and give every frame straight back to the fill ring.
#pragma once

#include "bench_run.hpp"
#include "command.hpp"

namespace afxdp::tool {

Command add_rxdrop(CLI::App& parent);

// One queue's receive-and-drop loop (exposed for tests).
void rxdrop_loop(Worker& worker);

}  // namespace afxdp::tool
