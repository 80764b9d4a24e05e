// Queue's cold half: set-up, completions, kicks, waiting, TxBatch and FrameRef. The per-frame
// loops are in queue.hpp so that handlers inline into them.
#include <afxdp/detail/queue_kernel.hpp>
#include <afxdp/queue.hpp>
#include <afxdp/xsk/interface.hpp>
#include <afxdp/xsk/socket.hpp>

#include "frame_owners.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cerrno>
#include <cstring>
#include <functional>
#include <poll.h>
#include <stdexcept>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

namespace afxdp {

Queue::Queue(const detail::QueueSetup& s)
    : rx_(s.rx),
      tx_(s.tx),
      fill_(s.fill),
      completion_(s.completion),
      geo_{.area = s.area,
           .chunk_mask = s.unaligned ? std::uint64_t{XSK_UNALIGNED_BUF_ADDR_MASK}
                                     : ~(std::uint64_t{s.frame_size} - 1),
           .first = s.first,
           .span = std::uint64_t{s.frames} * s.frame_size,
           .frame_size = s.frame_size,
           .frame_shift = static_cast<std::uint32_t>(std::bit_width(s.frame_size)) - 1,
           .unaligned = s.unaligned},
      need_wakeup_(s.need_wakeup),
      busy_poll_(s.busy_poll),
      spin_(s.spin_before_sleep),
      lacks_(static_cast<std::uint8_t>((s.rx == nullptr || s.multi_buffer ? frame_rx : 0) |
                                       (s.rx == nullptr ? packet_rx : 0) |
                                       (s.tx == nullptr ? tx_ability : 0))),
      // Copy mode sends only when kicked: once per few batches, and whenever rx runs dry.
      kick_at_(s.tx != nullptr ? std::min(s.tx->size() / 4, 4 * default_batch) : 0),
      frames_count_(s.frames),
      // Spare room for one completion batch: complete_slow writes there before it knows.
      pool_(s.frames, s.frame_size, s.first, max_batch),
      on_tx_((std::uint64_t{s.frames} * s.frame_size >> geo_.frame_shift) + 1),
      ledger_(s.frames, s.frame_size),
      fd_(s.fd),
      id_(s.id),
      interface_(s.interface),
      socket_(s.socket),
      umem_(s.umem),
      owners_(s.owners),
      kernel_(s.kernel),
      multi_buffer_(s.multi_buffer) {
  // Lend the kernel its frames before any XSKMAP slot points here (Port inserts afterwards).
  std::uint32_t lend = std::min({s.fill_frames, s.frames, s.rx != nullptr ? fill_->size() : 0U});
  lend = fill_->reserve(lend);
  for (std::uint32_t i = 0; i < lend; ++i) {
    fill_->at(i) = pool_.take();
    record(fill_->at(i), FramePlace::free, FramePlace::fill);
  }
  fill_->submit(lend);
  fill_side_ = lend;
  fill_target_ = lend;
  // allocate() writes only what differs per frame: a batch's frames are whole frames, and
  // nothing but resize() (the size) changes them while the application holds them.
  for (Frame& f : tx_frames_) f.frame_size_ = geo_.frame_size;
}

void Queue::complete_slow(std::uint32_t n) noexcept {
  const detail::FrameGeometry g = geo_;
  while (n != 0) {
    Home home = own_home();
    std::size_t marked = 0;  // of the current home's, written at home.free
    std::uint32_t accepted = 0;
    for (const std::span<const std::uint64_t> part : completion_->peeked().parts()) {
      const std::uint64_t* next = part.data();
      const std::uint64_t* const end = next + part.size();
      while ((next = g.unaligned ? accept<true>(home, next, end, marked)
                                 : accept<false>(home, next, end, marked)) != end) {
        // Not the current home's: another queue's frame (forward()), or this one's again. The
        // run so far goes home first.
        if (marked != 0) accepted += home.queue->take_back(static_cast<std::uint32_t>(marked));
        marked = 0;
        std::uint64_t chunk = g.chunk(*next);
        if (g.unaligned) chunk = nearest_frame(chunk);
        home = home_of(chunk);
        if (home.queue == nullptr || chunk - home.first >= home.span) [[unlikely]] {
          // No queue lent it: the peer's error, refused (counted below as what was not accepted).
          home = own_home();
          ++next;
        }
      }
    }
    if (marked != 0) accepted += home.queue->take_back(static_cast<std::uint32_t>(marked));
    completion_->release(n);
    const std::uint32_t refused = n - accepted;
    accepted = std::min(accepted, tx_in_flight_);
    tx_in_flight_ -= accepted;
    detail::QueueCounters::add(counters_.sent, accepted);
    if (refused != 0) detail::QueueCounters::add(counters_.refused, refused);
    n = completion_->peek(max_batch);
  }
}

Queue::Home Queue::home_of(std::uint64_t chunk) noexcept {
  if (chunk - geo_.first < geo_.span) return own_home();
  Queue* const owner = owners_ != nullptr ? owners_->owner_of(chunk) : nullptr;
  if (owner == nullptr || owner == this) return {};
  return owner->own_home();
}

Queue::Home Queue::own_home() noexcept {
  return {this, geo_.first, geo_.span, on_tx_.data(), geo_.frame_shift, pool_.spare()};
}

void Queue::refuse(std::uint8_t needs, const char* verb) const {
  const std::uint8_t missing = lacks_ & needs;
  std::string why;
  if ((missing & (packet_rx | frame_rx)) != 0 && rx_ == nullptr) {
    why = "the queue has no rx ring (PortConfig::receive is false)";
  } else if ((missing & frame_rx) != 0 && multi_buffer_) {
    why =
        "the queue is multi-buffer (PortConfig::multi_buffer), where a frame may be a fragment: "
        "use receive_packets or serve_packets";
  } else if ((missing & tx_ability) != 0 && tx_ == nullptr) {
    why = "the queue has no tx ring (PortConfig::transmit is false)";
  } else {
    why = "called inside a handler or reader of this queue's batch (or of a forward() out of it)";
  }
  throw std::logic_error(std::string("Queue::") + verb + " on " + name() + ": " + why);
}

template <bool Unaligned>
const std::uint64_t* Queue::accept(const Home& home, const std::uint64_t* next,
                                   const std::uint64_t* end, std::size_t& accepted) const noexcept {
  const std::uint64_t chunk_mask = geo_.chunk_mask;
  std::size_t marked = accepted;
  // Unrolled, as put_batch's and allocate's loops: the loop's own step and test, once per four
  // frames, are a fifth of its instructions per frame otherwise (scripts/cost).
#pragma GCC unroll 4
  for (; next != end; ++next) {
    std::uint64_t chunk = *next & chunk_mask;
    // Linux 6.18's copy mode hands an odd tx address back one lower (it tags bit 0 of the skb's
    // destructor_arg); our tx addresses are frame starts, so take the nearest one.
    if constexpr (Unaligned) chunk = nearest_frame(chunk);
    home.free[marked] = chunk;  // kept only when accepted below (spare(): always in bounds)
    const std::uint64_t at = chunk - home.first;
    if (at >= home.span) [[unlikely]]
      break;
    if constexpr (detail::checks_kernel) {
      // Accepted when it was out on tx; else a duplicate, or never sent: refused.
      std::uint8_t& mark = home.on_tx[at >> home.shift];
      marked += mark;
      mark = 0;
    } else {
      ++marked;  // the kernel completes what was sent, once (Release trusts it)
    }
  }
  accepted = marked;
  return next;
}

void Queue::top_up_fill() noexcept {
  std::uint32_t n = std::min(fill_target_ - fill_side_, pool_.available());
  n = fill_->reserve(std::min(n, fill_->free_slots(n)));  // what fits, then all of it
  for (const std::span<std::uint64_t> part : fill_->reserved().parts()) {
    (void)pool_.take_as_given(part.data(), static_cast<std::uint32_t>(part.size()));
  }
  if constexpr (FrameLedger::enabled) {
    const RingWindow<std::uint64_t> fill = fill_->reserved();
    for (std::uint32_t i = 0; i < n; ++i) record(fill[i], FramePlace::free, FramePlace::fill);
  }
  fill_->submit(n);
  fill_side_ += n;
}

std::uint32_t Queue::take_back(std::uint32_t n) noexcept {
  n = std::min(n, tx_out_);
  tx_out_ -= n;
  if constexpr (FrameLedger::enabled) {
    const std::uint64_t* const chunks = pool_.spare();
    for (std::uint32_t i = 0; i < n; ++i) record(chunks[i], FramePlace::tx, FramePlace::free);
  }
  (void)pool_.give_spare(n);
  if (fill_side_ < fill_target_) top_up_fill();
  return n;
}

void Queue::idle_turn() noexcept {
  detail::QueueCounters::add(counters_.empty_turns, 1);
  if (fill_side_ < fill_target_ && pool_.available() != 0) top_up_fill();
  // Frames still waiting on the tx ring need a kick (copy mode sends only then).
  if (tx_in_flight_ != 0 && tx_->outstanding() != 0) kick_if_asked();
  if (fill_->needs_wakeup()) wake_rx();
}

std::uint32_t Queue::reserve_tx(Queue& out, std::uint32_t n) noexcept {
  if (const std::uint32_t room = out.tx_->free_slots(n); room < n) [[unlikely]] {
    n = hold_back(n, room);
    if (&out != this) out.kick_tx();
    if (n == 0) return 0;
  }
  return out.tx_->reserve(n);  // all n: the room was checked above
}

std::uint32_t Queue::hold_back(std::uint32_t n, std::uint32_t room) noexcept {
  rx_->cancel(n - room);
  detail::QueueCounters::add(counters_.tx_full, 1);
  kick_tx();
  return room;
}

bool Queue::in_tx_batch() noexcept {
  if ((lacks_ & tx_ability) == 0) return false;
  detail::QueueCounters::add(counters_.refused, 1);
  return true;
}

bool Queue::copy_in(const Frame& frame, xdp_desc& slot) noexcept {
  if (pool_.available() == 0 || frame.size() > geo_.frame_size) return false;
  const std::uint64_t chunk = pool_.take();
  std::memcpy(geo_.area + chunk, frame.data().data(), frame.size());
  slot = xdp_desc{chunk, frame.size(), 0};
  to_tx(chunk, FramePlace::free);
  ++tx_out_;
  return true;
}

bool Queue::rx_ready() noexcept {
  if (rx_ == nullptr) return false;
  const std::uint32_t n = rx_->peek(1);
  rx_->cancel(n);
  return n != 0;
}

void Queue::wake_result(int error) noexcept {
  const WakeStatus status{error};
  if (!status.transient()) error_ = error;
}

void Queue::kick_if_asked() noexcept {
  if (!need_wakeup_ || tx_->needs_wakeup()) kick_tx();
}

void Queue::kick_tx() noexcept {
  detail::QueueCounters::add(counters_.wakeups, 1);
  wake_result(kernel_->kick_tx());
}

void Queue::wake_rx() noexcept {
  detail::QueueCounters::add(counters_.wakeups, 1);
  wake_result(kernel_->wake_rx());
}

int Queue::poll(short events, std::chrono::nanoseconds timeout) noexcept {
  detail::QueueCounters::add(counters_.polls, 1);
  const detail::PollResult result = kernel_->poll(events, timeout);
  wake_result(result.error);
  return result.revents;
}

bool Queue::interface_gone() const {
  return socket_ != nullptr && !interface_exists(socket_->ifindex());
}

std::string Queue::error_message() const {
  if (error_ == 0) return {};
  if (interface_gone()) return InterfaceGone(interface_).what();
  return name() + ": wake-up failed: " + std::generic_category().message(error_);
}

void Queue::flush() noexcept {
  if (tx_ != nullptr && tx_->outstanding() != 0) kick_tx();
}

bool Queue::drain(std::chrono::milliseconds timeout) noexcept {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    if (tx_in_flight_ != 0) complete();
    if (tx_in_flight_ == 0) return true;
    if (std::chrono::steady_clock::now() >= deadline) return false;
    if (tx_->outstanding() != 0) {
      kick_tx();
    } else {
      std::this_thread::yield();
    }
  }
}

bool Queue::wait(std::chrono::nanoseconds timeout) noexcept {
  if (tx_ != nullptr && tx_in_flight_ != 0) {
    if (tx_->outstanding() != 0) {
      kick_tx();
      return true;
    }
    if (rx_ == nullptr) {  // sending only: what can come is completions
      if (completion_->peek(1) != 0) {
        completion_->cancel(1);
        idle_.note_data();  // the sender's work follows: no idle stretch for IdleWait to time
        return true;
      }
      if (timeout.count() == 0) {
        idle_.spin_yield();
        return false;
      }
      return poll(POLLOUT, timeout) != 0;
    }
  }
  if (rx_ == nullptr) return false;
  if (rx_ready()) return true;
  // Busy polling: one recvfrom(), which runs the driver's NAPI poll here, then the same window
  // and the same sleep or yield as without it (on one core the kernel's NAPI thread needs the
  // CPU to deliver anything).
  if (busy_poll_) {
    wake_rx();
    if (rx_ready()) return true;
  }
  // Completions are collected while waiting: a frame sent back is lent for receiving again
  // as soon as the kernel is done with it, not after the next batch arrives (a forwarder's
  // fill ring runs short otherwise).
  while (!idle_.note_empty()) {
    if (tx_in_flight_ != 0) complete();
    if (rx_ready()) return true;
  }
  if (spin_.count() != 0 && spin_until_ready(timeout)) return true;
  if (tx_in_flight_ != 0) complete();
  if (timeout.count() == 0) {
    idle_.spin_yield();
    return rx_ready();
  }
  return (poll(POLLIN, timeout) & POLLIN) != 0;
}

bool Queue::spin_until_ready(std::chrono::nanoseconds timeout) noexcept {
  // Bounded by a poll()'s timeout; a zero timeout (a yield next) spins the whole budget, since a
  // yield on a busy CPU gives it away for a time slice (milliseconds).
  const auto spin = timeout.count() <= 0 ? spin_ : std::min(spin_, timeout);
  const auto until = std::chrono::steady_clock::now() + spin;
  do {
    for (int i = 0; i < 16; ++i) {  // the clock costs more than a look at the ring
      if (rx_ready()) return true;
      IdleWait::pause();
    }
    if (tx_in_flight_ != 0) complete();
  } while (std::chrono::steady_clock::now() < until);
  return rx_ready();
}

bool wait_any(std::span<Queue* const> queues, std::chrono::nanoseconds timeout) noexcept {
  if (queues.empty()) return false;
  if (queues.size() == 1) return queues[0]->wait(timeout);
  bool ready = false;
  for (Queue* q : queues) {
    if (q->tx_ != nullptr && q->tx_in_flight_ != 0 && q->tx_->outstanding() != 0) {
      q->kick_tx();
      ready = true;
    }
    ready = ready || q->rx_ready();
  }
  // The first queue's IdleWait times the waits; data on any queue is data to it (each queue's own
  // receive notes only its own).
  IdleWait& idle = queues[0]->idle_;
  if (ready) {
    idle.note_data();
    return true;
  }
  while (!idle.note_empty()) {
    for (Queue* q : queues) {
      if (q->rx_ready()) {
        idle.note_data();
        return true;
      }
    }
  }
  if (timeout.count() == 0) {
    idle.spin_yield();
    ready = std::any_of(queues.begin(), queues.end(), [](Queue* q) { return q->rx_ready(); });
    if (ready) idle.note_data();
    return ready;
  }
  std::vector<detail::QueueKernel*> kernels;
  kernels.reserve(queues.size());
  for (Queue* q : queues) {
    kernels.push_back(q->kernel_);
    detail::QueueCounters::add(q->counters_.polls, 1);
  }
  std::vector<int> errors(queues.size(), 0);
  const bool woke = kernels[0]->poll_any(kernels, errors, timeout);
  for (std::size_t i = 0; i < queues.size(); ++i) queues[i]->wake_result(errors[i]);
  return woke;
}

QueueStats Queue::stats() const {
  const auto& c = counters_;
  const auto get = [](const std::atomic<std::uint64_t>& v) {
    return v.load(std::memory_order_relaxed);
  };
  QueueStats s{get(c.received),
               get(c.sent),
               get(c.dropped),
               get(c.forwarded),
               get(c.tx_full),
               get(c.wakeups),
               get(c.polls),
               get(c.empty_turns),
               get(c.refused),
               get(c.abandoned),
               {},
               get(c.packets),
               get(c.invalid_chains),
               get(c.rx_bytes),
               get(c.tx_bytes)};
  s.kernel = kernel_->statistics();
  return s;
}

// ---- A batch left by an exception (its handler or reader threw) ----

void Queue::recycle_unkept(std::uint32_t taken) noexcept {
  // Slot i of the span still holds the frame take_all made from chunks_[i]: a reader can neither
  // reorder nor overwrite its span (Frame is not assignable). What goes back is every chunk
  // whose frame was not kept.
  std::uint32_t back = 0;
  for (std::uint32_t i = 0; i < taken; ++i) {
    if (frames_[i].kept_) [[unlikely]] {
      frames_[i].kept_ = false;
      continue;
    }
    chunks_[back++] = chunks_[i];
  }
  recycle_chunks(chunks_.data(), back, FramePlace::application);
}

void Queue::unwind_serve(const Frame& thrown, std::uint32_t n, std::uint32_t i, std::uint32_t taken,
                         std::uint32_t sent, std::uint32_t dropped, ServeBytes bytes) noexcept {
  if (!thrown.kept_) chunks_[dropped++] = chunk_of(thrown.address_);
  const std::uint32_t consumed = i + 1;
  rx_->cancel(n - consumed);  // not handled yet: the next call takes them
  tx_->cancel(n - consumed);
  finish_serve(consumed, taken, sent, dropped, bytes);
}

void Queue::unwind_forward(Queue& out, const Frame& thrown, std::uint32_t n, std::uint32_t i,
                           ForwardTally tally) noexcept {
  if (!thrown.kept_) {
    chunks_[tally.back++] = chunk_of(thrown.address_);
    ++tally.dropped;
  }
  const std::uint32_t consumed = i + 1;
  rx_->cancel(n - consumed);  // not handled yet: the next call takes them
  out.tx_->cancel(n - consumed);
  finish_forward(out, consumed, tally);
}

void Queue::unwind_serve_packets(std::uint32_t n, std::uint32_t p, ChainTake t,
                                 PacketTally tally) noexcept {
  const Packet& thrown = packets_[p];
  for (std::uint32_t k = 0; k < thrown.count_; ++k) {
    Frame& f = thrown.frames_[k];
    if (f.kept_) {
      f.kept_ = false;
    } else {
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
    fill_side_ += n - released;
    t.taken = released;
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

// ---- Sending what the application built ----

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
  q.submit_tx(fragments);
  q.tx_out_ += fragments;
  q.after_send();
  return fragments;
}

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

// ---- Multi-buffer: whole chains ----

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

std::uint32_t Queue::peek_chains(std::uint32_t max) noexcept {
  std::uint32_t n = rx_->peek(clamp(max));
  if (n == 0) {
    idle_turn();
    return 0;
  }
  std::uint32_t whole = chain_prefix(n, n);
  if (whole == 0 && n < max_fragments) {
    // The first chain runs past `max`: peek on to its end (the kernel publishes chains whole).
    n += rx_->peek(max_fragments - n);
    whole = chain_prefix(n, n, true);
  }
  rx_->cancel(n - whole);
  return whole;
}

Queue::ChainTake Queue::take_chains(std::uint32_t n) noexcept {
  return geo_.unaligned ? take_chains_as<true>(n) : take_chains_as<false>(n);
}

template <bool Unaligned>
Queue::ChainTake Queue::take_chains_as(std::uint32_t n) noexcept {
  // Locals, not members, as in queue_loops.hpp's loops: the Frame stores may alias any member.
  const detail::FrameGeometry g = geo_;
  const RingWindow<const xdp_desc> rx = rx_->peeked();
  Frame* const frames = frames_.data();
  std::uint64_t* const refused = chunks_.data();
  Packet* const packets = packets_.data();
  bool discarding = discarding_;
  ChainTake t;
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
    } else {
      detail::QueueCounters::add(counters_.refused, 1);
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

// ---- Frames kept past the handler ----

FrameRef Queue::keep(Frame& frame) noexcept {
  // Only a frame this queue handed to a handler or reader, once: a kept frame (a FrameRef's
  // too), a TxBatch's (already the application's: sent by the batch) or another queue's would be
  // lent twice. Refused and counted, as a send inside a batch is.
  const Frame* const batch = tx_frames_.data();
  const bool in_tx_batch =
      std::less_equal<>{}(batch, &frame) && std::less<>{}(&frame, batch + tx_frames_.size());
  // Its bytes among this queue's frames (an address alone could be another UMEM's).
  const auto at = reinterpret_cast<std::uintptr_t>(frame.data_) -
                  reinterpret_cast<std::uintptr_t>(geo_.area + geo_.first);
  if (frame.kept_ || in_tx_batch || at >= geo_.span) [[unlikely]] {
    detail::QueueCounters::add(counters_.refused, 1);
    return {};
  }
  frame.kept_ = true;
  ++keeps_;
  ++held_;
  return FrameRef(this, frame);
}

bool Queue::send(FrameRef&& ref) noexcept {
  Queue* owner = ref.queue_;
  if (owner == nullptr || tx_ == nullptr || owner->geo_.area != geo_.area) return false;
  if (in_tx_batch()) [[unlikely]]
    return false;
  if (ref.frame_.size() == 0) [[unlikely]] {
    // Never an empty descriptor (see serve): the frame goes back to receiving, counted.
    detail::QueueCounters::add(counters_.refused, 1);
    recycle(std::move(ref));
    return true;
  }
  if (tx_->reserve(1) != 1) {
    kick_tx();
    return false;
  }
  tx_->at(0) = xdp_desc{ref.frame_.address(), ref.frame_.size(), 0};
  submit_tx(1, ref.frame_.size());
  --owner->held_;
  ++owner->tx_out_;
  owner->to_tx(owner->chunk_of(ref.frame_.address()), FramePlace::application);
  ref.queue_ = nullptr;
  after_send();
  return true;
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
    --owner->held_;
    ++owner->tx_out_;
    owner->to_tx(owner->chunk_of(f.address()), FramePlace::application);
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
  --owner->held_;
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
