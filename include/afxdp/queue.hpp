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

#include <afxdp/detail/frame_geometry.hpp>
#include <afxdp/detail/queue_setup.hpp>
#include <afxdp/detail/uapi.hpp>
#include <afxdp/frame.hpp>
#include <afxdp/frame_ledger.hpp>
#include <afxdp/frame_ref.hpp>
#include <afxdp/idle_wait.hpp>
#include <afxdp/packet.hpp>
#include <afxdp/queue_stats.hpp>
#include <afxdp/rings/cache_line.hpp>
#include <afxdp/rings/frame_pool.hpp>
#include <afxdp/rings/ring.hpp>

#include <array>
#include <atomic>
#include <chrono>
#include <concepts>
#include <cstddef>
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
  // for each: send_back goes out of this queue's tx ring, drop back to receiving. serve(h) is
  // forward(*this, h), so Verdict::forward goes out of this queue too. Returns how many frames
  // were taken off rx.
  // (Always inlined, as forward(): the handler's call belongs in the caller's loop.)
  template <FrameHandler Handler>
  [[gnu::always_inline]] std::uint32_t serve(Handler&& handler, std::uint32_t max = default_batch);

  // As serve, but Verdict::forward goes out of `out`'s tx ring. Frames completed there come
  // back to this queue. Both queues belong to the calling thread. Without a UMEM shared with
  // `out` (Port::open_pair shares one) each forwarded frame is copied into one of out's.
  template <FrameHandler Handler>
  [[gnu::always_inline]] std::uint32_t forward(Queue& out, Handler&& handler,
                                               std::uint32_t max = default_batch);

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
      Frame frame(geo_.area + chunk, chunk, 0, 0, geo_.frame_size);
      frame.kept_ = true;  // a pool frame: keep() refuses it (allocate() lends it)
      f(frame);
    }
  }

  // In a handler or reader: keep the frame past the call. The Queue no longer recycles it; the
  // FrameRef must end in send() or recycle() on this queue (or be counted as abandoned). A frame
  // this queue did not hand to the handler or reader, or one kept already (a FrameRef's frame
  // too), is refused: an empty FrameRef, counted in `refused`.
  FrameRef keep(Frame& frame) noexcept;
  // Send a kept frame out of this queue (it must share the kept frame's UMEM); false, with the
  // FrameRef left as it was, when the tx ring is full or the UMEM is another.
  bool send(FrameRef&& frame) noexcept;
  // Send kept frames in order, as one batch (one reservation, one submit, one kick check). Returns
  // how many of `frames`, from the front, it dealt with: each of those is empty after the call
  // (sent; an empty packet recycled and counted in `refused`, as send() does; an empty FrameRef
  // skipped). It stops at the first that cannot go (the tx ring full, another UMEM): that one and
  // those after it are left as they were.
  std::uint32_t send(std::span<FrameRef> frames) noexcept;
  void recycle(FrameRef&& frame) noexcept;

  // Kick the kernel to send what is on the tx ring, if anything is.
  void flush() noexcept;
  // Collect completions until nothing this queue sent is in flight, or `timeout` passed; true
  // when nothing is left in flight.
  bool drain(std::chrono::milliseconds timeout) noexcept;
  // Wait for received frames: kick unsent tx first (never sleeps while frames wait for a kick),
  // re-check the ring for an adaptive while (and spin_before_sleep), then sleep in poll() up to
  // `timeout` (to the nanosecond: a paced sender's next turn may be microseconds away; negative: no
  // limit); with a zero timeout yield the CPU instead, while yields give it away (IdleWait: one
  // that comes straight back makes the next wait, so a spinner alone on its CPU makes almost no
  // system call). With busy-poll one recvfrom(), which runs
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
    frame_rx = 1,    // an rx ring whose frames are whole packets (not multi-buffer)
    packet_rx = 2,   // an rx ring
    tx_ability = 4,  // a tx ring
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
    return geo_.chunk(address);
  }
  void record(std::uint64_t chunk, FramePlace from, FramePlace to) {
    if constexpr (FrameLedger::enabled) ledger_.move(chunk - geo_.first, from, to);
  }
  // Which of this queue's frames are out on a tx ring, a byte each: a completion is accepted
  // once per send (a duplicated one would put a frame in the pool twice and lose another).
  // One of this queue's frames goes on a tx ring.
  void to_tx(std::uint64_t chunk, FramePlace from) noexcept {
    record(chunk, from, FramePlace::tx);
    if constexpr (detail::checks_kernel) on_tx_[geo_.index(chunk)] = 1;
  }
  // The batch's first step: collect completions, peek up to max received descriptors; when rx is
  // empty, an idle turn. Returns how many were peeked.
  std::uint32_t begin_rx(std::uint32_t max) noexcept;
  // An rx descriptor as a Frame, if it names one of this queue's frames whole (see
  // FrameGeometry); false for one that does not: never read, never recycled. One per UMEM mode.
  template <bool Unaligned>
  static bool take_as(const detail::FrameGeometry& g, const xdp_desc& desc, Frame& frame) noexcept;
  // take_as(), and the frame's start in `chunk`.
  template <bool Unaligned>
  static bool take_as(const detail::FrameGeometry& g, const xdp_desc& desc, Frame& frame,
                      std::uint64_t& chunk) noexcept;
  // receive()'s one pass over the descriptors: every peeked descriptor that take_as() admits, into
  // frames, its frame's start into chunks (what goes back on the fill ring); returns how many.
  // One loop per mode, chosen once per batch.
  // `bytes`: what the peeked descriptors carry, every one's length (a refused one's too).
  template <bool Unaligned>
  std::uint32_t take_all(Frame* frames, std::uint64_t* chunks, std::uint64_t& bytes) noexcept;
  // n peeked descriptors, carrying `bytes`, handed back to the kernel, `taken` of them as this
  // queue's frames (the rest refused and counted).
  void end_rx(std::uint32_t n, std::uint32_t taken, std::uint64_t bytes) noexcept;
  // The first n peeked rx descriptors released, `bytes` (what they carry) counted in rx_bytes;
  // without `bytes`, read back from them (the chain paths, where no loop summed them).
  void release_rx(std::uint32_t n, std::uint64_t bytes) noexcept;
  void release_rx(std::uint32_t n) noexcept;
  // The first n reserved tx slots, written, submitted and in flight until completed; `bytes`
  // (what they carry) counted in tx_bytes, or read back from them.
  void submit_tx(std::uint32_t n, std::uint64_t bytes) noexcept;
  void submit_tx(std::uint32_t n) noexcept;
  // Room on out's tx ring for n frames (out may be this queue): what does not fit stays on rx,
  // counted, and tx is kicked so that it drains. Reserves what fits and returns it.
  std::uint32_t reserve_tx(Queue& out, std::uint32_t n) noexcept;
  // The first `sent` of `reserved` tx slots submitted, the rest given back; kicked when due.
  void publish_tx(std::uint32_t reserved, std::uint32_t sent, std::uint64_t bytes) noexcept;
  // Give frames (chunk addresses) back: to the fill ring while it lacks frames and has room,
  // else to the pool.
  void recycle_chunks(const std::uint64_t* chunks, std::uint32_t n, FramePlace from) noexcept;
  // The frame start nearest to `chunk` (unaligned mode, where frames may be any size). Frames
  // start at multiples of the frame size from the UMEM's start, in every queue's range (each
  // queue's first frame is one of them), so a frame lent by another queue rounds the same way.
  // Inline: complete_slow calls it per completion.
  [[nodiscard]] std::uint64_t nearest_frame(std::uint64_t chunk) const noexcept {
    const std::uint64_t size = geo_.frame_size;
    return (chunk + size / 2) / size * size;
  }
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
  // Copy a frame into one of this queue's free frames, described in `slot` (for a tx ring).
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
  // A TxBatch's n frames onto the n slots reserved on tx, in order, but an empty one (the kernel
  // skips an empty descriptor and never completes it: the frame would be lost), which goes back
  // to the pool, refused and counted. Returns how many went on tx.
  // `bytes`: what the frames put on tx carry.
  std::uint32_t put_batch(const Frame* frames, std::uint32_t n, std::uint64_t& bytes) noexcept;
  // put_batch's rest from frames[i] on, the first empty one: packed into the slots from i on.
  std::uint32_t put_packed(const Frame* frames, std::uint32_t n, std::uint32_t i) noexcept;
  void abandon(FrameRef& frame) noexcept;
  // Where completed frames go home: a queue's frames [first, first + span), their on-tx marks
  // (to_tx's, cleared by complete_slow as it accepts) and its pool's spare() slots, where they
  // are written. queue null: nowhere, an address no queue lent.
  struct Home {
    Queue* queue = nullptr;
    std::uint64_t first = 0;
    std::uint64_t span = 0;
    std::uint8_t* on_tx = nullptr;
    std::uint32_t shift = 0;
    std::uint64_t* free = nullptr;
  };
  // The queue a completed chunk belongs to: this one, or (a shared UMEM) the one that lent it.
  Home home_of(std::uint64_t chunk) noexcept;
  Home own_home() noexcept;
  // complete_slow's loop: completed addresses from `next` on, while they are home's frames, each
  // written to home.free[accepted] and counted in `accepted` when its on-tx mark was set (the
  // mark cleared). Returns where it stopped: at `end`, or at an address of another home.
  template <bool Unaligned>
  const std::uint64_t* accept(const Home& home, const std::uint64_t* next, const std::uint64_t* end,
                              std::size_t& accepted) const noexcept;
  // n of this queue's frames completed (their on-tx marks cleared), from any queue's completion
  // ring, written at its pool's spare(): given to the pool, and the fill ring topped up while it
  // lacks frames. Returns how many were accepted (no more than were out).
  std::uint32_t take_back(std::uint32_t n) noexcept;
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
  // Take the first n peeked descriptors (whole chains) into packets_ and frames_: each refused
  // descriptor counted, each taken one's move recorded. One loop per mode, chosen once per call.
  ChainTake take_chains(std::uint32_t n) noexcept;
  template <bool Unaligned>
  ChainTake take_chains_as(std::uint32_t n) noexcept;
  // What one forward() batch did with its frames.
  struct ForwardTally {
    std::uint64_t rx_bytes = 0;   // what the descriptors taken off rx carry
    std::uint64_t out_bytes = 0;  // what the forwarded frames carry
    std::uint32_t taken = 0;      // descriptors taken as this queue's frames
    std::uint32_t forwarded = 0;  // on out's tx ring
    std::uint32_t sent_back = 0;  // on this queue's tx ring
    std::uint32_t dropped = 0;
    std::uint32_t back = 0;  // frames to recycle (dropped, or copied out), their chunks in chunks_
    std::uint32_t copied = 0;  // of the forwarded, copied into out's frames (no shared UMEM)
  };
  // receive()'s `taken` frames (their starts in chunks_, from take_all) back but those the reader
  // kept, whatever it did to the span's order: when a descriptor was refused, a frame kept, the
  // fill ring has no room for all, or the reader threw.
  void recycle_unkept(std::uint32_t taken) noexcept;
  // forward()'s loop, as serve_batch, with n slots reserved on out's tx ring.
  // Always inlined into the verb, so that the handler's call sits in the caller's code (the
  // disassembly check reads the verb's caller for indirect branches).
  template <bool Unaligned, class Handler>
  [[gnu::always_inline]] std::uint32_t forward_batch(Queue& out, Handler& handler, std::uint32_t n);
  // serve()'s loop over n peeked descriptors with n tx slots reserved, one per UMEM mode.
  template <bool Unaligned, class Handler>
  [[gnu::always_inline]] std::uint32_t serve_batch(Handler& handler, std::uint32_t n);
  // The bytes a serve() batch took off rx and put on tx, for the byte counters.
  struct ServeBytes {
    std::uint64_t rx = 0;
    std::uint64_t tx = 0;
  };
  // serve()'s batch published: n taken off rx (taken of them this queue's frames), the first
  // `sent` tx slots submitted, the rest cancelled, `dropped` frames in chunks_ recycled.
  void finish_serve(std::uint32_t n, std::uint32_t taken, std::uint32_t sent, std::uint32_t dropped,
                    ServeBytes bytes) noexcept;
  // A handler threw on frame i of n (`thrown`): the frames before it keep their verdicts, it goes
  // back to receiving (counted as dropped) unless kept, those after it stay on rx for the next
  // call.
  void unwind_serve(const Frame& thrown, std::uint32_t n, std::uint32_t i, std::uint32_t taken,
                    std::uint32_t sent, std::uint32_t dropped, ServeBytes bytes) noexcept;
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
  // forward()'s steps: one frame to where its verdict sends it (a copy: the loop's frame never
  // escapes, so that the compiler drops what the handler does not read), then the batch published.
  void route(Queue& out, RingCursor<xdp_desc>& out_tx, Frame frame, Verdict verdict, bool shared,
             ForwardTally& tally);
  void finish_forward(Queue& out, std::uint32_t n, const ForwardTally& tally);
  // As unwind_serve, for forward().
  void unwind_forward(Queue& out, const Frame& thrown, std::uint32_t n, std::uint32_t i,
                      ForwardTally tally) noexcept;

  // The hot fields first.
  RxRing* rx_ = nullptr;
  TxRing* tx_ = nullptr;
  FillRing* fill_ = nullptr;
  CompletionRing* completion_ = nullptr;
  detail::FrameGeometry geo_;
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
  std::uint32_t keeps_ = 0;         // keep() calls so far: did a reader keep a frame?
  std::uint32_t kick_at_ = 0;
  std::uint32_t frames_count_ = 0;
  FramePool pool_;
  std::vector<std::uint8_t> on_tx_;  // a byte per frame: out on a tx ring (to_tx, completed)
  IdleWait idle_;
  // Frame starts a batch gives back. receive's and receive_packets' outlive the reader: nothing a
  // reader may call on this queue writes here.
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

}  // namespace afxdp

#include <afxdp/detail/queue_loops.hpp>  // IWYU pragma: export
