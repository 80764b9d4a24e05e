// Multi-buffer (PortConfig::multi_buffer): rx descriptors taken as whole chains, and a packet
// handler's batch left by an exception. The per-packet loops are in detail/queue_packets.hpp.
#include <afxdp/queue.hpp>

#include <cstdint>

namespace afxdp {

// A packet handler threw on packet p: as unwind_serve, per packet.
void Queue::unwind_serve_packets(std::uint32_t n, std::uint32_t p, detail::ChainTake t,
                                 detail::PacketTally tally) noexcept {
  const Packet& thrown = packets_[p];
  for (std::uint32_t k = 0; k < thrown.count_; ++k) {
    Frame& f = thrown.frames_[k];
    if (!handed_to_ref(f)) {
      chunks_[tally.back++] = chunk_of(f.address_);
      ++tally.dropped;
    }
  }
  // Descriptors i and frames_[i] are one and the same when every descriptor was a fragment of a
  // good packet: then the packets after the one that threw go back on rx, whole, for the next
  // call. Otherwise (an invalid chain in the batch) where they start on rx is not known here:
  // they are recycled unhandled, counted as dropped.
  std::uint32_t released = n;
  if (t.refused == 0 && t.taken == n) {
    released = static_cast<std::uint32_t>(thrown.frames_ + thrown.count_ - frames_.data());
    for (std::uint32_t i = released; i < n; ++i) {
      record(chunk_of(frames_[i].address_), FramePlace::application, FramePlace::fill);
    }
    t.rx_bytes = detail::descriptor_bytes(rx_->peeked(), released);
    rx_->cancel(n - released);
    t.taken = released;  // the rest are the kernel's again
    t.packets = p + 1;
    discarding_ = false;  // the cut is at a packet's end
  } else {
    for (std::uint32_t q = p + 1; q < t.packets; ++q) {
      for (std::uint32_t k = 0; k < packets_[q].count_; ++k) {
        chunks_[tally.back++] = chunk_of(packets_[q].frames_[k].address_);
        ++tally.dropped;
      }
    }
  }
  finish_serve_packets(n, released, t, tally);
}

// Of the first n peeked descriptors, how many end on the last chain boundary at most `limit`
// (with first_only, on the first boundary); 0 when none does.
std::uint32_t Queue::chain_prefix(std::uint32_t n, std::uint32_t limit,
                                  bool first_only) const noexcept {
  const RingWindow<const xdp_desc> rx = rx_->peeked();
  const std::uint32_t end = n < limit ? n : limit;
  bool discard = discarding_;
  // The common batch on a multi-buffer socket: every packet in one frame, no chain to follow.
  if (!discard && !detail::any_continued(rx, end)) return first_only && end != 0 ? 1 : end;
  // Chains, none left open by the last call: the whole prefix ends after the last descriptor
  // without XDP_PKT_CONTD, when no chain runs past max_fragments (else the loop below, which
  // cuts such a chain and discards its tail). One branch-free pass.
  if (!discard && !first_only) {
    std::uint32_t continued = 0;  // XDP_PKT_CONTD descriptors in a row
    std::uint32_t longest = 0;
    std::uint32_t last_end = 0;
    for (std::uint32_t i = 0; i < end; ++i) {
      const bool more = (rx[i].options & uapi::xdp_pkt_contd) != 0;
      continued = more ? continued + 1 : 0;
      longest = continued > longest ? continued : longest;
      last_end = more ? last_end : i + 1;
    }
    if (longest < max_fragments) return last_end;
  }
  std::uint32_t run = 0;
  std::uint32_t whole = 0;
  for (std::uint32_t i = 0; i < end; ++i) {
    const bool more = (rx[i].options & uapi::xdp_pkt_contd) != 0;
    if (discard) {  // an over-long chain's tail: each descriptor is refused on its own
      whole = i + 1;
      discard = more;
      continue;
    }
    ++run;
    if (!more || run == max_fragments) {
      whole = i + 1;
      discard = more;
      run = 0;
      if (first_only && !discard) break;
    }
  }
  return whole;
}

// Of n peeked descriptors, the whole chains stay peeked and a chain cut at the end is cancelled;
// returns how many stay, 0 when rx had nothing whole.
std::uint32_t Queue::whole_chains(std::uint32_t n) noexcept {
  std::uint32_t whole = chain_prefix(n, n);
  if (whole == 0 && n < max_fragments) {
    // The first chain runs past `max`: peek on to its end (the kernel publishes chains whole).
    n += rx_->peek(max_fragments - n);
    whole = chain_prefix(n, n, true);
  }
  rx_->cancel(n - whole);
  return whole;
}

// Take the first n peeked descriptors (whole chains) into packets_ and frames_, each taken one's
// move recorded (a refused one is counted by end_rx). One loop per mode, chosen once per call.
detail::ChainTake Queue::take_chains(std::uint32_t n) noexcept {
  return geo_.unaligned ? take_chains_as<true>(n) : take_chains_as<false>(n);
}

// take_chains' common batch: every descriptor admitted, no chain longer than max_fragments and
// none left open by the last call. One pass, each Frame written once and each Packet where its
// chain ends. False, with nothing recorded, when the batch is not one: the general pass below then
// takes it from the start.
template <bool Unaligned>
bool Queue::take_clean_chains(std::uint32_t n, detail::ChainTake& t) noexcept {
  const detail::FrameGeometry g = geo_;
  const std::uint32_t batch = batch_seq_;
  Frame* const frames = frames_.data();
  Frame* next = frames;
  Frame* first = frames;  // the open chain's first fragment
  Packet* const packets = packets_.data();
  Packet* packet = packets;
  std::uint32_t left = n;
  std::uint64_t bytes = 0;
  for (const std::span<const xdp_desc> part : rx_->peeked().parts()) {
    const std::uint32_t count = left < part.size() ? left : static_cast<std::uint32_t>(part.size());
    left -= count;
    for (const xdp_desc& desc : part.first(count)) {
      if (!take_as<Unaligned>(g, desc, *next)) [[unlikely]]
        return false;
      bytes += desc.len;
      next->batch_ = batch;
      ++next;
      const auto fragments = static_cast<std::uint32_t>(next - first);
      if ((desc.options & uapi::xdp_pkt_contd) != 0) {
        if (fragments == max_fragments) [[unlikely]]
          return false;
        continue;
      }
      *packet++ = Packet(first, fragments);
      first = next;
    }
  }
  if (first != next) [[unlikely]]
    return false;  // a chain cut by the batch's end (whole_chains leaves none)
  if constexpr (FrameLedger::enabled) {
    for (std::uint32_t i = 0; i < n; ++i) {
      record(chunk_of(frames[i].address_), FramePlace::fill, FramePlace::application);
    }
  }
  t = {.packets = static_cast<std::uint32_t>(packet - packets),
       .taken = n,
       .refused = 0,
       .rx_bytes = bytes};
  return true;
}

template <bool Unaligned>
detail::ChainTake Queue::take_chains_as(std::uint32_t n) noexcept {
  detail::ChainTake t;
  if (!discarding_ && take_clean_chains<Unaligned>(n, t)) [[likely]]
    return t;
  // Locals, not members, as in queue_loops.hpp's loops: the Frame stores may alias any member.
  const detail::FrameGeometry g = geo_;
  const RingWindow<const xdp_desc> rx = rx_->peeked();
  Frame* const frames = frames_.data();
  std::uint64_t* const refused = chunks_.data();
  Packet* const packets = packets_.data();
  bool discarding = discarding_;
  std::uint32_t used = 0;   // frames holding fragments of good packets and of the open chain
  std::uint32_t first = 0;  // the open chain's first frame
  std::uint32_t run = 0;
  bool bad = false;
  for (std::uint32_t i = 0; i < n; ++i) {
    const xdp_desc& desc = rx[i];
    t.rx_bytes += desc.len;
    const bool more = (desc.options & uapi::xdp_pkt_contd) != 0;
    std::uint64_t chunk = 0;
    const bool ok = take_as<Unaligned>(g, desc, frames[used], chunk);
    frames[used].batch_ = batch_seq_;
    if (ok) [[likely]] {
      ++t.taken;
      record(chunk, FramePlace::fill, FramePlace::application);
    }
    if (discarding) [[unlikely]] {
      if (ok) refused[t.refused++] = chunk;
      discarding = more;
      continue;
    }
    ++run;
    if (ok) [[likely]] {
      ++used;
    } else {
      bad = true;
    }
    if (more && run < max_fragments) continue;
    if (!more && !bad) [[likely]] {
      packets[t.packets++] = Packet(&frames[first], used - first);
    } else {
      // Refused whole: too long (its tail follows, refused too) or with a bad descriptor.
      for (std::uint32_t j = first; j < used; ++j)
        refused[t.refused++] = g.chunk(frames[j].address_);
      used = first;
      discarding = more;
      detail::QueueCounters::add(counters_.invalid_chains, 1);
    }
    first = used;
    run = 0;
    bad = false;
  }
  discarding_ = discarding;
  return t;
}

}  // namespace afxdp
