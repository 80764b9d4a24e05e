// Queue's cold half: set-up, completions and refill, kicks, counters, and a frame batch left by
// an exception. The per-frame loops are in detail/queue_loops.hpp (inline, so that handlers
// inline into them); waiting is in queue_wait.cpp, multi-buffer chains in queue_chains.cpp,
// TxBatch and FrameRef in queue_held.cpp.
#include <afxdp/detail/completion_run.hpp>
#include <afxdp/detail/queue_kernel.hpp>
#include <afxdp/queue.hpp>
#include <afxdp/xsk/interface.hpp>
#include <afxdp/xsk/socket.hpp>

#include "frame_owners.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cstring>
#include <stdexcept>
#include <string>
#include <system_error>

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
      held_marks_(on_tx_.size()),
      // A frame ends its FrameRef at most once per receive batch (keep() refuses it while marked).
      ended_(held_marks_.size()),
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
}

// Where completed frames go home: a queue's frames, their on-tx marks (to_tx's) and its pool's
// spare() slots (detail::HomeRange). queue null: nowhere, an address no queue lent.
struct Queue::Home : detail::HomeRange {
  Queue* queue = nullptr;
};

// One home's run of completions, in this build's variant (the checked build counts each by its
// on-tx mark).
namespace {
std::size_t accept_run(const detail::FrameGeometry& g, const detail::HomeRange& home,
                       const std::uint64_t* in, std::size_t size, std::size_t& accepted) noexcept {
  constexpr bool checked = detail::checks_kernel;
  return g.unaligned ? detail::accept_run<true, checked>(g, home, in, size, accepted)
                     : detail::accept_run<false, checked>(g, home, in, size, accepted);
}
}  // namespace

// Completions: this queue's frames are recycled, the other queue's go back to it.
void Queue::complete_slow(std::uint32_t n) noexcept {
  const detail::FrameGeometry g = geo_;
  // Release on a UMEM of its own: every completion is one of this queue's frames, sent once.
  const bool all_own = !detail::checks_kernel && owners_ == nullptr && !g.unaligned;
  while (n != 0) {
    const std::uint32_t accepted = all_own ? accept_own(n) : accept_homes();
    completion_->release(n);
    const std::uint32_t refused = n - accepted;
    const std::uint32_t completed = std::min(accepted, tx_in_flight_);
    tx_in_flight_ -= completed;
    detail::QueueCounters::add(counters_.completed, completed);
    if (refused != 0) detail::QueueCounters::add(counters_.refused, refused);
    n = completion_->peek(max_batch);
  }
}

// The n peeked completions, all this queue's frames: taken back with no test (accept_all).
std::uint32_t Queue::accept_own(std::uint32_t n) noexcept {
  std::uint64_t* free = pool_.spare();
  for (const std::span<const std::uint64_t> part : completion_->peeked().parts()) {
    detail::accept_all(geo_, part.data(), part.size(), free);
    free += part.size();
  }
  return take_back(n);
}

// The peeked completions, each to the queue that lent it: runs of one home's frames, each run
// taken back by its queue. Returns how many were accepted.
std::uint32_t Queue::accept_homes() noexcept {
  const detail::FrameGeometry g = geo_;
  Home home = own_home();
  std::size_t marked = 0;  // of the current home's, written at home.free
  std::uint32_t accepted = 0;
  for (const std::span<const std::uint64_t> part : completion_->peeked().parts()) {
    const std::uint64_t* next = part.data();
    const std::uint64_t* const end = next + part.size();
    while ((next += accept_run(g, home, next, static_cast<std::size_t>(end - next), marked)) !=
           end) {
      // Not the current home's: another queue's frame (forward()), or this one's again. The
      // run so far goes home first.
      if (marked != 0) accepted += home.queue->take_back(static_cast<std::uint32_t>(marked));
      marked = 0;
      std::uint64_t chunk = g.chunk(*next);
      if (g.unaligned) chunk = g.nearest_frame(chunk);
      home = home_of(chunk);
      if (home.queue == nullptr || chunk - home.first >= home.span) [[unlikely]] {
        // No queue lent it: the peer's error, refused (counted as what was not accepted).
        home = own_home();
        ++next;
      }
    }
  }
  if (marked != 0) accepted += home.queue->take_back(static_cast<std::uint32_t>(marked));
  return accepted;
}

// The queue a completed chunk belongs to: this one, or (a shared UMEM) the one that lent it.
Queue::Home Queue::home_of(std::uint64_t chunk) noexcept {
  if (chunk - geo_.first < geo_.span) return own_home();
  Queue* const owner = owners_ != nullptr ? owners_->owner_of(chunk) : nullptr;
  if (owner == nullptr || owner == this) return {};
  return owner->own_home();
}

Queue::Home Queue::own_home() noexcept {
  return {{geo_.first, geo_.span, on_tx_.data(), geo_.frame_shift, pool_.spare()}, this};
}

// std::logic_error naming the queue, the verb and what the queue lacks for it.
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

// Lend pool frames to the fill ring until it holds its share again (or has no room).
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

// n of this queue's frames completed (their on-tx marks cleared), from any queue's completion
// ring, written at its pool's spare(): given to the pool, and the fill ring topped up while it
// lacks frames. Returns how many were accepted (no more than were out).
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

// rx was empty: kick unsent tx, wake the fill ring when the kernel asks, count the turn.
void Queue::idle_turn() noexcept {
  detail::QueueCounters::add(counters_.empty_turns, 1);
  if (fill_side_ < fill_target_ && pool_.available() != 0) top_up_fill();
  // Frames still waiting on the tx ring need a kick (copy mode sends only then).
  if (tx_in_flight_ != 0 && tx_->outstanding() != 0) kick_if_asked();
  if (fill_->needs_wakeup()) wake_rx();
}

// tx has room for fewer than n: leave the rest on rx, kick, count. Returns what fits.
std::uint32_t Queue::hold_back(std::uint32_t n, std::uint32_t room) noexcept {
  rx_->cancel(n - room);
  detail::QueueCounters::add(counters_.tx_full, 1);
  kick_tx();
  return room;
}

// A send while a batch holds slots reserved on this queue's tx ring (checked after tx_ itself):
// refused and counted, true. Called from a handler, it would overwrite a reserved slot.
bool Queue::in_tx_batch() noexcept {
  if ((lacks_ & tx_ability) == 0) return false;
  detail::QueueCounters::add(counters_.refused, 1);
  return true;
}

// Copy a frame into one of this queue's free frames, described in `slot` (for a tx ring).
bool Queue::copy_in(const Frame& frame, xdp_desc& slot) noexcept {
  if (pool_.available() == 0 || frame.size() > geo_.frame_size) return false;
  const std::uint64_t chunk = pool_.take();
  std::memcpy(geo_.area + chunk, frame.data().data(), frame.size());
  slot = xdp_desc{chunk, frame.size(), 0};
  to_tx(chunk, FramePlace::free);
  ++tx_out_;
  return true;
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

QueueStats Queue::stats() const {
  const auto& c = counters_;
  const auto get = [](const std::atomic<std::uint64_t>& v) {
    return v.load(std::memory_order_relaxed);
  };
  QueueStats s{get(c.received),
               get(c.completed),
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

// ---- A receive batch that is not the rule: refused, kept, short of fill room, or thrown ----

// A checked build's take: a copy, in admitted_, of every peeked descriptor that names one of this
// queue's frames whole (see FrameGeometry). The batch reads only the copy: rx's slots are read
// once, here, so a descriptor rewritten after its check is never read (a refused one is never
// read, never recycled). `refused_bytes`: what the refused ones carry, for rx_bytes.
RingWindow<const xdp_desc> Queue::take_checked(std::uint64_t& refused_bytes) noexcept {
  const RingWindow<const xdp_desc> rx = rx_->peeked();
  const detail::FrameGeometry g = geo_;
  std::uint32_t taken = 0;
  for (std::uint32_t i = 0; i < rx.size(); ++i) {
    const xdp_desc desc = rx[i];  // read once
    const std::uint64_t chunk = g.chunk(desc.addr);
    const bool owned =
        g.unaligned ? g.owns_as<true>(chunk, g.offset_in<true>(desc.addr, chunk), desc.len)
                    : g.owns_as<false>(chunk, g.offset_in<false>(desc.addr, chunk), desc.len);
    if (!owned) {
      refused_bytes += desc.len;
      continue;
    }
    admitted_[taken++] = desc;
  }
  return {admitted_.data(), max_batch - 1, 0, taken};
}

// receive()'s n peeked descriptors released, `taken` of them this queue's frames: back to fill
// (or the pool) but those the reader kept, which are marked held; then the marks of the
// FrameRefs that ended inside the reader cleared.
void Queue::finish_receive(std::uint32_t n, const RingWindow<const xdp_desc>& taken,
                           std::uint64_t refused_bytes) noexcept {
  receiving_ = false;
  std::uint32_t back = 0;
  std::uint64_t bytes = refused_bytes;
  for (std::uint32_t i = 0; i < taken.size(); ++i) {
    const std::uint64_t chunk = chunk_of(taken[i].addr);
    bytes += taken[i].len;
    const std::uint64_t index = geo_.index(chunk);
    if (index >= held_marks_.size() || held_marks_[index] == 0) chunks_[back++] = chunk;
  }
  end_rx(n, taken.size(), bytes);
  recycle_chunks(chunks_.data(), back, FramePlace::application);
  clear_ended();
}

// ---- A batch left by an exception (its handler threw) ----

// A handler threw on frame i of n (`thrown`): the frames before it keep their verdicts, it goes
// back to receiving (counted as dropped) unless kept, those after it stay on rx for the next
// call.
void Queue::unwind_serve(Frame& thrown, std::uint32_t n, std::uint32_t i, std::uint32_t taken,
                         std::uint32_t sent, std::uint32_t dropped,
                         detail::ServeBytes bytes) noexcept {
  if (!handed_to_ref(thrown)) chunks_[dropped++] = chunk_of(thrown.address_);
  const std::uint32_t consumed = i + 1;
  rx_->cancel(n - consumed);  // not handled yet: the next call takes them
  tx_->cancel(n - consumed);
  finish_serve(consumed, taken, sent, dropped, bytes);
}

// As unwind_serve, for forward().
void Queue::unwind_forward(Queue& out, Frame& thrown, std::uint32_t n, std::uint32_t i,
                           detail::ForwardTally tally) noexcept {
  if (!handed_to_ref(thrown)) {
    chunks_[tally.back++] = chunk_of(thrown.address_);
    ++tally.dropped;
  }
  const std::uint32_t consumed = i + 1;
  rx_->cancel(n - consumed);  // not handled yet: the next call takes them
  out.tx_->cancel(n - consumed);
  finish_forward(out, consumed, tally);
}

}  // namespace afxdp
