// Queue::forward(): serve() out of another queue, inline so that the handler inlines into its
// loop. Internal: included at the end of queue.hpp; the steps it shares with every verb are in
// queue_loops.hpp.
#pragma once

#include <afxdp/queue.hpp>

#include <cstdint>
#include <span>

namespace afxdp {

template <FrameHandler Handler>
inline std::uint32_t Queue::forward(Queue& out, Handler&& handler, std::uint32_t max) {
  if (&out == this) return serve(handler, max);
  require(frame_rx, "forward");
  out.require(tx_ability, "forward");
  if (out.tx_in_flight_ != 0) out.complete();
  std::uint32_t n = begin_rx(max);
  if (n == 0) {
    if (out.tx_in_flight_ != 0) out.flush();
    return 0;
  }
  n = reserve_tx(out, n);
  if (n == 0) return 0;
  // The likeliest, aligned frames out of the other queue of a shared UMEM, has its own loop: the
  // loop then does not test per frame what it knows.
  if (geo_.unaligned) [[unlikely]]
    return forward_batch<true, false>(out, handler, n);
  if (geo_.area == out.geo_.area) [[likely]]
    return forward_batch<false, true>(out, handler, n);
  return forward_batch<false, false>(out, handler, n);
}

// forward()'s loop, as serve_batch, with n slots reserved on out's tx ring. Shared: known to
// share out's UMEM (else tested).
template <bool Unaligned, bool Shared, class Handler>
inline std::uint32_t Queue::forward_batch(Queue& out, Handler& handler, std::uint32_t n) {
  const detail::FrameGeometry g = geo_;
  const RingWindow<const xdp_desc> rx = rx_->peeked();
  RingCursor<xdp_desc> out_tx(out.tx_->reserved());
  std::uint8_t* const on_tx = on_tx_.data();
  const bool shared = Shared || g.area == out.geo_.area;
  detail::ForwardTally tally;
  // A local, not a member: the compiler drops what the inlined handler never reads of it.
  Frame frame;
  frame.batch_ = batch_seq_;     // keep() takes it while this batch is open
  const xdp_desc* at = nullptr;  // the descriptor in hand: a pointer the loop steps anyway
  {
    detail::OnUnwind unwind([&]() noexcept {
      unwind_forward(out, frame, n, rx.index_of(at), tally);  // at: the frame that threw
    });
    const detail::BatchGuard batch(lacks_, frame_rx | packet_rx);  // rx peeked: no nested call
    const detail::BatchGuard out_batch(out.lacks_, tx_ability);    // out's tx reserved: no send
    for (const std::span<const xdp_desc> part : rx.parts()) {
      for (const xdp_desc& desc : part) {
        at = &desc;
        tally.rx_bytes += desc.len;
        if (!take_as<Unaligned>(g, desc, frame)) [[unlikely]]
          continue;
        ++tally.taken;
        record(g.chunk(frame.address_), FramePlace::fill, FramePlace::application);
        const Verdict verdict = handler(frame);
        if (handed_to_ref(frame)) [[unlikely]]
          continue;
        // The likeliest path for a forwarder, out of the other queue of a shared UMEM, here; the
        // others in route().
        if (verdict == Verdict::send && shared && frame.size_ != 0) [[likely]] {
          const std::uint64_t chunk = g.chunk(frame.address_);
          out_tx.put(xdp_desc{frame.address_, frame.size_, 0});
          ++tally.forwarded;
          tally.out_bytes += frame.size_;
          if constexpr (detail::checks_kernel) on_tx[g.index(chunk)] = 1;
          record(chunk, FramePlace::application, FramePlace::tx);
          continue;
        }
        route(out, out_tx, frame, verdict, shared, tally);
      }
    }
    unwind.dismiss();
  }
  finish_forward(out, n, tally);
  return n;
}

// One frame to where its verdict sends it (a copy: the loop's frame never escapes, so that the
// compiler drops what the handler does not read).
inline void Queue::route(Queue& out, RingCursor<xdp_desc>& out_tx, Frame frame, Verdict verdict,
                         bool shared, detail::ForwardTally& tally) {
  const std::uint64_t chunk = chunk_of(frame.address_);
  if (frame.size_ == 0) [[unlikely]]
    verdict = Verdict::drop;  // never an empty descriptor (see serve)
  // In order of likelihood for a forwarder: out of the other queue, back, dropped.
  static_assert(verdict_count == 3, "a new Verdict: handle it here, then count it");
  if (verdict == Verdict::send) [[likely]] {
    if (shared) [[likely]] {
      out_tx.put(xdp_desc{frame.address_, frame.size_, 0});
      ++tally.forwarded;
      tally.out_bytes += frame.size_;
      to_tx(chunk, FramePlace::application);
      return;
    }
    if (xdp_desc copy{}; out.copy_in(frame, copy)) {
      out_tx.put(copy);
      ++tally.forwarded;
      tally.out_bytes += copy.len;
      ++tally.copied;
    } else {
      ++tally.dropped;
    }
    chunks_[tally.back++] = chunk;
  } else if (verdict == Verdict::send_back && (lacks_ & tx_ability) == 0 && tx_->reserve(1) == 1) {
    // lacks_, not tx_ alone: inside another queue's forward() to this one, that batch holds this
    // tx ring's reserved slots (and no ring at all sets the bit too); the frame is dropped.
    tx_->at(0) = xdp_desc{frame.address_, frame.size_, 0};
    submit_tx(1, frame.size_);
    to_tx(chunk, FramePlace::application);
    ++tx_out_;
    ++tally.sent_back;
  } else {
    chunks_[tally.back++] = chunk;
    ++tally.dropped;
  }
}

// forward()'s batch published: rx released, what was sent on out's tx ring submitted.
inline void Queue::finish_forward(Queue& out, std::uint32_t n, detail::ForwardTally tally) {
  end_rx(n, tally.taken, tally.rx_bytes);
  tx_out_ += tally.forwarded - tally.copied;  // this queue's frames now on out's tx ring
  recycle_chunks(chunks_.data(), tally.back, FramePlace::application);
  detail::QueueCounters::add(counters_.forwarded, tally.forwarded);
  if (tally.dropped != 0) detail::QueueCounters::add(counters_.dropped, tally.dropped);
  out.publish_tx(n, tally.forwarded, tally.out_bytes);
  if (tally.sent_back != 0) after_send();
}

}  // namespace afxdp
