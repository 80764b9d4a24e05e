#include "rxdrop.hpp"

#include <memory>

namespace afxdp::tool {

void rxdrop_loop(Queue& q, std::stop_token stop, const QueueContext& c) {
  while (!stop.stop_requested()) {
    const std::uint32_t claimed = c.budget.claim(c.options.batch);
    if (claimed == 0) return;  // -C reached
    const std::uint32_t n = q.receive([](std::span<Frame>) {}, claimed);
    c.budget.refund(claimed - n);
    if (n == 0) q.wait(c.idle_timeout);
  }
}

Command add_rxdrop(CLI::App& parent) {
  auto options = std::make_shared<BenchOptions>();
  CLI::App* app = add_bench_subcommand(parent, *options, Benchmark::rxdrop,
                                       "receive on each queue and drop (recycle) every frame");
  return {app, [options] { return run_benchmark(*options, rxdrop_loop); }};
}

}  // namespace afxdp::tool
