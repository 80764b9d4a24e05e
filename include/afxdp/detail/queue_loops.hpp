// Queue's per-frame loops, inline so that the handler inlines into them: the steps every verb
// shares, then receive() and serve(). forward() is in queue_forward.hpp, the multi-buffer verbs
// in queue_packets.hpp. Internal: included at the end of queue.hpp; read queue.hpp for what each
// verb promises and docs/rings.md for the protocol these steps keep.
#pragma once

#include <afxdp/queue.hpp>

#include <algorithm>
#include <cstdint>
#include <span>

namespace afxdp {

// Every verb is the same steps:
//   require      the rings it needs, checked once per call
//   begin_rx     completions collected, rx peeked (whole chains, for the packet verbs); an idle
//                turn when rx is empty
//   reserve_tx   (a verb that sends) room on its out-queue's tx ring; what does not fit stays on rx
//   take         each descriptor admitted as one of the queue's frames (take_as), then the
//                handler's verdict, or the reader's Frames; a kept frame is handed_to_ref (a
//                reader's: marked held, see keep)
//   end_rx       rx released: received, refused and byte counters
//   recycle      dropped and unkept frames back to the fill ring (recycle_chunks)
//   publish_tx   (a verb that sends) tx submitted, the rest cancelled, kicked when due
// The loops index the rings through RingWindows and the UMEM through a FrameGeometry copied into
// locals: a handler writes packet bytes through std::byte*, which may alias any member, and
// members would be reloaded after every such write.

inline void Queue::require(std::uint8_t needs, const char* verb) const {
  if ((lacks_ & needs) != 0) [[unlikely]]
    refuse(needs, verb);
}

inline std::uint32_t Queue::clamp(std::uint32_t max) noexcept {
  return max < max_batch ? max : max_batch;
}

inline std::uint64_t Queue::chunk_of(std::uint64_t address) const noexcept {
  return geo_.chunk(address);
}

inline void Queue::record(std::uint64_t chunk, FramePlace from, FramePlace to) {
  if constexpr (FrameLedger::enabled) ledger_.move(chunk - geo_.first, from, to);
}

// One of this queue's frames goes on a tx ring: marked in on_tx_, a byte per frame, so that a
// completion is accepted once per send (a duplicated one would put a frame in the pool twice and
// lose another).
inline void Queue::to_tx(std::uint64_t chunk, FramePlace from) noexcept {
  record(chunk, from, FramePlace::tx);
  if constexpr (detail::checks_kernel) on_tx_[geo_.index(chunk)] = 1;
}

// The hand-over of a kept frame, where a handler's batch reads Frame::kept_: true when the handler
// or reader kept `frame` (keep() set the mark; the frame is its FrameRef's now, not the batch's
// to send or recycle). The mark is cleared as it is read, so that the slot hands out its next
// frame unkept: a take does not write it per frame (see Frame::kept_).
inline bool Queue::handed_to_ref(Frame& frame) noexcept {
  if (!frame.kept_) [[likely]]
    return false;
  frame.kept_ = false;
  return true;
}

// Completions collected, up to max received descriptors peeked; Chains: only whole chains
// (whole_chains), 0 when none is. When rx is empty, an idle turn. Returns how many were peeked.
template <bool Chains>
inline std::uint32_t Queue::begin_rx(std::uint32_t max) noexcept {
  if (tx_in_flight_ != 0) complete();
  std::uint32_t n = rx_->peek(clamp(max));
  if (n == 0) {
    idle_turn();
    return 0;
  }
  if constexpr (Chains) {
    n = whole_chains(n);
    if (n == 0) return 0;
  }
  idle_.note_data();
  if (++batch_seq_ == 0) batch_seq_ = 1;  // 0 is no batch's: pool and TxBatch frames
  return n;
}

// An rx descriptor as a Frame, if it names one of this queue's frames whole (see FrameGeometry);
// false for one that does not: never read, never recycled. One per UMEM mode. `chunk`: the
// frame's start.
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
  // kept_ is false already: handed_to_ref cleared it.
  return true;
}

template <bool Unaligned>
inline bool Queue::take_as(const detail::FrameGeometry& g, const xdp_desc& desc,
                           Frame& frame) noexcept {
  std::uint64_t chunk = 0;
  return take_as<Unaligned>(g, desc, frame, chunk);
}

// Room on out's tx ring for n frames (out may be this queue): what does not fit stays on rx,
// counted, and tx is kicked so that it drains. Reserves what fits and returns it.
inline std::uint32_t Queue::reserve_tx(Queue& out, std::uint32_t n) noexcept {
  if (const std::uint32_t room = out.tx_->free_slots(n); room < n) [[unlikely]] {
    n = hold_back(n, room);
    if (&out != this) out.kick_tx();
    if (n == 0) return 0;
  }
  return out.tx_->reserve(n);  // all n: the room was checked above
}

// n peeked descriptors, carrying `bytes`, handed back to the kernel, `taken` of them as this
// queue's frames (the rest refused and counted).
inline void Queue::end_rx(std::uint32_t n, std::uint32_t taken, std::uint64_t bytes) noexcept {
  detail::QueueCounters::add(counters_.rx_bytes, bytes);
  rx_->release(n);
  fill_side_ -= taken;  // a refused descriptor's frame, whichever it is, stays the kernel's
  detail::QueueCounters::add(counters_.received, taken);
  if (taken != n) [[unlikely]]
    detail::QueueCounters::add(counters_.refused, n - taken);
}

// The first n reserved tx slots, written, submitted and in flight until completed; `bytes`
// (what they carry) counted in tx_bytes.
inline void Queue::submit_tx(std::uint32_t n, std::uint64_t bytes) noexcept {
  detail::QueueCounters::add(counters_.tx_bytes, bytes);
  tx_->submit(n);
  tx_in_flight_ += n;
}

// The first `sent` of `reserved` tx slots submitted, the rest given back; kicked when due.
inline void Queue::publish_tx(std::uint32_t reserved, std::uint32_t sent,
                              std::uint64_t bytes) noexcept {
  tx_->cancel(reserved - sent);
  submit_tx(sent, bytes);
  if (sent != 0) after_send();
}

// After frames were put on tx: kick when enough are outstanding and the kernel asks.
inline void Queue::after_send() noexcept {
  if (tx_->outstanding() >= kick_at_) kick_if_asked();
}

// Give frames (chunk addresses) back: to the fill ring while it lacks frames and has room, else
// to the pool.
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
  // The reader reads the peeked descriptors themselves; a checked build reads them once, into a
  // copy of those it admits, and the batch reads only that.
  RingWindow<const xdp_desc> taken = rx_->peeked();
  std::uint64_t refused_bytes = 0;
  if constexpr (detail::checks_kernel) taken = take_checked(refused_bytes);
  if constexpr (FrameLedger::enabled) {
    for (std::uint32_t i = 0; i < taken.size(); ++i) {
      record(chunk_of(taken[i].addr), FramePlace::fill, FramePlace::application);
    }
  }
  const std::uint32_t keeps = keeps_;
  {
    detail::OnUnwind unwind([&]() noexcept { finish_receive(n, taken, refused_bytes); });
    const detail::BatchGuard batch(lacks_, frame_rx | packet_rx);  // rx peeked: no nested call
    receiving_ = true;  // a FrameRef that ends now stays marked until finish_receive
    reader(Frames(taken, geo_, batch_seq_));
    receiving_ = false;
    unwind.dismiss();
  }
  // Every frame back onto the fill ring at once, when none was refused or kept (the rule); else
  // through the path that skips kept frames and parks what does not fit.
  if (taken.size() == n && keeps_ == keeps && ended_count_ == 0 && refill_from(taken)) [[likely]]
    return n;
  finish_receive(n, taken, refused_bytes);
  return taken.size();
}

// The rule's end of a receive batch: the frames of all n peeked descriptors straight onto the
// fill ring, rx released. From `taken`, receive's descriptors (rx's own window, or a checked
// build's copy), each chunk masked as it is copied. False, with nothing done, when the fill ring
// has no room for all of them.
inline bool Queue::refill_from(const RingWindow<const xdp_desc>& taken) noexcept {
  const std::uint32_t n = taken.size();
  if (fill_->reserve(n) != n) return false;
  const std::uint64_t mask = geo_.chunk_mask;
  std::uint64_t bytes = 0;
  RingCursor<std::uint64_t> fill(fill_->reserved());
  for (const std::span<const xdp_desc> part : taken.parts()) {
#pragma GCC unroll 4
    for (const xdp_desc& desc : part) {
      fill.put(desc.addr & mask);
      bytes += desc.len;
    }
  }
  end_refill(n, bytes);
  return true;
}

// The n frames refill_from reserved and wrote on the fill ring submitted, rx released.
inline void Queue::end_refill(std::uint32_t n, std::uint64_t bytes) noexcept {
  if constexpr (FrameLedger::enabled) {
    const RingWindow<std::uint64_t> fill = fill_->reserved();
    for (std::uint32_t i = 0; i < n; ++i)
      record(fill[i], FramePlace::application, FramePlace::fill);
  }
  fill_->submit(n);
  fill_side_ += n;
  end_rx(n, n, bytes);
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

// serve()'s loop over n peeked descriptors with n tx slots reserved, one per UMEM mode.
template <bool Unaligned, class Handler>
inline std::uint32_t Queue::serve_batch(Handler& handler, std::uint32_t n) {
  const detail::FrameGeometry g = geo_;
  const RingWindow<const xdp_desc> rx = rx_->peeked();
  RingCursor<xdp_desc> tx(tx_->reserved());
  std::uint8_t* const on_tx = on_tx_.data();
  std::uint64_t* const dropped_chunks = chunks_.data();
  // A local, not a member: the compiler drops what the inlined handler never reads of it.
  Frame frame;
  frame.batch_ = batch_seq_;  // keep() takes it while this batch is open
  std::uint32_t kept = 0;     // what was sent is what was taken, less these and the dropped
  std::uint32_t dropped = 0;
  std::uint32_t taken = 0;
  const xdp_desc* at = nullptr;  // the descriptor in hand: a pointer the loop steps anyway
  detail::ServeBytes bytes;
  {
    detail::OnUnwind unwind([&]() noexcept {
      // at is the frame that threw; taken counts it
      unwind_serve(frame, n, rx.index_of(at), taken, taken - 1 - kept - dropped, dropped, bytes);
    });
    // rx peeked and tx reserved: no nested call, no send.
    const detail::BatchGuard batch(lacks_, frame_rx | packet_rx | tx_ability);
    for (const std::span<const xdp_desc> part : rx.parts()) {
      for (const xdp_desc& desc : part) {
        at = &desc;
        bytes.rx += desc.len;
        if (take_as<Unaligned>(g, desc, frame)) [[likely]] {
          ++taken;
          record(g.chunk(frame.address_), FramePlace::fill, FramePlace::application);
          const Verdict verdict = handler(frame);
          if (handed_to_ref(frame)) [[unlikely]] {
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

// serve()'s batch published: n taken off rx (taken of them this queue's frames), the first
// `sent` tx slots submitted, the rest cancelled, `dropped` frames in chunks_ recycled.
inline void Queue::finish_serve(std::uint32_t n, std::uint32_t taken, std::uint32_t sent,
                                std::uint32_t dropped, detail::ServeBytes bytes) noexcept {
  end_rx(n, taken, bytes.rx);
  tx_out_ += sent;
  recycle_chunks(chunks_.data(), dropped, FramePlace::application);
  if (dropped != 0) detail::QueueCounters::add(counters_.dropped, dropped);
  publish_tx(n, sent, bytes.tx);
}

template <class F>
void Queue::for_each_free_frame(F&& f) {
  for (const std::uint64_t chunk : pool_.addresses()) {
    Frame frame(geo_.area + chunk, chunk, 0, 0, geo_.frame_size);
    frame.kept_ = true;  // a pool frame: keep() refuses it (allocate() lends it)
    f(frame);
  }
}

}  // namespace afxdp
