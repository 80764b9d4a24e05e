// Frames the application holds: a TxBatch it builds packets in (allocate, send) and a FrameRef
// it kept past a handler (keep, send, recycle).
#include <afxdp/queue.hpp>

#include <algorithm>
#include <cstdint>
#include <utility>

namespace afxdp {

TxBatch Queue::allocate(std::uint32_t n) {
  if (batch_open_ || tx_ == nullptr) return TxBatch(nullptr, tx_frames_.data(), 0);
  if (tx_in_flight_ != 0) complete();
  const std::span<const std::uint64_t> chunks = pool_.take_view(std::min(n, max_batch));
  n = static_cast<std::uint32_t>(chunks.size());
  const detail::FrameGeometry g = geo_;
  Frame* const frames = tx_frames_.data();
  // Only what differs per frame: frame_size_ (and headroom_ 0) were set once, by the constructor.
#pragma GCC unroll 4
  for (std::uint32_t i = 0; i < n; ++i) {
    Frame& f = frames[i];
    f.data_ = g.area + chunks[i];
    f.address_ = chunks[i];
    f.size_ = 0;
  }
  if constexpr (FrameLedger::enabled) {
    for (std::uint32_t i = 0; i < n; ++i)
      record(chunks[i], FramePlace::free, FramePlace::application);
  }
  held_ += n;
  batch_open_ = true;
  return TxBatch(this, tx_frames_.data(), n);
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
  const std::uint32_t sent = q.put_batch(frames_ + next_, n, bytes);
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
  Frame* const first = frames_ + next_;
  next_ += fragments;
  q.held_ -= fragments;  // out of the open batch, sent or refused
  // An empty descriptor is invalid, and the kernel drops the whole chain without completing it.
  if (std::any_of(first, first + fragments, [](const Frame& f) { return f.size() == 0; })) {
    q.tx_->cancel(fragments);
    for (std::uint32_t k = 0; k < fragments; ++k) {
      q.pool_.give(first[k].address());
      q.record(first[k].address(), FramePlace::application, FramePlace::free);
    }
    detail::QueueCounters::add(q.counters_.refused, fragments);
    return fragments;
  }
  for (std::uint32_t k = 0; k < fragments; ++k) {
    const std::uint32_t options = k + 1 < fragments ? uapi::xdp_pkt_contd : 0U;
    q.tx_->at(k) = xdp_desc{first[k].address(), first[k].size(), options};
    q.to_tx(first[k].address(), FramePlace::application);
  }
  q.submit_tx(fragments, detail::descriptor_bytes(q.tx_->reserved(), fragments));
  q.tx_out_ += fragments;
  q.after_send();
  return fragments;
}

// A TxBatch's n frames onto the n slots reserved on tx, in order, but an empty one (the kernel
// skips an empty descriptor and never completes it: the frame would be lost), which goes back
// to the pool, refused and counted. Returns how many went on tx; `bytes`: what they carry.
std::uint32_t Queue::put_batch(const Frame* frames, std::uint32_t n,
                               std::uint64_t& bytes) noexcept {
  const detail::FrameGeometry g = geo_;
  std::uint8_t* const on_tx = on_tx_.data();
  // Each frame into the slot of its own index, up to the first empty one.
  const Frame* f = frames;
  std::uint64_t sum = 0;
  for (const std::span<xdp_desc> part : tx_->reserved().parts()) {
#pragma GCC unroll 4
    for (xdp_desc& slot : part) {
      if (f->size_ == 0) [[unlikely]] {
        const std::uint32_t sent = put_packed(frames, n, static_cast<std::uint32_t>(f - frames));
        bytes = detail::descriptor_bytes(tx_->reserved(), sent);
        return sent;
      }
      sum += f->size_;
      slot = xdp_desc{f->address_, f->size_, 0};
      if constexpr (detail::checks_kernel) on_tx[g.index(f->address_)] = 1;
      record(f->address_, FramePlace::application, FramePlace::tx);
      ++f;
    }
  }
  bytes = sum;
  return n;
}

// put_batch's rest from frames[i] on, the first empty one: packed into the slots from i on.
std::uint32_t Queue::put_packed(const Frame* frames, std::uint32_t n, std::uint32_t i) noexcept {
  const RingWindow<xdp_desc> tx = tx_->reserved();
  std::uint32_t sent = i;
  for (; i < n; ++i) {
    const Frame& f = frames[i];
    if (f.size_ == 0) {
      pool_.give(f.address_);
      record(f.address_, FramePlace::application, FramePlace::free);
      detail::QueueCounters::add(counters_.refused, 1);
      continue;
    }
    tx[sent++] = xdp_desc{f.address_, f.size_, 0};
    to_tx(f.address_, FramePlace::application);
  }
  return sent;
}

TxBatch::~TxBatch() {
  if (queue_ != nullptr) queue_->end_batch(*this);
}

void Queue::end_batch(TxBatch& batch) noexcept {
  held_ -= batch.count_ - batch.next_;
  for (std::uint32_t i = batch.next_; i < batch.count_; ++i) {
    pool_.give(batch.frames_[i].address_);
    record(batch.frames_[i].address_, FramePlace::application, FramePlace::free);
  }
  batch_open_ = false;
}

FrameRef Queue::keep(Frame& frame) noexcept {
  // Only a frame this queue's open batch handed to a handler or reader, once: a kept frame (a
  // FrameRef's too), a TxBatch's or a pool frame (already the application's, their batch_ 0, which
  // no batch is), one read from a Frames kept past its reader (given back), or another queue's
  // would be lent twice. Refused and counted, as a send inside a batch is.
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
