// Frames the application holds: a TxBatch it builds packets in (allocate, send) and a FrameRef
// it kept past a handler (keep, send, recycle).
#include <afxdp/queue.hpp>

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <utility>

namespace afxdp {

TxBatch Queue::allocate(std::uint32_t n) {
  std::uint64_t* const addresses = tx_addresses_.data();
  std::uint32_t* const sizes = tx_sizes_.data();
  if (batch_open_ || tx_ == nullptr) return TxBatch(nullptr, addresses, sizes, geo_.area, 0, 0);
  if (tx_in_flight_ != 0) complete();
  const std::span<const std::uint64_t> chunks = pool_.take_view(std::min(n, max_batch));
  n = static_cast<std::uint32_t>(chunks.size());
  // Each frame empty until the application resizes it.
  std::memcpy(addresses, chunks.data(), chunks.size_bytes());
  std::memset(sizes, 0, n * sizeof(std::uint32_t));
  if constexpr (FrameLedger::enabled) {
    for (std::uint32_t i = 0; i < n; ++i)
      record(chunks[i], FramePlace::free, FramePlace::application);
  }
  held_ += n;
  batch_open_ = true;
  return TxBatch(this, addresses, sizes, geo_.area, geo_.frame_size, n);
}

// xdp_desc is {u64 addr; u32 len; u32 options}: on a little-endian machine a u64 written at len
// is len in its low half and options in its high one.
static_assert(std::endian::native == std::endian::little && sizeof(xdp_desc) == 16 &&
              offsetof(xdp_desc, len) == 8 && offsetof(xdp_desc, options) == 12);

// The batch's next n frames onto the n slots reserved on q's tx, in order, but an empty one (the
// kernel skips an empty descriptor and never completes it: the frame would be lost), which goes
// back to the pool, refused and counted. Returns how many went on tx; `bytes`: what they carry.
inline std::uint32_t TxBatch::put(Queue& q, std::uint32_t n, std::uint64_t& bytes) noexcept {
  // One pass, vectorised: each descriptor written, and the sizes summed (in 32 bits: at most
  // max_batch frames of at most 64 KiB, the UMEM's largest) and checked for an empty one, in
  // which case put_packed writes the slots again (they are reserved: the kernel sees nothing).
  static_assert(std::uint64_t{max_batch} * 65536 <= ~0U);
  const std::uint64_t* const addresses = addresses_ + next_;
  std::uint32_t sum = 0;
  std::uint32_t empty = 0;
  const std::uint64_t* address = addresses;
  const std::uint32_t* size = sizes_ + next_;
  for (const std::span<xdp_desc> part : q.tx_->reserved().parts()) {
#pragma GCC unroll 4
    for (xdp_desc& slot : part) {
      const std::uint32_t len = *size++;
      sum += len;
      empty |= len == 0 ? 1U : 0U;
      // len and options (0) as one 8-byte word: two stores a descriptor, where three fields took
      // three (scripts/cost).
      const std::uint64_t len_options = len;
      slot.addr = *address++;
      std::memcpy(reinterpret_cast<std::byte*>(&slot) + offsetof(xdp_desc, len), &len_options,
                  sizeof len_options);
    }
  }
  if (empty != 0) [[unlikely]] {
    const std::uint32_t sent = put_packed(q, n);
    bytes = detail::descriptor_bytes(q.tx_->reserved(), sent);
    return sent;
  }
  for (std::uint32_t i = 0; i < n; ++i) q.to_tx(addresses[i], FramePlace::application);
  bytes = sum;
  return n;
}

// put's n frames when one is empty: the others packed into the first slots, in order.
std::uint32_t TxBatch::put_packed(Queue& q, std::uint32_t n) noexcept {
  const std::uint64_t* const addresses = addresses_ + next_;
  const std::uint32_t* const sizes = sizes_ + next_;
  const RingWindow<xdp_desc> tx = q.tx_->reserved();
  std::uint32_t sent = 0;
  for (std::uint32_t i = 0; i < n; ++i) {
    if (sizes[i] == 0) {
      q.pool_.give(addresses[i]);
      q.record(addresses[i], FramePlace::application, FramePlace::free);
      detail::QueueCounters::add(q.counters_.refused, 1);
      continue;
    }
    tx[sent++] = xdp_desc{addresses[i], sizes[i], 0};
    q.to_tx(addresses[i], FramePlace::application);
  }
  return sent;
}

std::uint32_t TxBatch::send(std::uint32_t count) {
  if (queue_ == nullptr) return 0;
  Queue& q = *queue_;
  if (q.in_tx_batch()) [[unlikely]]
    return 0;
  std::uint32_t n = std::min(count, size());
  if (const std::uint32_t room = q.tx_->free_slots(n); room < n) {
    detail::QueueCounters::add(q.counters_.tx_full, 1);
    q.kick_tx();
    n = std::min(n, q.tx_->free_slots(n));
  }
  n = q.tx_->reserve(n);  // all n: they fit
  std::uint64_t bytes = 0;
  const std::uint32_t sent = put(q, n, bytes);
  q.tx_->cancel(n - sent);
  q.submit_tx(sent, bytes);
  q.tx_out_ += sent;
  q.held_ -= n;
  next_ += n;
  if (sent != 0) q.after_send();
  return n;
}

std::uint32_t TxBatch::send_packet(std::uint32_t fragments) {
  if (queue_ == nullptr || fragments == 0 || fragments > size() || fragments > max_fragments) {
    return 0;
  }
  Queue& q = *queue_;
  if (q.in_tx_batch()) [[unlikely]]
    return 0;
  if (q.tx_->reserve(fragments) == 0) {
    detail::QueueCounters::add(q.counters_.tx_full, 1);
    q.kick_tx();
    if (q.tx_->reserve(fragments) == 0) return 0;
  }
  const std::uint64_t* const addresses = addresses_ + next_;
  const std::uint32_t* const sizes = sizes_ + next_;
  next_ += fragments;
  q.held_ -= fragments;  // out of the open batch, sent or refused
  // An empty descriptor is invalid, and the kernel drops the whole chain without completing it.
  if (std::find(sizes, sizes + fragments, 0U) != sizes + fragments) {
    q.tx_->cancel(fragments);
    for (std::uint32_t k = 0; k < fragments; ++k) {
      q.pool_.give(addresses[k]);
      q.record(addresses[k], FramePlace::application, FramePlace::free);
    }
    detail::QueueCounters::add(q.counters_.refused, fragments);
    return fragments;
  }
  for (std::uint32_t k = 0; k < fragments; ++k) {
    const std::uint32_t options = k + 1 < fragments ? uapi::xdp_pkt_contd : 0U;
    q.tx_->at(k) = xdp_desc{addresses[k], sizes[k], options};
    q.to_tx(addresses[k], FramePlace::application);
  }
  q.submit_tx(fragments, detail::descriptor_bytes(q.tx_->reserved(), fragments));
  q.tx_out_ += fragments;
  q.after_send();
  return fragments;
}

TxBatch::~TxBatch() {
  if (queue_ != nullptr) queue_->end_batch(*this);
}

void Queue::end_batch(TxBatch& batch) noexcept {
  held_ -= batch.count_ - batch.next_;
  for (std::uint32_t i = batch.next_; i < batch.count_; ++i) {
    pool_.give(batch.addresses_[i]);
    record(batch.addresses_[i], FramePlace::application, FramePlace::free);
  }
  batch_open_ = false;
}

FrameRef Queue::keep(Frame& frame) noexcept {
  // Only a frame this queue's open batch handed to a handler or reader, once: a kept frame (a
  // FrameRef's too), a pool frame (the application's already, its batch_ 0, which no batch is),
  // one read from a Frames kept past its reader (given back), or another queue's would be lent
  // twice. Refused and counted, as a send inside a batch is. (A TxBatch's is a TxFrame, which
  // keep() does not take.)
  const bool handed_now = (lacks_ & packet_rx) != 0 && frame.batch_ == batch_seq_;
  // Its bytes among this queue's frames (an address alone could be another UMEM's).
  const auto at = reinterpret_cast<std::uintptr_t>(frame.data_) -
                  reinterpret_cast<std::uintptr_t>(geo_.area + geo_.first);
  if (frame.kept_ || !handed_now || at >= geo_.span) [[unlikely]] {
    detail::QueueCounters::add(counters_.refused, 1);
    return {};
  }
  // Kept already through another Frame of it (a reader's Frames builds one per read).
  const std::uint64_t index = geo_.index(chunk_of(frame.address_));
  if (index >= held_marks_.size() || held_marks_[index] != 0) [[unlikely]] {
    detail::QueueCounters::add(counters_.refused, 1);
    return {};
  }
  held_marks_[index] = 1;
  frame.kept_ = true;
  ++keeps_;
  ++held_;
  return FrameRef(this, frame);
}

FrameRef Queue::keep(Frame&& frame) noexcept { return keep(frame); }

// A FrameRef of this queue's frame `chunk` ended (sent or recycled). Its held mark is cleared,
// unless receive's reader is running: then the frame may be one of that batch, which must not
// recycle it, and the mark is cleared when the batch is (clear_ended).
void Queue::end_held(std::uint64_t chunk) noexcept {
  --held_;
  const std::uint64_t index = geo_.index(chunk);
  if (receiving_) [[unlikely]] {
    ended_[ended_count_++] = static_cast<std::uint32_t>(index);  // at most once per frame
    return;
  }
  held_marks_[index] = 0;
}

void Queue::clear_ended() noexcept {
  for (std::uint32_t i = 0; i < ended_count_; ++i) held_marks_[ended_[i]] = 0;
  ended_count_ = 0;
}

bool Queue::send(FrameRef&& ref) noexcept {
  // A batch of one; an empty FrameRef, or one of another UMEM, is not sent (the batch would skip
  // the first and stop at the second, neither of which is a send).
  const Queue* owner = ref.queue_;
  if (owner == nullptr || owner->geo_.area != geo_.area) return false;
  return send(std::span<FrameRef>(&ref, 1)) == 1;
}

std::uint32_t Queue::send(std::span<FrameRef> refs) noexcept {
  if (tx_ == nullptr || in_tx_batch()) [[unlikely]]
    return 0;
  const auto want = static_cast<std::uint32_t>(std::min<std::size_t>(refs.size(), tx_->size()));
  const std::uint32_t room = tx_->reserve(std::min(want, tx_->free_slots(want)));
  RingCursor<xdp_desc> slot(tx_->reserved());
  std::uint32_t put = 0;
  std::uint64_t bytes = 0;
  std::size_t done = 0;
  for (; done < refs.size(); ++done) {
    FrameRef& ref = refs[done];
    Queue* const owner = ref.queue_;
    if (owner == nullptr) continue;
    if (owner->geo_.area != geo_.area) [[unlikely]]
      break;
    const Frame& f = ref.frame_;
    if (f.size() == 0) [[unlikely]] {
      detail::QueueCounters::add(counters_.refused, 1);  // never an empty descriptor (see serve)
      recycle(std::move(ref));
      continue;
    }
    if (put == room) break;
    slot.put(xdp_desc{f.address(), f.size(), 0});
    ++put;
    bytes += f.size();
    const std::uint64_t chunk = owner->chunk_of(f.address());
    owner->end_held(chunk);
    ++owner->tx_out_;
    owner->to_tx(chunk, FramePlace::application);
    ref.queue_ = nullptr;
  }
  tx_->cancel(room - put);
  submit_tx(put, bytes);
  if (done < refs.size() && put == room) {
    kick_tx();  // full: let the kernel drain it
  } else {
    after_send();
  }
  return static_cast<std::uint32_t>(done);
}

void Queue::recycle(FrameRef&& ref) noexcept {
  Queue* owner = ref.queue_;
  if (owner == nullptr) return;
  ref.queue_ = nullptr;
  const std::uint64_t chunk = owner->chunk_of(ref.frame_.address());
  owner->end_held(chunk);
  owner->recycle_chunks(&chunk, 1, FramePlace::application);
}

void Queue::abandon(FrameRef& ref) noexcept {
  detail::QueueCounters::add(counters_.abandoned, 1);
  recycle(std::move(ref));
}

FrameRef& FrameRef::operator=(FrameRef&& other) noexcept {
  if (this != &other) {
    if (queue_ != nullptr) queue_->abandon(*this);
    queue_ = std::exchange(other.queue_, nullptr);
    frame_ = other.frame_;
  }
  return *this;
}

FrameRef::~FrameRef() {
  if (queue_ != nullptr) queue_->abandon(*this);
}

}  // namespace afxdp
