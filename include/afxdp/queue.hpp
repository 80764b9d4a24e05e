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
#include <afxdp/detail/idle_wait.hpp>
#include <afxdp/detail/queue_batch.hpp>
#include <afxdp/detail/queue_setup.hpp>
#include <afxdp/detail/uapi.hpp>
#include <afxdp/frame.hpp>
#include <afxdp/frame_ledger.hpp>
#include <afxdp/frame_ref.hpp>
#include <afxdp/frames.hpp>
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

  // Take up to `max` received frames, hand them to reader(Frames), then give them all back to
  // the kernel (but those the reader kept). Returns how many frames the reader saw.
  template <FrameReader Reader>
  std::uint32_t receive(Reader&& reader, std::uint32_t max = default_batch);

  // Take up to `max` received frames, as many as the tx ring has room for, and ask handler(Frame&)
  // for each: send and send_back go out of this queue's tx ring (serve's out-queue is its own),
  // drop back to receiving; serve(h) is forward(*this, h). Returns how many frames were taken
  // off rx.
  // (Always inlined, as forward(): the handler's call belongs in the caller's loop.)
  template <FrameHandler Handler>
  [[gnu::always_inline]] std::uint32_t serve(Handler&& handler, std::uint32_t max = default_batch);

  // As serve, but Verdict::send goes out of `out`'s tx ring (send_back still out of this queue's).
  // Frames completed there come back to this queue. Both queues belong to the calling thread.
  // Without a UMEM shared with `out` (Port::open_pair shares one) each forwarded frame is copied
  // into one of out's.
  template <FrameHandler Handler>
  [[gnu::always_inline]] std::uint32_t forward(Queue& out, Handler&& handler,
                                               std::uint32_t max = default_batch);

  // Multi-buffer (PortConfig::multi_buffer): as receive and serve, per whole packet. A packet is
  // the chain of descriptors the kernel wrote it into (a frame of its own when it fits one).
  // At most `max` descriptors per call, but never a chain cut in two: one cut by the end of the
  // batch stays on rx and is taken whole by a later call (the first chain of a call may run past
  // `max`). A chain longer than max_fragments, or with a refused descriptor, is never handed
  // over: its frames are recycled and it is counted in invalid_chains. serve_packets applies
  // the verdict to the whole chain: send_back/send sends it out of this queue's tx ring as a
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
  void for_each_free_frame(F&& f);

  // In a handler or reader: keep the frame past the call. The Queue no longer recycles it; the
  // FrameRef must end in send() or recycle() on this queue (or be counted as abandoned). A frame
  // not handed out by this queue's open batch, or kept already (through any Frame of it), is
  // refused: an empty FrameRef, counted in `refused`.
  FrameRef keep(Frame& frame) noexcept;
  FrameRef keep(Frame&& frame) noexcept;  // a Frame just read: keep(frames[i])
  // Send a kept frame out of this queue (it must share the kept frame's UMEM); false, with the
  // FrameRef left as it was, when the tx ring is full or the UMEM is another.
  bool send(FrameRef&& frame) noexcept;
  // Send kept frames in order, as one batch (one reservation, one submit, one kick check). Returns
  // how many of `frames`, from the front, it dealt with, each empty after the call (sent; an empty
  // packet recycled and counted in `refused`; an empty FrameRef skipped). It stops at the first
  // that cannot go (tx ring full, another UMEM), leaving it and those after it as they were.
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
  // limit); with a zero timeout yield the CPU instead, when yields pay. How long to re-check and
  // when to yield: detail/idle_wait.hpp. With busy-poll one recvfrom(), which runs the driver's
  // poll, comes first; the window and the sleep or yield follow as without it. True when there is
  // something to do.
  bool wait(std::chrono::nanoseconds timeout) noexcept;
  // How long wait() re-checks rx (collecting completions) beyond the adaptive window before it
  // gives the CPU away: PortConfig::spin_before_sleep. Bounded by a non-zero timeout.
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

  // Every verb is the same steps: detail/queue_loops.hpp says them once, and each private member
  // says what it does where it is defined (the loops in detail/, the cold steps in src/queue*.cpp).
  // What a verb needs of the queue; `lacks_` holds what it has not. Checked once per call, before
  // any ring is touched: a verb without its ring would dereference null. While a handler or
  // reader runs, lacks_ also holds what the open batch uses: a nested receive or serve, or a send
  // on a tx ring the batch has reserved slots on, would corrupt the rings.
  enum Ability : std::uint8_t {
    frame_rx = 1,    // an rx ring whose frames are whole packets (not multi-buffer)
    packet_rx = 2,   // an rx ring
    tx_ability = 4,  // a tx ring
  };
  void require(std::uint8_t needs, const char* verb) const;
  [[noreturn, gnu::cold]] void refuse(std::uint8_t needs, const char* verb) const;
  bool in_tx_batch() noexcept;
  static std::uint32_t clamp(std::uint32_t max) noexcept;
  [[nodiscard]] std::uint64_t chunk_of(std::uint64_t address) const noexcept;
  void record(std::uint64_t chunk, FramePlace from, FramePlace to);
  void to_tx(std::uint64_t chunk, FramePlace from) noexcept;
  static bool handed_to_ref(Frame& frame) noexcept;

  // ---- The steps of a batch (detail/queue_loops.hpp) ----
  template <bool Chains = false>
  std::uint32_t begin_rx(std::uint32_t max) noexcept;
  template <bool Unaligned>
  static bool take_as(const detail::FrameGeometry& g, const xdp_desc& desc, Frame& frame) noexcept;
  template <bool Unaligned>
  static bool take_as(const detail::FrameGeometry&, const xdp_desc&, Frame&,
                      std::uint64_t& chunk) noexcept;
  RingWindow<const xdp_desc> take_checked(std::uint64_t& refused_bytes) noexcept;
  std::uint32_t reserve_tx(Queue& out, std::uint32_t n) noexcept;
  void end_rx(std::uint32_t n, std::uint32_t taken, std::uint64_t bytes) noexcept;
  bool refill_from(const RingWindow<const xdp_desc>& taken) noexcept;
  bool refill_from(const Frame* frames, std::uint32_t n, std::uint64_t rx_bytes) noexcept;
  void end_refill(std::uint32_t n, std::uint64_t bytes) noexcept;
  void publish_tx(std::uint32_t reserved, std::uint32_t sent, std::uint64_t bytes) noexcept;
  void submit_tx(std::uint32_t n, std::uint64_t bytes) noexcept;
  void recycle_chunks(const std::uint64_t* chunks, std::uint32_t n, FramePlace from) noexcept;
  void after_send() noexcept;
  void complete() noexcept;

  // ---- The verbs' loops and finish steps (detail/queue_loops.hpp, queue_forward.hpp,
  // queue_packets.hpp; the chain steps in src/queue_chains.cpp) ----
  // Always inlined: the handler's call sits in the caller's code, where the disassembly check
  // reads.
  template <bool Unaligned, class Handler>
  [[gnu::always_inline]] std::uint32_t serve_batch(Handler& handler, std::uint32_t n);
  template <bool Unaligned, bool Shared, class Handler>
  [[gnu::always_inline]] std::uint32_t forward_batch(Queue& out, Handler& handler, std::uint32_t n);
  void finish_serve(std::uint32_t n, std::uint32_t taken, std::uint32_t sent, std::uint32_t dropped,
                    detail::ServeBytes bytes) noexcept;
  void route(Queue& out, RingCursor<xdp_desc>&, Frame, Verdict, bool shared, detail::ForwardTally&);
  void finish_forward(Queue& out, std::uint32_t n, detail::ForwardTally tally);
  std::uint32_t reserve_tx_chains(std::uint32_t n) noexcept;
  [[nodiscard]] std::uint32_t chain_prefix(std::uint32_t n, std::uint32_t limit,
                                           bool first_only = false) const noexcept;
  std::uint32_t whole_chains(std::uint32_t n) noexcept;
  detail::ChainTake take_chains(std::uint32_t n) noexcept;
  template <bool Unaligned>
  detail::ChainTake take_chains_as(std::uint32_t n) noexcept;
  template <bool Unaligned>
  bool take_clean_chains(std::uint32_t n, detail::ChainTake& t) noexcept;
  void route_packet(const RingWindow<xdp_desc>&, Packet&, Verdict, detail::PacketTally&) noexcept;
  void finish_receive_packets(std::uint32_t n, const detail::ChainTake& t) noexcept;
  void finish_serve_packets(std::uint32_t n, std::uint32_t released, const detail::ChainTake&,
                            detail::PacketTally) noexcept;

  // ---- A batch off the rule: kept, refused, thrown (src/queue.cpp, queue_chains.cpp) ----
  void finish_receive(std::uint32_t n, const RingWindow<const xdp_desc>&, std::uint64_t) noexcept;
  void unwind_serve(Frame& thrown, std::uint32_t n, std::uint32_t i, std::uint32_t taken,
                    std::uint32_t sent, std::uint32_t dropped, detail::ServeBytes bytes) noexcept;
  void unwind_forward(Queue& out, Frame& thrown, std::uint32_t n, std::uint32_t i,
                      detail::ForwardTally tally) noexcept;
  void unwind_serve_packets(std::uint32_t n, std::uint32_t p, detail::ChainTake,
                            detail::PacketTally) noexcept;

  // ---- Cold steps: refill, completions, kicks (src/queue.cpp: each says what it does) ----
  void top_up_fill() noexcept;
  void complete_slow(std::uint32_t n) noexcept;
  std::uint32_t accept_own(std::uint32_t n) noexcept;
  std::uint32_t accept_homes() noexcept;
  void idle_turn() noexcept;
  std::uint32_t hold_back(std::uint32_t n, std::uint32_t room) noexcept;
  bool copy_in(const Frame& frame, xdp_desc& slot) noexcept;
  void kick_if_asked() noexcept;
  void kick_tx() noexcept;
  void wake_rx() noexcept;
  int poll(short events, std::chrono::nanoseconds timeout) noexcept;
  void wake_result(int error) noexcept;
  struct Home;  // where completed frames go home
  Home home_of(std::uint64_t chunk) noexcept;
  Home own_home() noexcept;
  std::uint32_t take_back(std::uint32_t n) noexcept;

  // ---- Waiting (src/queue_wait.cpp) ----
  bool rx_ready() noexcept;
  bool spin_until_ready(std::chrono::nanoseconds timeout) noexcept;

  // ---- Frames the application holds (src/queue_held.cpp) ----
  void end_batch(TxBatch& batch) noexcept;
  void abandon(FrameRef& frame) noexcept;
  void end_held(std::uint64_t chunk) noexcept;
  void clear_ended() noexcept;

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
  std::uint32_t batch_seq_ = 0;     // batches handed out so far (Frame::batch_)
  std::uint32_t kick_at_ = 0;
  std::uint32_t frames_count_ = 0;
  FramePool pool_;
  std::vector<std::uint8_t> on_tx_;       // a byte per frame: out on a tx ring (to_tx, completed)
  std::vector<std::uint8_t> held_marks_;  // a byte per frame kept until its FrameRef ends
  std::vector<std::uint32_t> ended_;      // ended inside receive's reader: cleared at its end
  std::uint32_t ended_count_ = 0;
  bool receiving_ = false;
  detail::IdleWait idle_;
  // Frame starts a batch gives back (nothing a reader may call on this queue writes here).
  std::array<std::uint64_t, max_batch> chunks_{};
  std::array<Frame, max_batch> frames_{};       // receive_packets' fragments
  std::array<xdp_desc, max_batch> admitted_{};  // a checked receive's, when one was refused
  std::array<std::uint64_t, max_batch> tx_addresses_{};  // an open TxBatch's frames
  std::array<std::uint32_t, max_batch> tx_sizes_{};
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
  bool discarding_ = false;    // inside an over-long chain: its descriptors refused to its end
  bool multi_buffer_ = false;  // for refuse()'s message
  std::array<Packet, max_batch> packets_{};
};

// One thread on several queues: kicks what each has to send, then waits until any has received
// frames (an adaptive re-check, then one poll() over all) or `timeout` passed.
bool wait_any(std::span<Queue* const> queues, std::chrono::nanoseconds timeout) noexcept;

}  // namespace afxdp

// The verbs' bodies, inline so that handlers inline into them.
#include <afxdp/detail/queue_forward.hpp>  // IWYU pragma: export
#include <afxdp/detail/queue_loops.hpp>    // IWYU pragma: export
#include <afxdp/detail/queue_packets.hpp>  // IWYU pragma: export
