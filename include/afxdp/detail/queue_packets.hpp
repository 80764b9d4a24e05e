// Queue's multi-buffer verbs, receive_packets() and serve_packets(): the steps of every verb
// (queue_loops.hpp), per whole chain of descriptors. Taking chains off rx (whole_chains,
// take_chains) is in src/queue_chains.cpp. Internal: included at the end of queue.hpp.
#pragma once

#include <afxdp/queue.hpp>

#include <cstdint>
#include <span>

namespace afxdp {

template <PacketReader Reader>
std::uint32_t Queue::receive_packets(Reader&& reader, std::uint32_t max) {
  require(packet_rx, "receive_packets");
  const std::uint32_t n = begin_rx</*Chains=*/true>(max);
  if (n == 0) return 0;
  const detail::ChainTake t = take_chains(n);
  const std::uint32_t keeps = keeps_;
  {
    detail::OnUnwind unwind([&]() noexcept { finish_receive_packets(n, t); });
    const detail::BatchGuard batch(lacks_, frame_rx | packet_rx);  // packets_ is the reader's
    reader(std::span<Packet>(packets_.data(), t.packets));
    unwind.dismiss();
  }
  // As receive's rule: every frame straight from rx back to fill when none was refused or kept.
  if (t.taken == n && t.refused == 0 && keeps_ == keeps &&
      refill_from(frames_.data(), n, t.rx_bytes)) [[likely]] {
    detail::QueueCounters::add(counters_.packets, t.packets);
    return n;
  }
  finish_receive_packets(n, t);
  return n;
}

// As refill_from, from receive_packets' frames_ (each admitted as it was taken), rx_bytes the
// descriptors' bytes.
inline bool Queue::refill_from(const Frame* frames, std::uint32_t n,
                               std::uint64_t rx_bytes) noexcept {
  if (fill_->reserve(n) != n) return false;
  const std::uint64_t mask = geo_.chunk_mask;
  RingCursor<std::uint64_t> fill(fill_->reserved());
  for (std::uint32_t i = 0; i < n; ++i) fill.put(frames[i].address_ & mask);
  end_refill(n, rx_bytes);
  return true;
}

// receive_packets' n descriptors released, their fragments back but those the reader kept (and
// the refused chains' frames, already in chunks_), its packets counted.
inline void Queue::finish_receive_packets(std::uint32_t n, const detail::ChainTake& t) noexcept {
  end_rx(n, t.taken, t.rx_bytes);
  std::uint32_t back = t.refused;
  const std::uint32_t fragments = t.taken - t.refused;
  for (std::uint32_t i = 0; i < fragments; ++i) {
    if (!handed_to_ref(frames_[i])) [[likely]]
      chunks_[back++] = chunk_of(frames_[i].address_);
  }
  recycle_chunks(chunks_.data(), back, FramePlace::application);
  detail::QueueCounters::add(counters_.packets, t.packets);
}

template <PacketHandler Handler>
std::uint32_t Queue::serve_packets(Handler&& handler, std::uint32_t max) {
  require(packet_rx | tx_ability, "serve_packets");
  std::uint32_t n = begin_rx</*Chains=*/true>(max);
  if (n == 0) return 0;
  n = reserve_tx_chains(n);
  if (n == 0) return 0;
  const detail::ChainTake t = take_chains(n);
  detail::PacketTally tally{.back = t.refused};
  std::uint32_t p = 0;
  {
    detail::OnUnwind unwind([&]() noexcept { unwind_serve_packets(n, p, t, tally); });
    // rx peeked and tx reserved: no nested call, no send.
    const detail::BatchGuard batch(lacks_, frame_rx | packet_rx | tx_ability);
    const RingWindow<xdp_desc> tx = tx_->reserved();
    for (; p < t.packets; ++p) {
      Packet& packet = packets_[p];
      const Verdict verdict = handler(packet);
      route_packet(tx, packet, verdict, tally);
    }
    unwind.dismiss();
  }
  finish_serve_packets(n, n, t, tally);
  return n;
}

// reserve_tx for chains: only whole chains that tx has room for are taken off rx, the rest wait
// there. Reserves what fits and returns it.
inline std::uint32_t Queue::reserve_tx_chains(std::uint32_t n) noexcept {
  if (const std::uint32_t room = tx_->free_slots(n); room < n) [[unlikely]] {
    n = hold_back(n, chain_prefix(n, room));
    if (n == 0) return 0;
  }
  return tx_->reserve(n);  // all n: the room was checked above
}

// One packet to where its verdict sends it, as a chain on tx (its reserved slots, `tx`) or its
// fragments to recycle.
inline void Queue::route_packet(const RingWindow<xdp_desc>& tx, Packet& packet, Verdict verdict,
                                detail::PacketTally& tally) noexcept {
  static_assert(verdict_count == 3, "a new Verdict: handle it here, then count it");
  const std::uint32_t count = packet.count_;
  Frame* const fragments = packet.frames_;
  bool invalid = false;
  if (verdict != Verdict::drop) [[likely]] {
    // A packet in one frame, the commonest even on a multi-buffer socket: no chain to write.
    if (count == 1 && !fragments[0].kept_ && fragments[0].size_ != 0) [[likely]] {
      const Frame& f = fragments[0];
      tx[tally.sent++] = xdp_desc{f.address_, f.size_, 0};
      tally.tx_bytes += f.size_;
      to_tx(chunk_of(f.address_), FramePlace::application);
      return;
    }
    // Written as a chain in one pass, then published only when it can go out whole: no fragment
    // kept, none empty (the kernel would drop the chain and never complete it). The slots are
    // this batch's until publish_tx, so a chain not taken is written over or cancelled.
    const std::uint32_t first_slot = tally.sent;
    bool kept = false;
    bool empty = false;
    std::uint64_t bytes = 0;
    for (std::uint32_t k = 0; k < count; ++k) {
      const Frame& f = fragments[k];
      kept |= f.kept_;
      empty |= f.size_ == 0;
      bytes += f.size_;
      tx[first_slot + k] = xdp_desc{f.address_, f.size_, uapi::xdp_pkt_contd};
    }
    if (!kept && !empty) [[likely]] {
      tally.tx_bytes += bytes;
      tx[first_slot + count - 1].options = 0;  // the chain's end
      for (std::uint32_t k = 0; k < count; ++k)
        to_tx(chunk_of(fragments[k].address_), FramePlace::application);
      tally.sent = first_slot + count;
      return;
    }
    invalid = empty && !kept;
  }
  tally.invalid_chains += invalid ? 1 : 0;
  for (std::uint32_t k = 0; k < count; ++k) {
    if (handed_to_ref(fragments[k])) [[unlikely]]
      continue;
    chunks_[tally.back++] = chunk_of(fragments[k].address_);
    tally.dropped += invalid ? 0 : 1;
  }
}

// serve_packets' batch published: n reserved on tx, `released` descriptors handed back on rx.
inline void Queue::finish_serve_packets(std::uint32_t n, std::uint32_t released,
                                        const detail::ChainTake& t,
                                        detail::PacketTally tally) noexcept {
  end_rx(released, t.taken, t.rx_bytes);
  tx_out_ += tally.sent;
  recycle_chunks(chunks_.data(), tally.back, FramePlace::application);
  detail::QueueCounters::add(counters_.packets, t.packets);
  if (tally.dropped != 0) detail::QueueCounters::add(counters_.dropped, tally.dropped);
  if (tally.invalid_chains != 0) [[unlikely]]
    detail::QueueCounters::add(counters_.invalid_chains, tally.invalid_chains);
  publish_tx(n, tally.sent, tally.tx_bytes);
}

}  // namespace afxdp
