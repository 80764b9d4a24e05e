// afxdp txpush: send one UDP frame, written once into every free frame of each queue, as fast as
// the kernel takes it (or at --rate); or replay a pcap capture (--pcap), read once and shared
// read-only by every queue.
#pragma once

#include "common/pcap.hpp"
#include "subcommands.hpp"
#include "xsk/xsk_run.hpp"

#include <cstdint>
#include <vector>

namespace afxdp::tool {

Subcommand add_txpush_subcommand(CLI::App& parent);

// What every queue sends: the UDP frame, or the capture's frames in order.
struct TxFrames {
  std::vector<std::uint8_t> packet;
  PcapFrames replay;
  std::uint64_t replay_total = 0;  // frames to send in all (--loop times the capture), per queue
};

// The frames -s/-G/-H/... or --pcap ask for (reads the capture; throws on a bad one).
TxFrames tx_frames(const XskOptions& options);

void txpush_loop(Queue& queue, const std::stop_token& stop, const QueueContext& context,
                 const TxFrames& frames);

}  // namespace afxdp::tool
