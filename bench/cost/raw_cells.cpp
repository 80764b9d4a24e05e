// The raw-ring examples' loops (examples/raw/minimal_rx.cpp's receive_batch, echo_rings.cpp's
// serve) written again over the Loopback's rings: the same ring verbs in the same order, with
// Umem's inline address arithmetic (UmemView, as Umem computes it). Only the
// loop's turn is counted.
#include "cells.hpp"
#include "meter.hpp"

#include <afxdp/xsk/umem.hpp>

#include <algorithm>

namespace afxdp::cost {
namespace {

// Umem's inline address arithmetic over the Loopback's area.
UmemView raw_umem(const testing::Loopback::Rings& r) {
  return {r.area, r.umem_size,
          UmemConfig{.frame_count = static_cast<std::uint32_t>(r.umem_size / r.frame_size),
                     .frame_size = r.frame_size}};
}

// minimal_rx's receive_batch without its handler (the test-frame check).
std::uint32_t receive_batch(const testing::Loopback::Rings& r, const UmemView& umem,
                            std::uint64_t& wakeups) {
  FillRing& fill = *r.fill;
  RxRing& rx = *r.rx;
  std::uint32_t n = rx.peek(64);
  if (n == 0) {
    if (fill.needs_wakeup()) ++wakeups;
    return 0;
  }
  if (const std::uint32_t room = fill.free_slots(n); room < n) {
    rx.cancel(n - room);
    n = room;
  }
  n = fill.reserve(n);
  const UmemView view = umem;  // a local copy: its fields stay in registers across the stores
  RingCursor<std::uint64_t> lend(fill.reserved());
  std::uint32_t refill = 0;
  for (const std::span<const xdp_desc> part : rx.peeked().parts()) {
    for (const xdp_desc& desc : part) {
      if (!view.trusted(desc)) continue;
      lend.put(view.chunk_of(desc.addr));
      ++refill;
    }
  }
  fill.cancel(n - refill);
  fill.submit(refill);
  rx.release(n);
  return n;
}

enum class RawVerdict { drop, transmit };

// echo_rings' serve<Handler>: completions to fill, rx to tx (or fill), kick while tx holds any.
template <class Handler>
std::uint32_t serve(testing::Loopback& lb, const testing::Loopback::Rings& r, const UmemView& umem,
                    Handler handler) {
  FillRing& fill = *r.fill;
  TxRing& tx = *r.tx;
  CompletionRing& completion = *r.completion;
  RxRing& rx = *r.rx;
  std::uint32_t done = completion.peek(64);
  if (const std::uint32_t room = fill.free_slots(done); room < done) {
    completion.cancel(done - room);
    done = room;
  }
  done = fill.reserve(done);
  std::uint32_t back = 0;
  for (std::uint32_t i = 0; i < done; ++i) {
    const std::uint64_t chunk = umem.chunk_of(completion.at(i));
    if (umem.contains(chunk, umem.config().frame_size)) fill.at(back++) = chunk;
  }
  fill.cancel(done - back);
  fill.submit(back);
  completion.release(done);

  std::uint32_t n = rx.peek(64);
  if (const std::uint32_t room = std::min(tx.free_slots(n), fill.free_slots(n)); room < n) {
    rx.cancel(n - room);
    n = room;
  }
  n = tx.reserve(n);
  n = fill.reserve(n);
  std::uint32_t sent = 0, dropped = 0;
  for (std::uint32_t i = 0; i < n; ++i) {
    const xdp_desc d = rx.at(i);
    if (!umem.contains(umem.resolve(d.addr), d.len)) continue;
    const std::span<std::byte> bytes = umem.packet(d);
    if (handler(bytes.data(), d.len) == RawVerdict::transmit) {
      tx.at(sent++) = d;
    } else {
      fill.at(dropped++) = umem.chunk_of(d.addr);
    }
  }
  rx.release(n);
  tx.cancel(n - sent);
  tx.submit(sent);
  fill.cancel(n - dropped);
  fill.submit(dropped);
  if (tx.outstanding() != 0 && tx.needs_wakeup()) lb.kick(0);
  return n;
}

void rxdrop_cell(const Run& run) {
  testing::Loopback lb(loopback_config());
  const testing::Loopback::Rings r = lb.rings(0);
  const UmemView umem = raw_umem(r);
  const auto packet = test_packet();
  std::uint64_t wakeups = 0;
  Meter m("raw.rxdrop", run);
  m.run(
      [&](Meter& meter) {
        arrive(lb, 0, packet, meter.batch_size());
        return meter.measured([&] { return receive_batch(r, umem, wakeups); });
      },
      [&] { return wakeups; });
}

template <class Handler>
void echo_cell(const std::string& name, const Run& run, Handler handler) {
  testing::Loopback lb(loopback_config());
  const testing::Loopback::Rings r = lb.rings(0);
  const UmemView umem = raw_umem(r);
  const auto packet = test_packet();
  Meter m(name, run);
  m.run(
      [&](Meter& meter) {
        arrive(lb, 0, packet, meter.batch_size());
        const std::uint32_t n = meter.measured([&] { return serve(lb, r, umem, handler); });
        (void)lb.transmitted(0);
        return n;
      },
      [&] { return lb.kicks(0); });
}

}  // namespace

void raw_cells(const Run& run, const Select& select) {
  if (select("raw.rxdrop")) rxdrop_cell(run);
  if (select("raw.echo")) {
    echo_cell("raw.echo", run, [](std::byte*, std::uint32_t) { return RawVerdict::transmit; });
  }
  if (select("raw.echo+swap")) {
    echo_cell("raw.echo+swap", run, [](std::byte* frame, std::uint32_t length) {
      if (length < 14) return RawVerdict::drop;
      swap_macs(frame);
      return RawVerdict::transmit;
    });
  }
}

}  // namespace afxdp::cost
