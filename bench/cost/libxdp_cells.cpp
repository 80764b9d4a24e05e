// libxdp's inline ring helpers (<xdp/xsk.h>) in xdpsock's order (xdp-tools' xdpsock: rx_drop,
// l2fwd with complete_tx_l2fwd, tx_only with complete_tx_only), on the Loopback's rings: the
// peer loop the issue measured at about 11 instructions a frame for rxdrop. The forward cell is
// not xdpsock's (it has none): its l2fwd with tx and completions on the other queue.
#include "cells.hpp"
#include "libxdp_ring.hpp"
#include "meter.hpp"

#include <xdp/xsk.h>

namespace afxdp::cost {
namespace {

using bench::detail_libxdp::from_layout;

// What xdpsock keeps per socket: the four rings, the UMEM buffer, tx outstanding.
struct Xsk {
  explicit Xsk(const testing::Loopback::Rings& r)
      : rx(from_layout<xsk_ring_cons>(r.rx_layout, false)),
        cq(from_layout<xsk_ring_cons>(r.completion_layout, false)),
        fq(from_layout<xsk_ring_prod>(r.fill_layout, true)),
        tx(from_layout<xsk_ring_prod>(r.tx_layout, true)),
        buffer(r.area),
        frame_size(r.frame_size),
        frames(static_cast<std::uint32_t>(r.umem_size / r.frame_size)) {}
  xsk_ring_cons rx, cq;
  xsk_ring_prod fq, tx;
  void* buffer;
  std::uint32_t frame_size, frames;
  std::uint32_t outstanding_tx = 0;
  std::uint64_t wakeups = 0;  // recvfrom/poll xdpsock would make (sendto: Loopback::kicks)
  std::uint64_t rx_npkts = 0;
};

std::uint32_t rx_drop(Xsk& x, std::uint32_t batch) {
  std::uint32_t idx_rx = 0, idx_fq = 0;
  const std::uint32_t rcvd = xsk_ring_cons__peek(&x.rx, batch, &idx_rx);
  if (rcvd == 0) {
    if (xsk_ring_prod__needs_wakeup(&x.fq)) ++x.wakeups;
    return 0;
  }
  std::uint32_t ret = xsk_ring_prod__reserve(&x.fq, rcvd, &idx_fq);
  while (ret != rcvd) {
    if (xsk_ring_prod__needs_wakeup(&x.fq)) ++x.wakeups;
    ret = xsk_ring_prod__reserve(&x.fq, rcvd, &idx_fq);
  }
  for (std::uint32_t i = 0; i < rcvd; ++i) {
    const std::uint64_t addr = xsk_ring_cons__rx_desc(&x.rx, idx_rx++)->addr;
    const std::uint64_t orig = xsk_umem__extract_addr(addr);
    *xsk_ring_prod__fill_addr(&x.fq, idx_fq++) = orig;
  }
  xsk_ring_prod__submit(&x.fq, rcvd);
  xsk_ring_cons__release(&x.rx, rcvd);
  x.rx_npkts += rcvd;
  return rcvd;
}

// complete_tx_l2fwd: kick, then completions of `out`'s tx back to `in`'s fill ring.
void complete_tx_l2fwd(testing::Loopback& lb, Xsk& in, Xsk& out, std::uint32_t out_queue,
                       std::uint32_t batch) {
  if (out.outstanding_tx == 0) return;
  if (xsk_ring_prod__needs_wakeup(&out.tx)) lb.kick(out_queue);
  const std::uint32_t ndescs = out.outstanding_tx > batch ? batch : out.outstanding_tx;
  std::uint32_t idx_cq = 0, idx_fq = 0;
  const std::uint32_t rcvd = xsk_ring_cons__peek(&out.cq, ndescs, &idx_cq);
  if (rcvd == 0) return;
  std::uint32_t ret = xsk_ring_prod__reserve(&in.fq, rcvd, &idx_fq);
  while (ret != rcvd) {
    if (xsk_ring_prod__needs_wakeup(&in.fq)) ++in.wakeups;
    ret = xsk_ring_prod__reserve(&in.fq, rcvd, &idx_fq);
  }
  for (std::uint32_t i = 0; i < rcvd; ++i) {
    *xsk_ring_prod__fill_addr(&in.fq, idx_fq++) = *xsk_ring_cons__comp_addr(&out.cq, idx_cq++);
  }
  xsk_ring_prod__submit(&in.fq, rcvd);
  xsk_ring_cons__release(&out.cq, rcvd);
  out.outstanding_tx -= rcvd;
}

// l2fwd: rx of `in` out of `out`'s tx (the same socket for xdpsock's own l2fwd).
template <bool Swap>
std::uint32_t l2fwd(testing::Loopback& lb, Xsk& in, Xsk& out, std::uint32_t out_queue,
                    std::uint32_t batch) {
  complete_tx_l2fwd(lb, in, out, out_queue, batch);
  std::uint32_t idx_rx = 0, idx_tx = 0;
  const std::uint32_t rcvd = xsk_ring_cons__peek(&in.rx, batch, &idx_rx);
  if (rcvd == 0) {
    if (xsk_ring_prod__needs_wakeup(&in.fq)) ++in.wakeups;
    return 0;
  }
  std::uint32_t ret = xsk_ring_prod__reserve(&out.tx, rcvd, &idx_tx);
  while (ret != rcvd) {
    complete_tx_l2fwd(lb, in, out, out_queue, batch);
    if (xsk_ring_prod__needs_wakeup(&out.tx)) lb.kick(out_queue);
    ret = xsk_ring_prod__reserve(&out.tx, rcvd, &idx_tx);
  }
  for (std::uint32_t i = 0; i < rcvd; ++i) {
    const xdp_desc* d = xsk_ring_cons__rx_desc(&in.rx, idx_rx++);
    const std::uint64_t orig = xsk_umem__extract_addr(d->addr);
    const std::uint32_t len = d->len;
    if constexpr (Swap) {
      auto* pkt = static_cast<std::byte*>(
          xsk_umem__get_data(in.buffer, xsk_umem__add_offset_to_addr(d->addr)));
      swap_macs(pkt);
    }
    xdp_desc* t = xsk_ring_prod__tx_desc(&out.tx, idx_tx++);
    t->addr = orig;
    t->len = len;
  }
  xsk_ring_prod__submit(&out.tx, rcvd);
  xsk_ring_cons__release(&in.rx, rcvd);
  out.outstanding_tx += rcvd;
  return rcvd;
}

void complete_tx_only(testing::Loopback& lb, Xsk& x, std::uint32_t batch) {
  if (x.outstanding_tx == 0) return;
  if (xsk_ring_prod__needs_wakeup(&x.tx)) lb.kick(0);
  std::uint32_t idx = 0;
  const std::uint32_t rcvd = xsk_ring_cons__peek(&x.cq, batch, &idx);
  if (rcvd > 0) {
    xsk_ring_cons__release(&x.cq, rcvd);
    x.outstanding_tx -= rcvd;
  }
}

// tx_only: the frames go round in order (frame_nb), not through a pool.
std::uint32_t tx_only(testing::Loopback& lb, Xsk& x, std::uint32_t& frame_nb, std::uint32_t batch) {
  std::uint32_t idx = 0;
  while (xsk_ring_prod__reserve(&x.tx, batch, &idx) < batch) complete_tx_only(lb, x, batch);
  for (std::uint32_t i = 0; i < batch; ++i) {
    xdp_desc* d = xsk_ring_prod__tx_desc(&x.tx, idx + i);
    d->addr = std::uint64_t{frame_nb + i} * x.frame_size;
    d->len = 64;
  }
  xsk_ring_prod__submit(&x.tx, batch);
  x.outstanding_tx += batch;
  frame_nb = (frame_nb + batch) % x.frames;
  complete_tx_only(lb, x, batch);
  return batch;
}

void rxdrop_cell(const Run& run) {
  testing::Loopback lb(loopback_config());
  Xsk x(lb.rings(0));
  const auto packet = test_packet();
  Meter m("libxdp.rxdrop", run);
  m.run(
      [&](Meter& meter) {
        arrive(lb, 0, packet, meter.batch_size());
        return meter.measured([&] { return rx_drop(x, meter.batch_size()); });
      },
      [&] { return x.wakeups; });
}

template <bool Swap>
void l2fwd_cell(const std::string& name, const Run& run, std::uint32_t queues) {
  testing::Loopback lb(loopback_config(queues));
  Xsk in(lb.rings(0));
  Xsk other(lb.rings(queues - 1));
  Xsk& out = queues == 1 ? in : other;
  const auto packet = test_packet();
  Meter m(name, run);
  m.run(
      [&](Meter& meter) {
        arrive(lb, 0, packet, meter.batch_size());
        const std::uint32_t n = meter.measured(
            [&] { return l2fwd<Swap>(lb, in, out, queues - 1, meter.batch_size()); });
        (void)lb.transmitted(queues - 1);
        return n;
      },
      [&] { return in.wakeups + lb.kicks(queues - 1); });
}

void txonly_cell(const Run& run) {
  testing::Loopback lb(loopback_config());
  Xsk x(lb.rings(0));
  std::uint32_t frame_nb = 0;
  Meter m("libxdp.txonly", run);
  m.run(
      [&](Meter& meter) {
        const std::uint32_t n =
            meter.measured([&] { return tx_only(lb, x, frame_nb, meter.batch_size()); });
        (void)lb.transmitted(0);
        return n;
      },
      [&] { return x.wakeups + lb.kicks(0); });
}

}  // namespace

void libxdp_cells(const Run& run, const Select& select) {
  if (select("libxdp.rxdrop")) rxdrop_cell(run);
  if (select("libxdp.l2fwd")) l2fwd_cell<false>("libxdp.l2fwd", run, 1);
  if (select("libxdp.l2fwd+swap")) l2fwd_cell<true>("libxdp.l2fwd+swap", run, 1);
  if (select("libxdp.forward")) l2fwd_cell<false>("libxdp.forward", run, 2);
  if (select("libxdp.forward+swap")) l2fwd_cell<true>("libxdp.forward+swap", run, 2);
  if (select("libxdp.txonly")) txonly_cell(run);
}

}  // namespace afxdp::cost
