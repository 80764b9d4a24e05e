// afxdp::Queue: one rx queue's socket as the data path users write against. A handler returns a
// Verdict per Frame; the Queue keeps the ring protocol's rules (docs/rings.md) so that no frame
// is lost or lent twice: refill, completions, tx backpressure, kicks and idle waiting.
//
// Every frame of a queue is in exactly one place at a time, and account() says where:
//   free  the queue's pool (for allocate(), and for the fill ring when it has room again)
//   fill  lent to the kernel for receiving (fill ring, kernel, rx ring)
//   tx    handed to a tx ring (this queue's, or the other queue's in forward()), not completed
//   held  the application's: kept in a FrameRef, or in an open TxBatch
// The sum is always frames(); a debug ledger (AFXDP_FRAME_LEDGER) checks each frame's moves.
//
// Threading: one thread drives a Queue (and, with forward(), both queues of the pair). stats()
// may be called from any thread. Handlers and readers are template parameters: no indirect call
// per packet.
#pragma once

#include <afxdp/cache_line.hpp>
#include <afxdp/detail/uapi.hpp>
#include <afxdp/frame.hpp>
#include <afxdp/frame_ledger.hpp>
#include <afxdp/frame_pool.hpp>
#include <afxdp/idle_wait.hpp>
#include <afxdp/packet.hpp>
#include <afxdp/queue_stats.hpp>
#include <afxdp/ring.hpp>

#include <array>
#include <atomic>
#include <chrono>
#include <concepts>
#include <cstdint>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

namespace afxdp {

class Socket;
class Umem;
class Queue;

namespace detail {
class QueueKernel;
struct FrameOwners;
}  // namespace detail

// The most frames one receive/serve/forward/allocate call handles.
inline constexpr std::uint32_t max_batch = 256;
inline constexpr std::uint32_t default_batch = 64;

template <class H>
concept FrameHandler =
    std::invocable<H&, Frame&> && std::same_as<std::invoke_result_t<H&, Frame&>, Verdict>;
template <class R>
concept FrameReader = std::invocable<R&, std::span<Frame>>;
template <class H>
concept PacketHandler =
    std::invocable<H&, Packet&> && std::same_as<std::invoke_result_t<H&, Packet&>, Verdict>;
template <class R>
concept PacketReader = std::invocable<R&, std::span<Packet>>;

// A frame kept past the handler's return (Queue::keep). Move-only; ended by Queue::send or
// Queue::recycle. One destroyed without either is counted as abandoned and its frame recycled.
class FrameRef {
 public:
  FrameRef() = default;
  FrameRef(FrameRef&& other) noexcept : queue_(other.queue_), frame_(other.frame_) {
    other.queue_ = nullptr;
  }
  FrameRef& operator=(FrameRef&& other) noexcept;
  FrameRef(const FrameRef&) = delete;
  FrameRef& operator=(const FrameRef&) = delete;
  ~FrameRef();

  explicit operator bool() const noexcept { return queue_ != nullptr; }
  Frame& frame() noexcept { return frame_; }
  [[nodiscard]] std::span<std::byte> data() const noexcept { return frame_.data(); }

 private:
  friend class Queue;
  FrameRef(Queue* queue, const Frame& frame) noexcept : queue_(queue), frame_(frame) {}
  Queue* queue_ = nullptr;
  Frame frame_;
};

// Frames from the queue's pool to build packets in (Queue::allocate). Move-only; frames not
// sent go back to the pool when it is destroyed.
class TxBatch {
 public:
  TxBatch(TxBatch&& other) noexcept
      : queue_(other.queue_), frames_(other.frames_), next_(other.next_), count_(other.count_) {
    other.queue_ = nullptr;
  }
  TxBatch& operator=(TxBatch&&) = delete;
  TxBatch(const TxBatch&) = delete;
  TxBatch& operator=(const TxBatch&) = delete;
  ~TxBatch();

  // Frames not sent yet.
  [[nodiscard]] std::uint32_t size() const noexcept { return count_ - next_; }
  Frame& operator[](std::uint32_t i) noexcept { return frames_[next_ + i]; }
  Frame* begin() noexcept { return frames_ + next_; }
  Frame* end() noexcept { return frames_ + count_; }
  // Send the first `count` unsent frames (their size() bytes), in order; returns how many the tx
  // ring took. The rest stay in the batch.
  std::uint32_t send(std::uint32_t count);
  std::uint32_t send() { return send(size()); }
  // Send the first `fragments` unsent frames as one packet (a multi-buffer socket's chain:
  // XDP_PKT_CONTD on all but the last), all or nothing. Returns the frames it took from the
  // batch: `fragments` when sent (or refused and recycled, when one of them is empty), 0 when
  // the tx ring has no room for all of them, or fragments is 0, more than size() or more than
  // max_fragments (the kernel would drop such a chain and never complete its frames).
  std::uint32_t send_packet(std::uint32_t fragments);

 private:
  friend class Queue;
  TxBatch(Queue* queue, Frame* frames, std::uint32_t count) noexcept
      : queue_(queue), frames_(frames), count_(count) {}
  Queue* queue_ = nullptr;
  Frame* frames_ = nullptr;
  std::uint32_t next_ = 0;
  std::uint32_t count_ = 0;
};

namespace detail {

// Written by the queue's thread only (a relaxed load and store, no read-modify-write), read by
// any thread through Queue::stats().
struct alignas(cache_line) QueueCounters {
  std::atomic<std::uint64_t> received{0}, sent{0}, dropped{0}, forwarded{0}, tx_full{0}, wakeups{0},
      polls{0}, empty_turns{0}, refused{0}, abandoned{0}, packets{0}, invalid_chains{0};
  static void add(std::atomic<std::uint64_t>& counter, std::uint64_t n) noexcept {
    counter.store(counter.load(std::memory_order_relaxed) + n, std::memory_order_relaxed);
  }
};

// Runs `undo` when a batch is left by an exception (its handler or reader threw); the normal path
// dismiss()es it first, and the destructor's test folds away there.
template <class Undo>
class OnUnwind {
 public:
  explicit OnUnwind(Undo undo) noexcept : undo_(undo) {}
  OnUnwind(const OnUnwind&) = delete;
  OnUnwind& operator=(const OnUnwind&) = delete;
  ~OnUnwind() {
    if (armed_) [[unlikely]]
      undo_();
  }
  void dismiss() noexcept { armed_ = false; }

 private:
  Undo undo_;
  bool armed_ = true;
};

// What Port (or testing::Loopback) hands a Queue: its rings, its frames, and whom to kick.
struct QueueSetup {
  std::string interface;
  std::uint32_t id = 0;  // the rx queue
  FillRing* fill = nullptr;
  CompletionRing* completion = nullptr;
  RxRing* rx = nullptr;  // null: no receiving
  TxRing* tx = nullptr;  // null: no sending
  std::byte* area = nullptr;
  std::uint64_t first = 0;  // this queue's frames: first + i * frame_size, i < frames
  std::uint32_t frames = 0;
  std::uint32_t frame_size = 0;   // a power of two, unless unaligned
  std::uint32_t headroom = 0;     // the UMEM's, in front of XDP_PACKET_HEADROOM
  bool unaligned = false;         // XDP_UMEM_UNALIGNED_CHUNK_FLAG addresses
  bool multi_buffer = false;      // XDP_USE_SG: received frames may be fragments of a packet
  std::uint32_t fill_frames = 0;  // lent for receiving when the queue starts
  bool need_wakeup = true;
  bool busy_poll = false;
  std::chrono::nanoseconds spin_before_sleep{0};  // PortConfig::spin_before_sleep
  int fd = -1;
  Socket* socket = nullptr;
  Umem* umem = nullptr;
  FrameOwners* owners = nullptr;  // the queues sharing this UMEM, to return forwarded frames
  QueueKernel* kernel = nullptr;  // never null: whom to kick (the socket; a test's double)
};

}  // namespace detail

class Queue {
 public:
  // Queues are made by Port::open (or testing::Loopback) and live at a fixed address.
  explicit Queue(const detail::QueueSetup& setup);
  Queue(const Queue&) = delete;
  Queue& operator=(const Queue&) = delete;
  ~Queue() = default;

  // Take up to `max` received frames, hand them to reader(std::span<Frame>), then give them all
  // back to the kernel (but those the reader kept). Returns how many frames the reader saw.
  template <FrameReader Reader>
  std::uint32_t receive(Reader&& reader, std::uint32_t max = default_batch);

  // Take up to `max` received frames, as many as the tx ring has room for, and ask handler(Frame&)
  // for each: send_back (or forward) goes out of this queue's tx ring, drop back to receiving.
  // Returns how many frames were taken off rx.
  template <FrameHandler Handler>
  std::uint32_t serve(Handler&& handler, std::uint32_t max = default_batch);

  // As serve, but Verdict::forward goes out of `out`'s tx ring. Frames completed there come
  // back to this queue. Both queues belong to the calling thread. Without a UMEM shared with
  // `out` (Port::open_pair shares one) each forwarded frame is copied into one of out's.
  template <FrameHandler Handler>
  std::uint32_t forward(Queue& out, Handler&& handler, std::uint32_t max = default_batch);

  // Multi-buffer (PortConfig::multi_buffer): as receive and serve, per whole packet. A packet is
  // the chain of descriptors the kernel wrote it into (a frame of its own when it fits one).
  // At most `max` descriptors per call, but never a chain cut in two: one cut by the end of the
  // batch stays on rx and is taken whole by a later call (the first chain of a call may run past
  // `max`). A chain longer than max_fragments, or with a refused descriptor, is never handed
  // over: its frames are recycled and it is counted in invalid_chains. serve_packets applies
  // the verdict to the whole chain: send_back/forward sends it out of this queue's tx ring as a
  // chain, drop recycles every fragment. keep() a fragment only in receive_packets' reader.
  // Both return how many descriptors were taken off rx.
  template <PacketReader Reader>
  std::uint32_t receive_packets(Reader&& reader, std::uint32_t max = default_batch);
  template <PacketHandler Handler>
  std::uint32_t serve_packets(Handler&& handler, std::uint32_t max = default_batch);

  // Up to n free frames (fewer when the pool is short) to build packets in; see TxBatch. Only
  // one batch is open at a time: while one is, allocate() gives an empty one.
  TxBatch allocate(std::uint32_t n);

  // Call f(Frame&) for each frame in the pool, e.g. to write a packet once into the frames that
  // allocate() will hand out (a frame keeps its bytes while it goes round).
  template <class F>
  void for_each_free_frame(F&& f) {
    for (const std::uint64_t chunk : pool_.addresses()) {
      Frame frame(area_ + chunk, chunk, 0, frame_size_, 0);
      f(frame);
    }
  }

  // In a handler or reader: keep the frame past the call. The Queue no longer recycles it; the
  // FrameRef must end in send() or recycle() on this queue (or be counted as abandoned).
  FrameRef keep(Frame& frame) noexcept;
  // Send a kept frame out of this queue (it must share the kept frame's UMEM); false, with the
  // FrameRef left as it was, when the tx ring is full or the UMEM is another.
  bool send(FrameRef&& frame) noexcept;
  void recycle(FrameRef&& frame) noexcept;

  // Kick the kernel to send what is on the tx ring, if anything is.
  void flush() noexcept;
  // Collect completions until nothing this queue sent is in flight, or `timeout` passed; true
  // when nothing is left in flight.
  bool drain(std::chrono::milliseconds timeout) noexcept;
  // Wait for received frames: kick unsent tx first (never sleeps while frames wait for a kick),
  // re-check the ring for an adaptive while (and spin_before_sleep), then sleep in poll() up to
  // `timeout` (to the nanosecond: a paced sender's next turn may be microseconds away; negative: no
  // limit); with a zero timeout yield the CPU instead. With busy-poll one recvfrom(), which runs
  // the driver's poll, comes first; the window and the sleep or yield follow as without it. True
  // when there is something to do.
  bool wait(std::chrono::nanoseconds timeout) noexcept;
  // How long wait() keeps re-checking rx (and collecting completions) before it gives the CPU
  // away (poll(), or the yield of a zero timeout), beyond the adaptive window:
  // PortConfig::spin_before_sleep. Bounded by a non-zero timeout.
  void spin_before_sleep(std::chrono::nanoseconds spin) noexcept { spin_ = spin; }
  [[nodiscard]] std::chrono::nanoseconds spin_before_sleep() const noexcept { return spin_; }

  [[nodiscard]] QueueStats stats() const;
  // errno of the last wake-up that failed for a reason other than the expected ones (EAGAIN,
  // EBUSY, ENOBUFS, ENETDOWN, and EINTR: a handled signal ends a wait() early, as a wake with
  // nothing to do), 0 when none did.
  [[nodiscard]] int error() const noexcept { return error_; }
  // error() in words, naming the interface: "interface veth1 is gone" when interface_gone(),
  // else "veth1:0: wake-up failed: <strerror>"; empty when error() is 0.
  [[nodiscard]] std::string error_message() const;
  // Has the interface this queue is bound to been deleted (or moved to another network
  // namespace)? The kernel then unbinds the socket: poll() only times out, recvfrom() and
  // sendto() say ENXIO, which wait() keeps as error(). False on a testing::Loopback.
  [[nodiscard]] bool interface_gone() const;
  [[nodiscard]] FrameAccount account() const noexcept {
    return {pool_.available(), fill_side_, tx_out_, held_};
  }
  [[nodiscard]] std::uint32_t frames() const noexcept { return frames_count_; }
  // Frames sent on this queue's tx ring and not yet completed.
  [[nodiscard]] std::uint32_t in_flight() const noexcept { return tx_in_flight_; }
  [[nodiscard]] std::uint32_t id() const noexcept { return id_; }
  [[nodiscard]] const std::string& interface() const noexcept { return interface_; }
  // "veth0:3", for messages.
  [[nodiscard]] std::string name() const { return interface_ + ":" + std::to_string(id_); }
  [[nodiscard]] int fd() const noexcept { return fd_; }
  // The raw layer underneath (null for a testing::Loopback queue).
  [[nodiscard]] Socket* socket() const noexcept { return socket_; }
  [[nodiscard]] Umem* umem() const noexcept { return umem_; }
  // The debug ledger of this queue's frames (empty unless AFXDP_FRAME_LEDGER).
  [[nodiscard]] const FrameLedger& ledger() const noexcept { return ledger_; }

 private:
  friend class TxBatch;
  friend class FrameRef;
  friend bool wait_any(std::span<Queue* const>, std::chrono::nanoseconds) noexcept;

  // What a verb needs of the queue; `lacks_` holds what it has not. Checked once per call, before
  // any ring is touched: a verb without its ring would dereference null. While a handler or
  // reader runs, lacks_ also holds what the open batch uses: a nested receive or serve, or a send
  // on a tx ring the batch has reserved slots on, would corrupt the rings.
  enum Ability : std::uint8_t {
    frame_rx = 1,   // an rx ring whose frames are whole packets (not multi-buffer)
    packet_rx = 2,  // an rx ring
    tx = 4,         // a tx ring
  };
  void require(std::uint8_t needs, const char* verb) const {
    if ((lacks_ & needs) != 0) [[unlikely]]
      refuse(needs, verb);
  }
  // A send while a batch holds slots reserved on this queue's tx ring (checked after tx_ itself):
  // refused and counted, true. Called from a handler, it would overwrite a reserved slot.
  bool in_tx_batch() noexcept;
  // std::logic_error naming the queue, the verb and what the queue lacks for it.
  [[noreturn, gnu::cold]] void refuse(std::uint8_t needs, const char* verb) const;
  static std::uint32_t clamp(std::uint32_t max) noexcept {
    return max < max_batch ? max : max_batch;
  }
  [[nodiscard]] std::uint64_t chunk_of(std::uint64_t address) const noexcept {
    return address & chunk_mask_;
  }
  [[nodiscard]] bool mine(std::uint64_t chunk) const noexcept { return chunk - first_ < span_; }
  void record(std::uint64_t chunk, FramePlace from, FramePlace to) {
    if constexpr (FrameLedger::enabled) ledger_.move(chunk - first_, from, to);
  }
  // Which of this queue's frames are out on a tx ring, a bit each: a completion is accepted once
  // per send (a duplicated one would put a frame in the pool twice and lose another).
  [[nodiscard]] std::uint64_t frame_index(std::uint64_t chunk) const noexcept {
    return (chunk - first_) >> frame_shift_;
  }
  // One of this queue's frames goes on a tx ring.
  void to_tx(std::uint64_t chunk, FramePlace from) noexcept {
    record(chunk, from, FramePlace::tx);
    const std::uint64_t i = frame_index(chunk);
    on_tx_[i / 64] |= std::uint64_t{1} << (i % 64);
  }
  // A completion for one of this queue's frames: true (and the mark cleared) when it was out.
  bool completed(std::uint64_t chunk) noexcept {
    const std::uint64_t i = frame_index(chunk);
    std::uint64_t& word = on_tx_[i / 64];
    const std::uint64_t bit = std::uint64_t{1} << (i % 64);
    const bool out = (word & bit) != 0;
    word &= ~bit;
    return out;
  }
  // An rx descriptor as a Frame, if it names one of this queue's frames whole; else counted
  // and refused (never read, never recycled).
  bool take(const xdp_desc& desc, Frame& frame) noexcept;
  // Give frames (chunk addresses) back: to the fill ring while it lacks frames and has room,
  // else to the pool.
  void recycle_chunks(const std::uint64_t* chunks, std::uint32_t n, FramePlace from) noexcept;
  // The frame start nearest to `chunk` (unaligned mode, where frames may be any size).
  [[nodiscard]] std::uint64_t nearest_frame(std::uint64_t chunk) const noexcept;
  // Lend pool frames to the fill ring until it holds its share again (or has no room).
  void top_up_fill() noexcept;
  // Completions: this queue's frames are recycled, the other queue's go back to it.
  void complete() noexcept;
  void complete_slow(std::uint32_t n) noexcept;
  // After frames were put on tx: kick when enough are outstanding and the kernel asks.
  void after_send() noexcept {
    if (tx_->outstanding() >= kick_at_) kick_if_asked();
  }
  // rx was empty: kick unsent tx, wake the fill ring when the kernel asks, count the turn.
  void idle_turn() noexcept;
  // tx has room for fewer than n: leave the rest on rx, kick, count. Returns what fits.
  std::uint32_t hold_back(std::uint32_t n, std::uint32_t room) noexcept;
  // Copy a frame into one of this queue's free frames and put it at tx slot `slot`.
  bool copy_in(const Frame& frame, xdp_desc& slot) noexcept;
  bool rx_ready() noexcept;
  // wait()'s spin_before_sleep: re-check rx until it has frames (true) or the spin is over.
  bool spin_until_ready(std::chrono::nanoseconds timeout) noexcept;
  void kick_if_asked() noexcept;
  void kick_tx() noexcept;
  void wake_rx() noexcept;
  int poll(short events, std::chrono::nanoseconds timeout) noexcept;
  void wake_result(int error) noexcept;
  void end_batch(TxBatch& batch) noexcept;
  void abandon(FrameRef& frame) noexcept;
  // Completions of this queue's frames sent from another queue: returns how many were out.
  std::uint32_t take_back(std::uint64_t* chunks, std::uint32_t n) noexcept;
  // Multi-buffer: peek up to max descriptors (more, to complete the first chain) and cancel a
  // chain cut at the end; returns the descriptors to take, 0 when rx had nothing whole.
  std::uint32_t peek_chains(std::uint32_t max) noexcept;
  // Of the first n peeked descriptors, how many end on the last chain boundary at most `limit`
  // (with first_only, on the first boundary); 0 when none does.
  [[nodiscard]] std::uint32_t chain_prefix(std::uint32_t n, std::uint32_t limit,
                                           bool first_only = false) const noexcept;
  struct ChainTake {
    std::uint32_t packets = 0;  // in packets_, their fragments in frames_
    std::uint32_t taken = 0;    // descriptors taken as this queue's frames
    std::uint32_t refused = 0;  // frames of invalid chains, their chunks in chunks_[0, refused)
  };
  // Take the first n peeked descriptors (whole chains) into packets_ and frames_.
  ChainTake take_chains(std::uint32_t n) noexcept;
  // What one forward() batch did with its frames.
  struct ForwardTally {
    std::uint32_t taken = 0;      // descriptors taken as this queue's frames
    std::uint32_t forwarded = 0;  // on out's tx ring
    std::uint32_t sent_back = 0;  // on this queue's tx ring
    std::uint32_t dropped = 0;
    std::uint32_t back = 0;  // frames to recycle (dropped, or copied out), their chunks in chunks_
  };
  // receive()'s `taken` frames back but those the reader kept, and counted as received: when the
  // fill ring has no room for all, or the reader threw.
  void recycle_unkept(std::uint32_t taken) noexcept;
  // serve()'s batch published: n taken off rx (taken of them this queue's frames), the first
  // `sent` tx slots submitted, the rest cancelled, `dropped` frames in chunks_ recycled.
  void finish_serve(std::uint32_t n, std::uint32_t taken, std::uint32_t sent,
                    std::uint32_t dropped) noexcept;
  // A handler threw on frame i of n (in frames_[0]): the frames before it keep their verdicts,
  // it goes back to receiving (counted as dropped), those after it stay on rx for the next call.
  void unwind_serve(std::uint32_t n, std::uint32_t i, std::uint32_t taken, std::uint32_t sent,
                    std::uint32_t dropped) noexcept;
  void finish_receive_packets(const ChainTake& t) noexcept;
  // What one serve_packets() batch did with its packets.
  struct PacketTally {
    std::uint32_t sent = 0;            // tx slots written
    std::uint32_t back = 0;            // frames to recycle, their chunks in chunks_
    std::uint32_t dropped = 0;         // of them, by the verdict
    std::uint32_t invalid_chains = 0;  // with an empty fragment
  };
  void route_packet(Packet& packet, Verdict verdict, PacketTally& tally) noexcept;
  // n reserved on tx, `released` descriptors handed back on rx.
  void finish_serve_packets(std::uint32_t n, std::uint32_t released, const ChainTake& t,
                            const PacketTally& tally) noexcept;
  // A packet handler threw on packet p: as unwind_serve, per packet.
  void unwind_serve_packets(std::uint32_t n, std::uint32_t p, ChainTake t,
                            PacketTally tally) noexcept;
  // forward()'s steps: one frame to where its verdict sends it, then the batch published.
  void route(Queue& out, Frame& frame, Verdict verdict, bool shared, ForwardTally& tally);
  void finish_forward(Queue& out, std::uint32_t n, const ForwardTally& tally);
  // As unwind_serve, for forward().
  void unwind_forward(Queue& out, std::uint32_t n, std::uint32_t i, ForwardTally tally) noexcept;

  // The hot fields first.
  RxRing* rx_ = nullptr;
  TxRing* tx_ = nullptr;
  FillRing* fill_ = nullptr;
  CompletionRing* completion_ = nullptr;
  std::byte* area_ = nullptr;
  std::uint64_t chunk_mask_ = 0;
  std::uint64_t first_ = 0;
  std::uint64_t span_ = 0;  // frames * frame_size
  std::uint32_t frame_size_ = 0;
  // log2(frame_size_), rounded down: frame starts that far apart have distinct indices, also when
  // unaligned chunks make the size no power of two (then up to twice as many bits as frames).
  std::uint32_t frame_shift_ = 0;
  bool unaligned_ = false;
  bool need_wakeup_ = true;
  bool busy_poll_ = false;
  std::chrono::nanoseconds spin_{0};  // spin_before_sleep
  bool batch_open_ = false;
  std::uint8_t lacks_ = 0;          // Ability bits this queue has not
  std::uint32_t fill_target_ = 0;   // frames the fill side should hold
  std::uint32_t fill_side_ = 0;     // frames lent for receiving
  std::uint32_t tx_in_flight_ = 0;  // on this queue's tx ring, any queue's frames
  std::uint32_t tx_out_ = 0;        // this queue's frames on any tx ring
  std::uint32_t held_ = 0;          // this queue's frames in FrameRefs and open TxBatches
  std::uint32_t kick_at_ = 0;
  std::uint32_t frames_count_ = 0;
  FramePool pool_;
  std::vector<std::uint64_t> on_tx_;  // a bit per frame: out on a tx ring (to_tx, completed)
  IdleWait idle_;
  std::array<std::uint64_t, max_batch> chunks_{};
  std::array<Frame, max_batch> frames_{};
  std::array<Frame, max_batch> tx_frames_{};
  detail::QueueCounters counters_;
  FrameLedger ledger_;
  int error_ = 0;
  int fd_ = -1;
  std::uint32_t id_ = 0;
  std::string interface_;
  Socket* socket_ = nullptr;
  Umem* umem_ = nullptr;
  detail::FrameOwners* owners_ = nullptr;
  detail::QueueKernel* kernel_ = nullptr;
  // Multi-buffer only, after everything the frame paths touch.
  // Inside an over-long chain: its descriptors are refused until its end.
  bool discarding_ = false;
  bool multi_buffer_ = false;  // for refuse()'s message
  std::array<Packet, max_batch> packets_{};
};

// One thread on several queues: kicks what each has to send, then waits until any has received
// frames (an adaptive re-check, then one poll() over all) or `timeout` passed.
bool wait_any(std::span<Queue* const> queues, std::chrono::nanoseconds timeout) noexcept;

// ---- The hot path, inline so that the handler inlines into it. ----

inline bool Queue::take(const xdp_desc& desc, Frame& frame) noexcept {
  const std::uint64_t chunk = chunk_of(desc.addr);
  const std::uint64_t offset =
      unaligned_ ? desc.addr >> XSK_UNALIGNED_BUF_OFFSET_SHIFT : desc.addr - chunk;
  // Unaligned chunks are ours only at a whole frame's start (there frames may be any size);
  // aligned ones are by the mask.
  const bool aligned_start = !unaligned_ || (chunk - first_) % frame_size_ == 0;
  if (!mine(chunk) || !aligned_start || offset + desc.len > frame_size_) [[unlikely]] {
    detail::QueueCounters::add(counters_.refused, 1);
    return false;
  }
  frame =
      Frame(area_ + chunk + offset, desc.addr, desc.len,
            frame_size_ - static_cast<std::uint32_t>(offset), static_cast<std::uint32_t>(offset));
  record(chunk, FramePlace::fill, FramePlace::application);
  return true;
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
    for (std::uint32_t i = 0; i < to_fill; ++i) {
      fill_->at(i) = chunks[i];
      record(chunks[i], from, FramePlace::fill);
    }
    fill_->submit(to_fill);
    fill_side_ += to_fill;
  }
  for (std::uint32_t i = to_fill; i < n; ++i) {
    pool_.give(chunks[i]);
    record(chunks[i], from, FramePlace::free);
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
  if (tx_in_flight_ != 0) complete();
  const std::uint32_t n = rx_->peek(clamp(max));
  if (n == 0) {
    idle_turn();
    return 0;
  }
  idle_.busy();
  std::uint32_t taken = 0;
  for (std::uint32_t i = 0; i < n; ++i) {
    if (take(rx_->at(i), frames_[taken])) [[likely]]
      ++taken;
  }
  rx_->release(n);
  fill_side_ -= taken;  // a refused descriptor's frame, whichever it is, stays the kernel's
  const std::uint8_t lacks = lacks_;
  lacks_ |= frame_rx | packet_rx;  // frames_ is the reader's: no nested receive or serve
  detail::OnUnwind unwind([&]() noexcept {
    lacks_ = lacks;
    recycle_unkept(taken);
  });
  reader(std::span<Frame>(frames_.data(), taken));
  unwind.dismiss();
  lacks_ = lacks;
  // Straight back onto the fill ring when it has room for all (the rule), else through the
  // general path that parks what does not fit.
  if (taken <= fill_target_ - fill_side_ && fill_->reserve(taken) == taken) [[likely]] {
    std::uint32_t back = 0;
    for (std::uint32_t i = 0; i < taken; ++i) {
      if (frames_[i].kept_) [[unlikely]]
        continue;
      fill_->at(back) = chunk_of(frames_[i].address_);
      record(fill_->at(back++), FramePlace::application, FramePlace::fill);
    }
    fill_->cancel(taken - back);
    fill_->submit(back);
    fill_side_ += back;
  } else {
    recycle_unkept(taken);
    return taken;
  }
  detail::QueueCounters::add(counters_.received, taken);
  return taken;
}

template <FrameHandler Handler>
std::uint32_t Queue::serve(Handler&& handler, std::uint32_t max) {
  require(frame_rx | tx, "serve");
  if (tx_in_flight_ != 0) complete();
  std::uint32_t n = rx_->peek(clamp(max));
  if (n == 0) {
    idle_turn();
    return 0;
  }
  idle_.busy();
  // Take off rx only what tx has room for: the rest waits on rx, where it is still the kernel's.
  if (const std::uint32_t room = tx_->free_slots(n); room < n) [[unlikely]] {
    n = hold_back(n, room);
    if (n == 0) return 0;
  }
  n = tx_->reserve(n);  // all n: the room was checked above
  std::uint32_t sent = 0;
  std::uint32_t dropped = 0;
  std::uint32_t taken = 0;
  Frame& frame = frames_[0];
  const std::uint8_t lacks = lacks_;
  lacks_ = frame_rx | packet_rx | tx;  // rx peeked and tx reserved: no send, no nested call
  std::uint32_t i = 0;
  detail::OnUnwind unwind([&]() noexcept {
    lacks_ = lacks;
    unwind_serve(n, i, taken, sent, dropped);
  });
  for (; i < n; ++i) {
    if (!take(rx_->at(i), frame)) [[unlikely]]
      continue;
    ++taken;
    const Verdict verdict = handler(frame);
    if (frame.kept_) [[unlikely]] {
      frame.kept_ = false;
      continue;
    }
    // In order of likelihood for a server: out again, else dropped. An empty frame is dropped:
    // the kernel skips an empty descriptor, and some drivers never complete it.
    static_assert(verdict_count == 3, "a new Verdict: handle it here, then count it");
    if (verdict != Verdict::drop && frame.size_ != 0) [[likely]] {
      tx_->at(sent++) = xdp_desc{frame.address_, frame.size_, 0};
      to_tx(chunk_of(frame.address_), FramePlace::application);
    } else {
      chunks_[dropped++] = chunk_of(frame.address_);
    }
  }
  unwind.dismiss();
  lacks_ = lacks;
  finish_serve(n, taken, sent, dropped);
  return n;
}

inline void Queue::finish_serve(std::uint32_t n, std::uint32_t taken, std::uint32_t sent,
                                std::uint32_t dropped) noexcept {
  rx_->release(n);
  fill_side_ -= taken;  // a refused descriptor's frame, whichever it is, stays the kernel's
  tx_->cancel(n - sent);
  tx_->submit(sent);
  tx_in_flight_ += sent;
  tx_out_ += sent;
  recycle_chunks(chunks_.data(), dropped, FramePlace::application);
  detail::QueueCounters::add(counters_.received, taken);
  if (dropped != 0) detail::QueueCounters::add(counters_.dropped, dropped);
  if (sent != 0) after_send();
}

template <FrameHandler Handler>
std::uint32_t Queue::forward(Queue& out, Handler&& handler, std::uint32_t max) {
  if (&out == this) return serve(handler, max);
  require(frame_rx, "forward");
  out.require(tx, "forward");
  if (tx_in_flight_ != 0) complete();
  if (out.tx_in_flight_ != 0) out.complete();
  std::uint32_t n = rx_->peek(clamp(max));
  if (n == 0) {
    idle_turn();
    if (out.tx_in_flight_ != 0) out.flush();
    return 0;
  }
  idle_.busy();
  if (const std::uint32_t room = out.tx_->free_slots(n); room < n) [[unlikely]] {
    n = hold_back(n, room);
    out.kick_tx();
    if (n == 0) return 0;
  }
  n = out.tx_->reserve(n);  // all n: the room was checked above
  const bool shared = area_ == out.area_;
  ForwardTally tally;
  Frame& frame = frames_[0];
  const std::uint8_t lacks = lacks_;
  const std::uint8_t out_lacks = out.lacks_;
  lacks_ |= frame_rx | packet_rx;  // rx peeked: no nested call
  out.lacks_ |= tx;                // out's tx reserved: no send there
  std::uint32_t i = 0;
  detail::OnUnwind unwind([&]() noexcept {
    lacks_ = lacks;
    out.lacks_ = out_lacks;
    unwind_forward(out, n, i, tally);
  });
  for (; i < n; ++i) {
    if (!take(rx_->at(i), frame)) [[unlikely]]
      continue;
    ++tally.taken;
    const Verdict verdict = handler(frame);
    if (frame.kept_) [[unlikely]] {
      frame.kept_ = false;
      continue;
    }
    route(out, frame, verdict, shared, tally);
  }
  unwind.dismiss();
  lacks_ = lacks;
  out.lacks_ = out_lacks;
  finish_forward(out, n, tally);
  return n;
}

inline void Queue::route(Queue& out, Frame& frame, Verdict verdict, bool shared,
                         ForwardTally& tally) {
  const std::uint64_t chunk = chunk_of(frame.address_);
  if (frame.size_ == 0) [[unlikely]]
    verdict = Verdict::drop;  // never an empty descriptor (see serve)
  // In order of likelihood for a forwarder: out of the other queue, back, dropped.
  static_assert(verdict_count == 3, "a new Verdict: handle it here, then count it");
  if (verdict == Verdict::forward) [[likely]] {
    if (shared) [[likely]] {
      out.tx_->at(tally.forwarded++) = xdp_desc{frame.address_, frame.size_, 0};
      to_tx(chunk, FramePlace::application);
      ++tx_out_;
      return;
    }
    if (out.copy_in(frame, out.tx_->at(tally.forwarded))) {
      ++tally.forwarded;
    } else {
      ++tally.dropped;
    }
    chunks_[tally.back++] = chunk;
  } else if (verdict == Verdict::send_back && tx_ != nullptr && tx_->reserve(1) == 1) {
    tx_->at(0) = xdp_desc{frame.address_, frame.size_, 0};
    tx_->submit(1);
    to_tx(chunk, FramePlace::application);
    ++tx_out_;
    ++tx_in_flight_;
    ++tally.sent_back;
  } else {
    chunks_[tally.back++] = chunk;
    ++tally.dropped;
  }
}

inline void Queue::finish_forward(Queue& out, std::uint32_t n, const ForwardTally& tally) {
  rx_->release(n);
  fill_side_ -= tally.taken;  // a refused descriptor's frame, whichever it is, stays the kernel's
  out.tx_->cancel(n - tally.forwarded);
  out.tx_->submit(tally.forwarded);
  out.tx_in_flight_ += tally.forwarded;
  recycle_chunks(chunks_.data(), tally.back, FramePlace::application);
  detail::QueueCounters::add(counters_.received, tally.taken);
  detail::QueueCounters::add(counters_.forwarded, tally.forwarded);
  if (tally.dropped != 0) detail::QueueCounters::add(counters_.dropped, tally.dropped);
  if (tally.forwarded != 0) out.after_send();
  if (tally.sent_back != 0) after_send();
}

template <PacketReader Reader>
std::uint32_t Queue::receive_packets(Reader&& reader, std::uint32_t max) {
  require(packet_rx, "receive_packets");
  if (tx_in_flight_ != 0) complete();
  const std::uint32_t n = peek_chains(max);
  if (n == 0) return 0;
  idle_.busy();
  const ChainTake t = take_chains(n);
  rx_->release(n);
  fill_side_ -= t.taken;  // a refused descriptor's frame, whichever it is, stays the kernel's
  const std::uint8_t lacks = lacks_;
  lacks_ |= frame_rx | packet_rx;  // packets_ is the reader's: no nested receive or serve
  detail::OnUnwind unwind([&]() noexcept {
    lacks_ = lacks;
    finish_receive_packets(t);
  });
  reader(std::span<Packet>(packets_.data(), t.packets));
  unwind.dismiss();
  lacks_ = lacks;
  finish_receive_packets(t);
  return n;
}

inline void Queue::finish_receive_packets(const ChainTake& t) noexcept {
  std::uint32_t back = t.refused;
  const std::uint32_t fragments = t.taken - t.refused;
  for (std::uint32_t i = 0; i < fragments; ++i) {
    if (!frames_[i].kept_) [[likely]]
      chunks_[back++] = chunk_of(frames_[i].address_);
  }
  recycle_chunks(chunks_.data(), back, FramePlace::application);
  detail::QueueCounters::add(counters_.received, t.taken);
  detail::QueueCounters::add(counters_.packets, t.packets);
}

template <PacketHandler Handler>
std::uint32_t Queue::serve_packets(Handler&& handler, std::uint32_t max) {
  require(packet_rx | tx, "serve_packets");
  if (tx_in_flight_ != 0) complete();
  std::uint32_t n = peek_chains(max);
  if (n == 0) return 0;
  idle_.busy();
  // Take off rx only whole chains that tx has room for: the rest waits on rx.
  if (const std::uint32_t room = tx_->free_slots(n); room < n) [[unlikely]] {
    n = hold_back(n, chain_prefix(n, room));
    if (n == 0) return 0;
  }
  n = tx_->reserve(n);  // all n: the room was checked above
  const ChainTake t = take_chains(n);
  fill_side_ -= t.taken;
  PacketTally tally{.back = t.refused};
  const std::uint8_t lacks = lacks_;
  lacks_ = frame_rx | packet_rx | tx;  // rx peeked and tx reserved: no send, no nested call
  std::uint32_t p = 0;
  detail::OnUnwind unwind([&]() noexcept {
    lacks_ = lacks;
    unwind_serve_packets(n, p, t, tally);
  });
  for (; p < t.packets; ++p) {
    Packet& packet = packets_[p];
    const Verdict verdict = handler(packet);
    route_packet(packet, verdict, tally);
  }
  unwind.dismiss();
  lacks_ = lacks;
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
  rx_->release(released);
  tx_->cancel(n - tally.sent);
  tx_->submit(tally.sent);
  tx_in_flight_ += tally.sent;
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
