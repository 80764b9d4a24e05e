#include "l2fwd.hpp"

#include "idle.hpp"
#include "packet.hpp"
#include "tx_budget.hpp"

#include <algorithm>
#include <memory>
#include <poll.h>

namespace afxdp::tool {
namespace {

// Completed frames go back to the fill ring. Room is always there: no more frames circulate than
// the fill ring holds.
// Returns how many were recycled.
std::uint32_t recycle_completions(Worker& w, std::uint32_t batch) {
  CompletionRing& completion = w.socket->completion();
  FillRing& fill = w.socket->fill();
  const std::uint32_t n = completion.peek(batch);  // all that is there: the kernel batches too
  if (n == 0) return 0;
  if (fill.reserve(n) != n) {
    completion.cancel(n);
    return 0;
  }
  for (std::uint32_t i = 0; i < n; ++i) {
    fill.at(i) = w.frame_of(completion.at(i));
    w.record(fill.at(i), FramePlace::tx, FramePlace::fill);
  }
  fill.submit(n);
  completion.release(n);
  Counters::add(w.counters->tx, n);
  return n;
}

}  // namespace

Verdict SwapMacs::operator()(std::uint8_t* frame, std::uint32_t length) const noexcept {
  if (length >= 14) [[likely]] {
    swap_macs(frame);
    return Verdict::forward;
  }
  return Verdict::drop;  // shorter than an Ethernet header: nothing to send back
}

template <class Handler>
void forward_loop(Worker& w, Handler handler) {
  const BenchOptions& o = *w.options;
  RxRing& rx = w.socket->rx();
  TxRing& tx = w.socket->tx();
  FillRing& fill = w.socket->fill();
  CompletionRing& completion = w.socket->completion();
  // Copy mode sends only when woken, 32 frames per sendto() before Linux 6.17 (more with
  // raise_tx_budget): kick once per few batches, and whenever rx runs dry, not after each batch.
  const std::uint32_t kick_at = std::min(tx.size() / 4, 4 * o.batch);
  IdleWait idle;
  std::uint64_t in_flight = 0;  // forwarded, not yet completed
  while (!w.stopping() && !w.budget->exhausted()) {
    in_flight -= recycle_completions(w, completion.size());
    std::uint32_t n = rx.peek(o.batch);
    if (n == 0) {
      Counters::add(w.counters->empty_polls, 1);
      // Frames still waiting on the tx ring need a kick; an empty rx ring may need the kernel
      // told that the fill ring has frames, or busy-poll runs the NAPI poll in recvfrom.
      if (tx.outstanding() != 0 && (o.no_need_wakeup || tx.needs_wakeup())) {
        if (!w.wake_tx()) return;
        continue;  // completions may follow at once
      }
      if (!w.wait_for_rx(idle)) return;
      continue;
    }
    idle.busy();
    const std::uint32_t counted = w.budget->claim(n);
    if (counted < n) rx.cancel(n - counted);  // beyond -C: leave them on the ring
    if (counted == 0) break;
    n = counted;
    if (tx.reserve(n) != n) {
      // The tx ring is full: kick it, and come back for these frames on the next turn.
      rx.cancel(n);
      w.budget->refund(n);
      if (!w.wake_tx()) return;
      continue;
    }
    std::uint32_t sent = 0;
    for (std::uint32_t i = 0; i < n; ++i) {
      const xdp_desc& desc = rx.at(i);
      if (w.refuse(desc)) [[unlikely]] continue;
      // The data, wherever the descriptor's mode puts it; in unaligned mode the rx descriptor
      // goes out on tx unchanged, since the kernel reads tx addresses the same way.
      auto* frame = reinterpret_cast<std::uint8_t*>(w.umem->packet(desc).data());
      const Verdict verdict = handler(frame, desc.len);
      w.record(desc.addr, FramePlace::fill, FramePlace::application);
      // In order of likelihood: forwarding is the rule, a drop the exception.
      if (verdict == Verdict::forward) [[likely]] {
        tx.at(sent++) = desc;
        w.record(desc.addr, FramePlace::application, FramePlace::tx);
      } else if (fill.reserve(1) == 1) {
        fill.at(0) = w.frame_of(desc.addr);  // a dropped frame goes straight back to the kernel
        w.record(desc.addr, FramePlace::application, FramePlace::fill);
        fill.submit(1);
      }
    }
    tx.cancel(n - sent);
    tx.submit(sent);
    in_flight += sent;
    rx.release(n);
    Counters::add(w.counters->rx, n);
    if (sent != 0 && tx.outstanding() >= kick_at && (o.no_need_wakeup || tx.needs_wakeup())) {
      if (!w.wake_tx()) return;
    }
  }
  // -C reached: wait until the kernel has sent what we forwarded.
  while (in_flight != 0 && !w.stopping()) {
    in_flight -= recycle_completions(w, completion.size());
    if (tx.outstanding() != 0 && (o.no_need_wakeup || tx.needs_wakeup())) {
      if (!w.wake_tx()) return;
    }
  }
}

void l2fwd_loop(Worker& w) { forward_loop(w, SwapMacs{}); }

void l2fwd_prepare(Worker& w) {
  raise_tx_budget(*w.socket);
  fill_frames(w);
}

Command add_l2fwd(CLI::App& parent) {
  auto options = std::make_shared<BenchOptions>();
  CLI::App* app = add_bench_subcommand(parent, *options, Benchmark::l2fwd,
                                       "send every frame back out, MAC addresses swapped");
  return {app, [options] { return run_benchmark(*options, {l2fwd_prepare, l2fwd_loop}); }};
}

}  // namespace afxdp::tool
