#include "xsk/rxdrop.hpp"

#include "common/frame_fit.hpp"

#include <memory>

namespace afxdp::tool {

void rxdrop_loop(Queue& q, const std::stop_token& stop, const QueueContext& c) {
  while (!stop.stop_requested()) {
    const std::uint32_t claimed = c.budget.claim(c.options.batch);
    if (claimed == 0) return;  // -C reached
    const std::uint32_t n = q.receive([](Frames) {}, claimed);
    c.budget.refund(claimed - n);
    if (n == 0) q.wait(c.idle_timeout);
  }
}

// -F: whole packets; -C and the batch count packets, a chain never split.
void rxdrop_packets_loop(Queue& q, const std::stop_token& stop, const QueueContext& c) {
  while (!stop.stop_requested()) {
    const std::uint32_t claimed = c.budget.claim(c.options.batch);
    if (claimed == 0) return;
    std::uint32_t packets = 0;
    const std::uint32_t n = q.receive_packets(
        [&](std::span<Packet> received) { packets = static_cast<std::uint32_t>(received.size()); },
        claimed);
    // A long chain may hold more packets' worth of descriptors than claimed, never more packets.
    c.budget.refund(claimed - packets);
    if (n == 0) q.wait(c.idle_timeout);
  }
}

Subcommand add_rxdrop_subcommand(CLI::App& parent) {
  auto options = std::make_shared<XskOptions>();
  CLI::App* app = add_xsk_subcommand(parent, *options, Benchmark::rxdrop,
                                     "receive on each queue and drop (recycle) every frame");
  return {app, [options] {
            check_frame_fits_mtu(options->interface, options->frame_size, options->frags);
            return options->frags ? run_benchmark(*options, rxdrop_packets_loop)
                                  : run_benchmark(*options, rxdrop_loop);
          }};
}

}  // namespace afxdp::tool
