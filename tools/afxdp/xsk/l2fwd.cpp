#include "xsk/l2fwd.hpp"

#include "common/frame_fit.hpp"

#include <afxdp/net.hpp>

#include <chrono>
#include <memory>

namespace afxdp::tool {

Verdict SwapMacs::operator()(Frame& frame) const noexcept {
  // Shorter than an Ethernet header: nothing to send back.
  return net::swap_macs(frame.data()) ? Verdict::send_back : Verdict::drop;
}

void l2fwd_loop(Queue& q, const std::stop_token& stop, const QueueContext& c) {
  while (!stop.stop_requested()) {
    const std::uint32_t claimed = c.budget.claim(c.options.batch);
    if (claimed == 0) break;  // -C reached
    const std::uint32_t n = q.serve(SwapMacs{}, claimed);
    c.budget.refund(claimed - n);
    if (n == 0) q.wait(c.idle_timeout);
  }
  // -C reached: let the kernel send what was forwarded before the summary counts it.
  if (!stop.stop_requested()) q.drain(std::chrono::seconds(1));
}

void l2fwd_packets_loop(Queue& q, const std::stop_token& stop, const QueueContext& c) {
  while (!stop.stop_requested()) {
    const std::uint32_t claimed = c.budget.claim(c.options.batch);
    if (claimed == 0) break;
    std::uint32_t packets = 0;
    const std::uint32_t n = q.serve_packets(
        [&](Packet& packet) {
          ++packets;
          return SwapMacs{}(packet);
        },
        claimed);
    c.budget.refund(claimed - packets);
    if (n == 0) q.wait(c.idle_timeout);
  }
  if (!stop.stop_requested()) q.drain(std::chrono::seconds(1));
}

Subcommand add_l2fwd_subcommand(CLI::App& parent) {
  auto options = std::make_shared<XskOptions>();
  CLI::App* app = add_xsk_subcommand(parent, *options, Benchmark::l2fwd,
                                     "send every frame back out, MAC addresses swapped");
  return {app, [options] {
            check_frame_fits_mtu(options->interface, options->frame_size, options->frags);
            return options->frags ? run_benchmark(*options, l2fwd_packets_loop)
                                  : run_benchmark(*options, l2fwd_loop);
          }};
}

}  // namespace afxdp::tool
