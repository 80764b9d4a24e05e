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
  bool discard = discarding_;
  std::uint32_t run = 0;
  std::uint32_t whole = 0;
  for (std::uint32_t i = 0; i < n && i < limit; ++i) {
    const bool more = (rx_->at(i).options & uapi::xdp_pkt_contd) != 0;
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

template <bool Unaligned>
detail::ChainTake Queue::take_chains_as(std::uint32_t n) noexcept {
  // Locals, not members, as in queue_loops.hpp's loops: the Frame stores may alias any member.
  const detail::FrameGeometry g = geo_;
  const RingWindow<const xdp_desc> rx = rx_->peeked();
  Frame* const frames = frames_.data();
  std::uint64_t* const refused = chunks_.data();
  Packet* const packets = packets_.data();
  bool discarding = discarding_;
  detail::ChainTake t;
  std::uint32_t used = 0;   // frames holding fragments of good packets and of the open chain
  std::uint32_t first = 0;  // the open chain's first frame
  std::uint32_t run = 0;
  bool bad = false;
  for (std::uint32_t i = 0; i < n; ++i) {
    const xdp_desc& desc = rx[i];
    const bool more = (desc.options & uapi::xdp_pkt_contd) != 0;
    std::uint64_t chunk = 0;
    const bool ok = take_as<Unaligned>(g, desc, frames[used], chunk);
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
