#include "rxdrop.hpp"

#include "idle.hpp"

#include <memory>
#include <poll.h>

namespace afxdp::tool {

void rxdrop_loop(Worker& w) {
  RxRing& rx = w.socket->rx();
  FillRing& fill = w.socket->fill();
  const BenchOptions& o = *w.options;
  IdleWait idle;
  while (!w.stopping() && !w.budget->exhausted()) {
    std::uint32_t n = rx.peek(o.batch);
    if (n == 0) {
      Counters::add(w.counters->empty_polls, 1);
      if (!w.wait_for_rx(idle)) return;
      continue;
    }
    idle.busy();
    const std::uint32_t counted = w.budget->claim(n);
    if (counted < n) rx.cancel(n - counted);  // beyond -C: leave them on the ring
    if (counted == 0) return;
    n = counted;
    // The frames we were handed go back out on the fill ring: room is there (a frame is in one
    // place at a time, and no more frames circulate than the fill ring holds).
    if (fill.reserve(n) != n) {
      rx.cancel(n);
      w.budget->refund(n);
      continue;
    }
    std::uint32_t back = 0;
    for (std::uint32_t i = 0; i < n; ++i) {
      if (w.refuse(rx.at(i))) [[unlikely]] continue;
      fill.at(back) = w.frame_of(rx.at(i).addr);
      w.record(fill.at(back), FramePlace::fill, FramePlace::application);  // rx peek
      w.record(fill.at(back), FramePlace::application, FramePlace::fill);  // straight back
      ++back;
    }
    fill.cancel(n - back);
    fill.submit(back);
    rx.release(n);
    Counters::add(w.counters->rx, n);
  }
}

Command add_rxdrop(CLI::App& parent) {
  auto options = std::make_shared<BenchOptions>();
  CLI::App* app = add_bench_subcommand(parent, *options, Benchmark::rxdrop,
                                       "receive on each queue and drop (recycle) every frame");
  return {app, [options] { return run_benchmark(*options, {fill_frames, rxdrop_loop}); }};
}

}  // namespace afxdp::tool
