#include "xsk/l2fwd.hpp"

#include "common/frame_fit.hpp"
#include "common/packet.hpp"

#include <chrono>
#include <cmath>
#include <memory>

namespace afxdp::tool {

Verdict SwapMacs::operator()(Frame& frame) const noexcept {
  if (frame.size() >= 14) [[likely]] {
    swap_macs(reinterpret_cast<std::uint8_t*>(frame.data().data()));
    return Verdict::send_back;
  }
  return Verdict::drop;  // shorter than an Ethernet header: nothing to send back
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

Command add_l2fwd(CLI::App& parent) {
  auto options = std::make_shared<BenchOptions>();
  auto spin_us = std::make_shared<double>(0);
  CLI::App* app = add_bench_subcommand(parent, *options, Benchmark::l2fwd,
                                       "send every frame back out, MAC addresses swapped");
  // l2fwd's own option: a reflector's latency (afxdp latency), not a throughput setting.
  app->add_option("--spin-before-sleep", *spin_us,
                  "re-check the rx ring this many microseconds before giving the CPU away "
                  "(poll() with -p, else sched_yield()), 0 to 1000000")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 1e6));
  return {app, [options, spin_us] {
            check_frame_fits_mtu(options->interface, options->frame_size, options->frags);
            const auto spin = std::chrono::nanoseconds(std::llround(*spin_us * 1000));
            return run_benchmark(*options, options->frags ? l2fwd_packets_loop : l2fwd_loop,
                                 [spin](Port& port) {
                                   for (Queue& q : port.queues()) q.spin_before_sleep(spin);
                                 });
          }};
}

}  // namespace afxdp::tool
