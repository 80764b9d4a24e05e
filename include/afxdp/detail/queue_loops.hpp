// Queue's per-frame loops, inline so that the handler inlines into them. Internal: included at
// the end of queue.hpp; read queue.hpp for what each verb promises and docs/rings.md for the
// protocol these steps keep.
#pragma once

#include <afxdp/queue.hpp>

#include <algorithm>
#include <cstdint>
#include <span>

namespace afxdp {

// Each verb reads as the same four steps: peek rx (begin_rx), admit each descriptor as one of the
// queue's frames (take), the frame's verdict, then finish: rx released (end_rx), tx published
// (publish_tx), the rest recycled. The loops index the rings through RingWindows and the UMEM
// through a FrameGeometry copied into locals: a handler writes packet bytes through std::byte*,
// which may alias any member, and members would be reloaded after every such write.

inline std::uint32_t Queue::begin_rx(std::uint32_t max) noexcept {
  if (tx_in_flight_ != 0) complete();
  const std::uint32_t n = rx_->peek(clamp(max));
  if (n == 0) {
    idle_turn();
    return 0;
  }
  idle_.note_data();
  return n;
}

template <bool Unaligned>
inline bool Queue::take_as(const detail::FrameGeometry& g, const xdp_desc& desc, Frame& frame,
                           std::uint64_t& chunk) noexcept {
  chunk = g.chunk(desc.addr);
  const std::uint64_t offset = g.offset_in<Unaligned>(desc.addr, chunk);
  if constexpr (detail::checks_kernel) {
    if (!g.owns_as<Unaligned>(chunk, offset, desc.len)) [[unlikely]]
      return false;
  }
  // Aligned, an owned address is chunk + offset itself (owns() refused any upper bits).
  frame.data_ = g.area + (Unaligned ? chunk + offset : desc.addr);
  frame.address_ = desc.addr;
  frame.size_ = desc.len;
  frame.headroom_ = static_cast<std::uint16_t>(offset);
  frame.frame_size_ = g.frame_size;
  // kept_ is false already: whoever handed a kept frame out cleared it (see Frame).
  return true;
}

template <bool Unaligned>
inline bool Queue::take_as(const detail::FrameGeometry& g, const xdp_desc& desc,
                           Frame& frame) noexcept {
  std::uint64_t chunk = 0;
  return take_as<Unaligned>(g, desc, frame, chunk);
}

template <bool Unaligned>
inline std::uint32_t Queue::take_all(Frame* frames, std::uint64_t* chunks,
                                     std::uint64_t& bytes) noexcept {
  const detail::FrameGeometry g = geo_;
  Frame* next = frames;
  std::uint64_t* next_chunk = chunks;
  std::uint64_t sum = 0;
  for (const std::span<const xdp_desc> part : rx_->peeked().parts()) {
    // Four descriptors a turn: the loop's step, compare and branch once per four frames (1.8
    // instructions a frame fewer; the body is the same).
#pragma GCC unroll 4
    for (const xdp_desc& desc : part) {
      sum += desc.len;
      if (take_as<Unaligned>(g, desc, *next, *next_chunk)) [[likely]] {
        ++next;
        ++next_chunk;
      }
    }
  }
  bytes = sum;
  return static_cast<std::uint32_t>(next - frames);
}

namespace detail {
// The bytes the first n descriptors of `window` carry: read for the byte counters while those
// descriptors are still in cache (rx just taken, tx just written).
template <class Desc>
inline std::uint64_t descriptor_bytes(const RingWindow<Desc>& window, std::uint32_t n) noexcept {
  std::uint64_t bytes = 0;
  std::uint32_t left = n;
  for (const std::span<Desc> part : window.parts()) {
    const std::uint32_t k = left < part.size() ? left : static_cast<std::uint32_t>(part.size());
    for (std::uint32_t i = 0; i < k; ++i) bytes += part[i].len;
    left -= k;
  }
  return bytes;
}
}  // namespace detail

inline void Queue::release_rx(std::uint32_t n, std::uint64_t bytes) noexcept {
  detail::QueueCounters::add(counters_.rx_bytes, bytes);
  rx_->release(n);
}

inline void Queue::release_rx(std::uint32_t n) noexcept {
  release_rx(n, detail::descriptor_bytes(rx_->peeked(), n));
}

inline void Queue::submit_tx(std::uint32_t n, std::uint64_t bytes) noexcept {
  detail::QueueCounters::add(counters_.tx_bytes, bytes);
  tx_->submit(n);
  tx_in_flight_ += n;
}

inline void Queue::submit_tx(std::uint32_t n) noexcept {
  submit_tx(n, detail::descriptor_bytes(tx_->reserved(), n));
}

inline void Queue::end_rx(std::uint32_t n, std::uint32_t taken, std::uint64_t bytes) noexcept {
  release_rx(n, bytes);
  fill_side_ -= taken;  // a refused descriptor's frame, whichever it is, stays the kernel's
  detail::QueueCounters::add(counters_.received, taken);
  if (taken != n) [[unlikely]]
    detail::QueueCounters::add(counters_.refused, n - taken);
}

inline void Queue::publish_tx(std::uint32_t reserved, std::uint32_t sent,
                              std::uint64_t bytes) noexcept {
  tx_->cancel(reserved - sent);
  submit_tx(sent, bytes);
  if (sent != 0) after_send();
}

inline void Queue::recycle_chunks(const std::uint64_t* chunks, std::uint32_t n,
                                  FramePlace from) noexcept {
  const std::uint32_t lacking = fill_target_ - fill_side_;
  std::uint32_t to_fill = n < lacking ? n : lacking;
  if (to_fill != 0) {
    // The kernel publishes rx before it moves the fill consumer, so room is not guaranteed.
    const std::uint32_t room = fill_->free_slots(to_fill);
    if (room < to_fill) to_fill = room;
    to_fill = fill_->reserve(to_fill);  // all of them: they fit
    const RingWindow<std::uint64_t> fill = fill_->reserved();
    for (std::uint32_t i = 0; i < to_fill; ++i) fill[i] = chunks[i];
    if constexpr (FrameLedger::enabled) {
      for (std::uint32_t i = 0; i < to_fill; ++i) record(chunks[i], from, FramePlace::fill);
    }
    fill_->submit(to_fill);
    fill_side_ += to_fill;
  }
  if (to_fill < n) {
    pool_.give(chunks + to_fill, n - to_fill);
    if constexpr (FrameLedger::enabled) {
      for (std::uint32_t i = to_fill; i < n; ++i) record(chunks[i], from, FramePlace::free);
    }
  }
  // Frames parked in the pool while the fill ring had no room go back as soon as it has.
  if (lacking > to_fill && pool_.available() != 0) [[unlikely]]
    top_up_fill();
}

inline void Queue::complete() noexcept {
  const std::uint32_t n = completion_->peek(max_batch);
  if (n != 0) complete_slow(n);
}

template <FrameReader Reader>
std::uint32_t Queue::receive(Reader&& reader, std::uint32_t max) {
  require(frame_rx, "receive");
  const std::uint32_t n = begin_rx(max);
  if (n == 0) return 0;
  Frame* const frames = frames_.data();
  std::uint64_t* const chunks = chunks_.data();
  std::uint64_t bytes = 0;
  const std::uint32_t taken = geo_.unaligned ? take_all<true>(frames, chunks, bytes)
                                             : take_all<false>(frames, chunks, bytes);
  if constexpr (FrameLedger::enabled) {
    for (std::uint32_t i = 0; i < taken; ++i) {
      record(chunks[i], FramePlace::fill, FramePlace::application);
    }
  }
  const std::uint32_t keeps = keeps_;
  {
    detail::OnUnwind unwind([&]() noexcept {
      end_rx(n, taken, bytes);
      recycle_unkept(taken);
    });
    const detail::BatchGuard batch(lacks_, frame_rx | packet_rx);  // frames_ is the reader's
    reader(std::span<Frame>(frames, taken));
    unwind.dismiss();
  }
  end_rx(n, taken, bytes);
  // Every frame back onto the fill ring at once, when none was refused or kept (the rule); else
  // through the general path that skips kept frames and parks what does not fit.
  if (taken == n && keeps_ == keeps && fill_->reserve(n) == n) [[likely]] {
    const std::uint64_t* from = chunks;
    for (const std::span<std::uint64_t> part : fill_->reserved().parts()) {
      std::copy_n(from, part.size(), part.data());
      from += part.size();
    }
    if constexpr (FrameLedger::enabled) {
      for (std::uint32_t i = 0; i < n; ++i) {
        record(chunks[i], FramePlace::application, FramePlace::fill);
      }
    }
    fill_->submit(n);
    fill_side_ += n;
    return n;
  }
  recycle_unkept(taken);
  return taken;
}

template <FrameHandler Handler>
inline std::uint32_t Queue::serve(Handler&& handler, std::uint32_t max) {
  require(frame_rx | tx_ability, "serve");
  std::uint32_t n = begin_rx(max);
  if (n == 0) return 0;
  n = reserve_tx(*this, n);
  if (n == 0) return 0;
  if (geo_.unaligned) [[unlikely]]
    return serve_batch<true>(handler, n);
  return serve_batch<false>(handler, n);
}

template <bool Unaligned, class Handler>
inline std::uint32_t Queue::serve_batch(Handler& handler, std::uint32_t n) {
  const detail::FrameGeometry g = geo_;
  const RingWindow<const xdp_desc> rx = rx_->peeked();
  RingCursor<xdp_desc> tx(tx_->reserved());
  std::uint8_t* const on_tx = on_tx_.data();
  std::uint64_t* const dropped_chunks = chunks_.data();
  // A local, not a member: the compiler drops what the inlined handler never reads of it.
  Frame frame;
  std::uint32_t kept = 0;  // what was sent is what was taken, less these and the dropped
  std::uint32_t dropped = 0;
  std::uint32_t taken = 0;
  std::uint32_t i = 0;
  ServeBytes bytes;
  {
    detail::OnUnwind unwind([&]() noexcept {
      // i and taken count the frame that threw
      unwind_serve(frame, n, i - 1, taken, taken - 1 - kept - dropped, dropped, bytes);
    });
    // rx peeked and tx reserved: no nested call, no send.
    const detail::BatchGuard batch(lacks_, frame_rx | packet_rx | tx_ability);
    for (const std::span<const xdp_desc> part : rx.parts()) {
      for (const xdp_desc& desc : part) {
        ++i;
        bytes.rx += desc.len;
        if (take_as<Unaligned>(g, desc, frame)) [[likely]] {
          ++taken;
          record(g.chunk(frame.address_), FramePlace::fill, FramePlace::application);
          const Verdict verdict = handler(frame);
          if (frame.kept_) [[unlikely]] {
            frame.kept_ = false;
            ++kept;
            continue;
          }
          // In order of likelihood for a server: out again, else dropped. An empty frame is
          // dropped: the kernel skips an empty descriptor, and some drivers never complete it.
          static_assert(verdict_count == 3, "a new Verdict: handle it here, then count it");
          const std::uint64_t chunk = g.chunk(frame.address_);
          if (verdict != Verdict::drop && frame.size_ != 0) [[likely]] {
            tx.put(xdp_desc{frame.address_, frame.size_, 0});
            bytes.tx += frame.size_;
            if constexpr (detail::checks_kernel) on_tx[g.index(chunk)] = 1;
            record(chunk, FramePlace::application, FramePlace::tx);
          } else {
            dropped_chunks[dropped++] = chunk;
          }
        }
      }
    }
    unwind.dismiss();
  }
  finish_serve(n, taken, taken - kept - dropped, dropped, bytes);
  return n;
}

inline void Queue::finish_serve(std::uint32_t n, std::uint32_t taken, std::uint32_t sent,
                                std::uint32_t dropped, ServeBytes bytes) noexcept {
  end_rx(n, taken, bytes.rx);
  tx_out_ += sent;
  recycle_chunks(chunks_.data(), dropped, FramePlace::application);
  if (dropped != 0) detail::QueueCounters::add(counters_.dropped, dropped);
  publish_tx(n, sent, bytes.tx);
}

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
  if (geo_.unaligned) [[unlikely]]
    return forward_batch<true>(out, handler, n);
  return forward_batch<false>(out, handler, n);
}

template <bool Unaligned, class Handler>
inline std::uint32_t Queue::forward_batch(Queue& out, Handler& handler, std::uint32_t n) {
  const detail::FrameGeometry g = geo_;
  RingCursor<xdp_desc> out_tx(out.tx_->reserved());
  std::uint8_t* const on_tx = on_tx_.data();
  const bool shared = g.area == out.geo_.area;
  ForwardTally tally;
  // A local, not a member: the compiler drops what the inlined handler never reads of it.
  Frame frame;
  std::uint32_t i = 0;
  {
    detail::OnUnwind unwind([&]() noexcept {
      unwind_forward(out, frame, n, i - 1, tally);  // i counts the frame that threw
    });
    const detail::BatchGuard batch(lacks_, frame_rx | packet_rx);  // rx peeked: no nested call
    const detail::BatchGuard out_batch(out.lacks_, tx_ability);    // out's tx reserved: no send
    for (const std::span<const xdp_desc> part : rx_->peeked().parts()) {
      for (const xdp_desc& desc : part) {
        ++i;
        tally.rx_bytes += desc.len;
        if (!take_as<Unaligned>(g, desc, frame)) [[unlikely]]
          continue;
        ++tally.taken;
        record(g.chunk(frame.address_), FramePlace::fill, FramePlace::application);
        const Verdict verdict = handler(frame);
        if (frame.kept_) [[unlikely]] {
          frame.kept_ = false;
          continue;
        }
        // The likeliest path for a forwarder, out of the other queue of a shared UMEM, here; the
        // others in route().
        if (verdict == Verdict::forward && shared && frame.size_ != 0) [[likely]] {
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

inline void Queue::route(Queue& out, RingCursor<xdp_desc>& out_tx, Frame frame, Verdict verdict,
                         bool shared, ForwardTally& tally) {
  const std::uint64_t chunk = chunk_of(frame.address_);
  if (frame.size_ == 0) [[unlikely]]
    verdict = Verdict::drop;  // never an empty descriptor (see serve)
  // In order of likelihood for a forwarder: out of the other queue, back, dropped.
  static_assert(verdict_count == 3, "a new Verdict: handle it here, then count it");
  if (verdict == Verdict::forward) [[likely]] {
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
  } else if (verdict == Verdict::send_back && tx_ != nullptr && tx_->reserve(1) == 1) {
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

inline void Queue::finish_forward(Queue& out, std::uint32_t n, const ForwardTally& tally) {
  end_rx(n, tally.taken, tally.rx_bytes);
  tx_out_ += tally.forwarded - tally.copied;  // this queue's frames now on out's tx ring
  recycle_chunks(chunks_.data(), tally.back, FramePlace::application);
  detail::QueueCounters::add(counters_.forwarded, tally.forwarded);
  if (tally.dropped != 0) detail::QueueCounters::add(counters_.dropped, tally.dropped);
  out.publish_tx(n, tally.forwarded, tally.out_bytes);
  if (tally.sent_back != 0) after_send();
}

template <PacketReader Reader>
std::uint32_t Queue::receive_packets(Reader&& reader, std::uint32_t max) {
  require(packet_rx, "receive_packets");
  if (tx_in_flight_ != 0) complete();
  const std::uint32_t n = peek_chains(max);
  if (n == 0) return 0;
  idle_.note_data();
  const ChainTake t = take_chains(n);
  release_rx(n);
  fill_side_ -= t.taken;  // a refused descriptor's frame, whichever it is, stays the kernel's
  {
    detail::OnUnwind unwind([&]() noexcept { finish_receive_packets(t); });
    const detail::BatchGuard batch(lacks_, frame_rx | packet_rx);  // packets_ is the reader's
    reader(std::span<Packet>(packets_.data(), t.packets));
    unwind.dismiss();
  }
  finish_receive_packets(t);
  return n;
}

inline void Queue::finish_receive_packets(const ChainTake& t) noexcept {
  std::uint32_t back = t.refused;
  const std::uint32_t fragments = t.taken - t.refused;
  for (std::uint32_t i = 0; i < fragments; ++i) {
    if (frames_[i].kept_) [[unlikely]] {
      frames_[i].kept_ = false;
    } else {
      chunks_[back++] = chunk_of(frames_[i].address_);
    }
  }
  recycle_chunks(chunks_.data(), back, FramePlace::application);
  detail::QueueCounters::add(counters_.received, t.taken);
  detail::QueueCounters::add(counters_.packets, t.packets);
}

template <PacketHandler Handler>
std::uint32_t Queue::serve_packets(Handler&& handler, std::uint32_t max) {
  require(packet_rx | tx_ability, "serve_packets");
  if (tx_in_flight_ != 0) complete();
  std::uint32_t n = peek_chains(max);
  if (n == 0) return 0;
  idle_.note_data();
  // Take off rx only whole chains that tx has room for: the rest waits on rx.
  if (const std::uint32_t room = tx_->free_slots(n); room < n) [[unlikely]] {
    n = hold_back(n, chain_prefix(n, room));
    if (n == 0) return 0;
  }
  n = tx_->reserve(n);  // all n: the room was checked above
  const ChainTake t = take_chains(n);
  fill_side_ -= t.taken;
  PacketTally tally{.back = t.refused};
  std::uint32_t p = 0;
  {
    detail::OnUnwind unwind([&]() noexcept { unwind_serve_packets(n, p, t, tally); });
    // rx peeked and tx reserved: no nested call, no send.
    const detail::BatchGuard batch(lacks_, frame_rx | packet_rx | tx_ability);
    for (; p < t.packets; ++p) {
      Packet& packet = packets_[p];
      const Verdict verdict = handler(packet);
      route_packet(packet, verdict, tally);
    }
    unwind.dismiss();
  }
  finish_serve_packets(n, n, t, tally);
  return n;
}

inline void Queue::route_packet(Packet& packet, Verdict verdict, PacketTally& tally) noexcept {
  static_assert(verdict_count == 3, "a new Verdict: handle it here, then count it");
  const std::uint32_t count = packet.count_;
  Frame* fragments = packet.frames_;
  const std::uint32_t start = tally.sent;
  bool kept = false;
  bool empty = false;
  if (verdict != Verdict::drop) [[likely]] {
    for (std::uint32_t k = 0; k < count; ++k) {
      const Frame& f = fragments[k];
      kept = kept || f.kept_;
      empty = empty || f.size_ == 0;
      tx_->at(tally.sent++) =
          xdp_desc{f.address_, f.size_, k + 1 < count ? uapi::xdp_pkt_contd : 0U};
    }
    if (!kept && !empty) [[likely]] {
      for (std::uint32_t k = 0; k < count; ++k) {
        to_tx(chunk_of(fragments[k].address_), FramePlace::application);
      }
      return;
    }
    // A kept fragment: the chain cannot go out whole. An empty one: the kernel would drop the
    // chain and never complete it; it is invalid.
    tally.sent = start;
  }
  const bool invalid = empty && !kept;
  tally.invalid_chains += invalid ? 1 : 0;
  for (std::uint32_t k = 0; k < count; ++k) {
    Frame& f = fragments[k];
    if (f.kept_) [[unlikely]] {
      f.kept_ = false;
      continue;
    }
    chunks_[tally.back++] = chunk_of(f.address_);
    tally.dropped += invalid ? 0 : 1;
  }
}

inline void Queue::finish_serve_packets(std::uint32_t n, std::uint32_t released, const ChainTake& t,
                                        const PacketTally& tally) noexcept {
  release_rx(released);
  tx_->cancel(n - tally.sent);
  submit_tx(tally.sent);
  tx_out_ += tally.sent;
  recycle_chunks(chunks_.data(), tally.back, FramePlace::application);
  detail::QueueCounters::add(counters_.received, t.taken);
  detail::QueueCounters::add(counters_.packets, t.packets);
  if (tally.dropped != 0) detail::QueueCounters::add(counters_.dropped, tally.dropped);
  if (tally.invalid_chains != 0) [[unlikely]]
    detail::QueueCounters::add(counters_.invalid_chains, tally.invalid_chains);
  if (tally.sent != 0) after_send();
}

}  // namespace afxdp
