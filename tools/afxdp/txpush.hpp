// afxdp txpush: send one UDP frame, written once into every frame of the queue's share of the
// UMEM, as fast as the kernel takes it (or at --rate), recycling completed descriptors.
#pragma once

#include "bench_run.hpp"
#include "command.hpp"

namespace afxdp::tool {

Command add_txpush(CLI::App& parent);

// Writes the frame into each of the queue's tx frames (main thread, before the loop).
void txpush_prepare(Worker& worker);
// One queue's send loop.
void txpush_loop(Worker& worker);

}  // namespace afxdp::tool
