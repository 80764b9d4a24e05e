// What the conformance cases share: the modes they run in, a veth link with an AF_XDP socket on
// each end, and a sender and a receiver that check what the kernel's selftests check (frames in
// order with their content and length, the exact rx offset, completions only for valid
// descriptors, in order).
//
// Threading: run_traffic drives the receivers on one thread and the sender on another, as the
// kernel's harness runs worker_pkt_rx and worker_pkt_tx (Drive::two_threads, the default); a
// Sender and each Receiver belong to the thread that drives it, and the two share only what
// run_traffic's pacing reads (each receiver's count of packets received, the count of packets
// the kernel took from the tx rings: atomics, see harness.cpp). Drive::one_thread drives both
// from the calling thread in turns, as this harness did first (an extra run: CMakeLists.txt).
// Everything else here belongs to the test's thread: a case reads a Sender's or a Receiver's
// counts once run_traffic has returned (it joins both threads).
#pragma once

#include "probes.hpp"
#include "system_test.hpp"

#include <afxdp/net/mac_address.hpp>
#include <afxdp/port.hpp>
#include <afxdp/rings/tx_descriptor.hpp>
#include <afxdp/testing/loopback.hpp>
#include <afxdp/xsk/socket.hpp>
#include <afxdp/xsk/umem.hpp>
#include <afxdp/xsk/xsk_program.hpp>
#include <lab.hpp>

#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace afxdp::conformance {

// The kernel's constants (test_xsk.h / test_xsk.c).
inline constexpr std::uint32_t xdp_packet_headroom = 256;  // XDP_PACKET_HEADROOM
inline constexpr std::uint32_t min_packet = 64;            // MIN_PKT_SIZE
inline constexpr std::uint32_t default_packets = 4096;     // DEFAULT_PKT_CNT
inline constexpr std::uint32_t default_frames = 1024;      // DEFAULT_UMEM_BUFFERS
inline constexpr std::uint32_t batch = 64;                 // DEFAULT_BATCH_SIZE
inline constexpr std::uint32_t tx_budget = 32;             // MAX_TX_BUDGET_DEFAULT
inline constexpr std::uint32_t max_jumbo = 9000;           // MAX_ETH_JUMBO_SIZE
// The kernel's time limits have THREAD_TMOUT's shape (a limit over a side's whole stream, not over
// progress) but not its 3 s: ours run checked (ASan, ring checks, every byte compared) on shared
// CPUs, where 3 s was too short: SEND_RECEIVE_9K_PACKETS on the Loopback received 1823 of 4096
// packets in 3 s with two tests running at once on 2 CPUs (0.8 s alone; 2026-12-06).
inline constexpr std::chrono::seconds stream_timeout{10};
std::string in_seconds(std::chrono::seconds limit);  // "10 s"

// As the kernel's test reads them: net.core.max_skb_frags, or 17 (MAX_SKB_FRAGS' default) where it
// cannot be read (in a network namespace other than the first it is not there).
std::uint32_t max_skb_frags();
// The room the kernel keeps at the end of each chunk for skb_shared_info (umem_tailroom in the
// kernel's test): its 48 bytes before the frags array, 16 a fragment, to a cache line.
std::uint32_t umem_tailroom();
// veth's per-queue ring (VETH_RING_SIZE in drivers/net/veth.c): frames between the sending end's
// transmit and the receiving end's NAPI. On a device without a qdisc veth drops what does not fit.
inline constexpr std::uint32_t veth_ring = 256;
// Slots of that ring its consumer (the receiving end's NAPI) has read but not yet handed back:
// ptr_ring frees them in batches of 2 * SMP_CACHE_BYTES / sizeof(void*), 16 on x86-64
// (__ptr_ring_discard_one), so the sending end may find up to 15 taken that hold nothing. With rx
// and tx on two threads (the receiving NAPI busy-polled while the sender kicks) a frame was lost
// to that in native busy-poll mode, batch 1 (HW_SW_MIN_RING_SIZE), in most runs; none with them
// counted.
inline constexpr std::uint32_t veth_ring_unfreed = 15;

// What plays the kernel's side: AF_XDP on a veth pair (root, the conformance tier), or
// testing::Loopback (no privilege, the unit tier), whose cases must give the same results.
enum class Backend { veth, loopback };

// A mode of the kernel's runner: skb or drv (our native copy), each also with busy polling
// (the second pass of test_xsk.sh); or the Loopback.
struct Mode {
  const char* name;
  AttachMode attach;
  BindMode bind;
  bool busy_poll;
  Backend backend = Backend::veth;
};
inline void PrintTo(const Mode& mode, std::ostream* out) { *out << mode.name; }
struct ModeName {
  std::string operator()(const ::testing::TestParamInfo<Mode>& info) const {
    return info.param.name;
  }
};
std::vector<Mode> all_modes();
Mode loopback_mode();

// Every case's fixture. Its TearDown fails a case that skipped for a reason expected_skips()
// does not allow (case_table.cpp): a failure, not a skip, so ctest (which reports a skip by the
// "[  SKIPPED ]" line) sees it too.
// Its SetUp skips the busy-poll modes on a kernel that refuses busy polling (the probe's words).
class Conformance : public ::testing::TestWithParam<Mode> {
 protected:
  void SetUp() override;
  void TearDown() override;
};

// How the two ends are built. Each UMEM has rx frames [0, rx_frames) and tx frames after them.
struct LinkSetup {
  std::uint32_t frame_size = 4096;
  std::uint32_t rx_frames = default_frames;
  std::uint32_t tx_frames = default_frames;
  std::uint32_t rx_headroom = 0;  // the receiving UMEM's headroom
  std::uint32_t rx_size = 2048;   // XSK_RING_CONS__DEFAULT_NUM_DESCS
  std::uint32_t tx_size = 2048;
  std::uint32_t fill_size = 2048;
  std::uint32_t completion_size = 2048;
  bool bidirectional = false;   // both sockets get rx and tx rings (else a sends, b receives)
  bool attach_programs = true;  // the embedded redirect program on both ends
  bool unaligned = false;       // XDP_UMEM_UNALIGNED_CHUNK_FLAG, UMEMs on 2 MiB hugepages
  bool multi_buffer = false;    // both sockets bound with XDP_USE_SG (the kernel's MTU 9000 cases)
  std::uint32_t xskmap_entries = 0;  // the redirect programs' XSKMAPs; 0: the queue count
};

// What the harness needs of a UMEM is afxdp::UmemView (umem.hpp): over a Umem (Umem::view()), or
// over a Loopback queue's area.
// One end as the cases drive it: an AF_XDP socket's four rings and its UMEM, and the kernel's
// cold calls (sendto, recvfrom, poll, XDP_STATISTICS). On veth a Socket answers them; on the
// Loopback a queue does (socket_endpoint, Ends).
class Endpoint {
 public:
  Endpoint(const Endpoint&) = delete;
  Endpoint& operator=(const Endpoint&) = delete;
  virtual ~Endpoint() = default;

  RxRing& rx() noexcept { return rx_; }
  TxRing& tx() noexcept { return tx_; }
  FillRing& fill() noexcept { return fill_; }
  CompletionRing& completion() noexcept { return completion_; }
  [[nodiscard]] const UmemView& umem() const noexcept { return umem_; }
  [[nodiscard]] const std::string& name() const noexcept { return name_; }
  [[nodiscard]] const MacAddress& mac() const noexcept { return mac_; }
  virtual WakeStatus wake_tx() noexcept = 0;  // sendto
  virtual WakeStatus wake_rx() noexcept = 0;  // recvfrom
  // poll(2): the revents, 0 on timeout, -errno on error.
  virtual int poll(short events, int timeout_ms) noexcept = 0;
  [[nodiscard]] virtual XdpStatistics statistics() const = 0;

 protected:
  struct Parts {
    RxRing& rx;
    TxRing& tx;
    FillRing& fill;
    CompletionRing& completion;
    UmemView umem;
    std::string name;
    MacAddress mac;
  };
  explicit Endpoint(Parts parts)
      : rx_(parts.rx),
        tx_(parts.tx),
        fill_(parts.fill),
        completion_(parts.completion),
        umem_(parts.umem),
        name_(std::move(parts.name)),
        mac_(parts.mac) {}

 private:
  RxRing& rx_;
  TxRing& tx_;
  FillRing& fill_;
  CompletionRing& completion_;
  UmemView umem_;
  std::string name_;
  MacAddress mac_;
};

// `socket` as an Endpoint (it must outlive it).
std::unique_ptr<Endpoint> socket_endpoint(Socket& socket);

// A veth pair's ends `a` (sends) and `b` (receives), each with a UMEM, one AF_XDP socket on
// queue 0 and the redirect program.
struct Link {
  Link(const lab::VethPair& veth, const Mode& mode, const LinkSetup& setup = {});
  LinkSetup setup;
  Mode mode;
  Umem a_umem, b_umem;
  Socket a, b;
  std::optional<XskProgram> a_program, b_program;
};

// A second socket on `first`'s UMEM, interface and queue (XDP_SHARED_UMEM: it shares the fill and
// completion rings), with only an rx ring (`receives`) or only a tx ring; the kernel's
// xsk_configure with nb_sockets = 2.
Socket sharing_socket(Socket& first, const Mode& mode, bool receives);

// A fresh veth pair for the conformance cases: IPv6 off (as the kernel's runner does, so the
// stack sends nothing of its own) and, in busy-poll modes, the NAPI settings test_xsk.sh uses.
lab::VethPair make_veth(const Mode& mode);

// make_veth with both ends at MTU 9000 (MAX_ETH_JUMBO_SIZE), for the multi-buffer cases.
inline constexpr unsigned jumbo_mtu = 9000;
lab::VethPair jumbo_veth(const Mode& mode);

// A Port on one queue in `mode` with PortConfig::multi_buffer (multi_buffer_test.cpp).
PortConfig multi_buffer_config(const Mode& mode);

// One packet of a stream. Its sequence is its index in the stream (written into the frame).
struct Packet {
  std::uint32_t len = min_packet;
  std::int64_t offset = 0;              // from the start of a frame taken from the sender's pool
  std::optional<std::uint64_t> addr{};  // or this address as it is, no frame taken
  std::uint32_t options = 0;
  std::uint8_t dst_last = 0xff;  // the destination MAC's last byte; 0xff: the receiver's
  std::uint8_t socket = 0;       // which of the Sender's sockets sends it (add_socket)
};
std::vector<Packet> uniform_stream(std::uint32_t count, std::uint32_t len);

// Sends a stream from one socket's tx frames [first, first + count * frame_size). Each valid
// descriptor must come back on the completion ring exactly once; completions may come in another
// order than the descriptors (copy mode completes a frame when its skb is freed). An invalid
// descriptor is counted in tx_invalid_descs; whether its address also comes back on the
// completion ring depends on the kernel (this one does, in copy mode), so it may, once: its frame
// is the application's again either way, by completion or by finish().
// A Sender may send from several sockets on one UMEM and queue (the kernel's two sending sockets
// of XDP_PROG_CLEANUP and XDP_SHARED_UMEM): each packet from the socket it names, the frames from
// one pool, the completions from the completion ring they share.
class Sender {
 public:
  Sender(Endpoint& socket, const std::vector<Packet>& stream, std::uint64_t first_frame,
         std::uint32_t frames, const MacAddress& dst_mac, const MacAddress& src_mac);
  Sender(Socket& socket, const std::vector<Packet>& stream, std::uint64_t first_frame,
         std::uint32_t frames, const MacAddress& dst_mac, const MacAddress& src_mac);

  // Packets whose `socket` is the next index go out on `socket`, which must share the first
  // socket's completion ring (same UMEM, interface and queue).
  void add_socket(Endpoint& socket);
  void add_socket(Socket& socket);

  // Put whole packets, up to `max` descriptors (at least one packet), on the tx ring (fewer when
  // out of frames or ring slots); returns how many descriptors. A packet from the pool longer
  // than a frame and at most max_jumbo goes out as a chain of frames (XDP_PKT_CONTD), as the
  // kernel's test sends it; a longer one as one (invalid) descriptor.
  std::uint32_t send(std::uint32_t max);
  // The descriptors packet i takes.
  [[nodiscard]] std::uint32_t fragments(std::size_t i) const;
  // Kick the kernel (sendto) on each socket whose tx ring asks for it; records an unexpected
  // error.
  void kick();
  // Take completions: each must name a descriptor submitted and not completed yet.
  std::uint32_t complete();
  // After the last send: wait up to `ms` for completions of invalid descriptors, then take back
  // the frames of those the kernel did not complete (the tx ring must be consumed).
  void finish(int ms = 50);

  [[nodiscard]] bool all_queued() const noexcept { return next_ == stream_.size(); }
  [[nodiscard]] std::size_t next() const noexcept { return next_; }
  // Packets the kernel has taken from the tx rings (refreshes their consumer indices).
  std::size_t consumed();
  // Valid descriptors not completed yet (on the tx ring, in the kernel or on the completion ring).
  [[nodiscard]] std::uint32_t awaiting() const noexcept { return awaiting_valid_; }
  [[nodiscard]] bool all_completed() const noexcept { return awaiting_valid_ == 0; }
  [[nodiscard]] std::uint32_t sent_valid() const noexcept { return sent_valid_; }
  [[nodiscard]] std::uint32_t sent_invalid() const noexcept { return sent_invalid_; }
  [[nodiscard]] std::uint32_t completed_invalid() const noexcept { return completed_invalid_; }
  [[nodiscard]] std::uint32_t free_frames() const noexcept {
    return static_cast<std::uint32_t>(free_.size());
  }
  [[nodiscard]] std::uint32_t frames() const noexcept { return frames_; }
  // Invalid descriptors the application took back without a completion (in finish()).
  [[nodiscard]] std::uint32_t reclaimed() const noexcept { return reclaimed_; }
  // Completions of an odd address that came back one lower (the kernel's defect, see .cpp).
  [[nodiscard]] std::uint32_t odd_completed_even() const noexcept { return odd_completed_even_; }
  // The kernel's verdict we expect for packet i (the raw layer's tx_descriptor_fault).
  [[nodiscard]] bool valid(std::size_t i) const;
  [[nodiscard]] const std::string& error() const noexcept { return error_; }
  Endpoint& socket() noexcept { return *sockets_.front(); }

 private:
  void fail(const std::string& what) {
    if (error_.empty()) error_ = what;
  }
  std::vector<std::unique_ptr<Endpoint>> owned_;  // made for the Socket& overloads
  std::vector<Endpoint*> sockets_;
  const std::vector<Packet>& stream_;
  MacAddress dst_, src_;
  TxDescriptorRules rules_;
  std::uint32_t frames_;
  std::vector<std::uint64_t> free_;
  struct Outstanding {
    std::uint64_t addr;
    std::uint64_t frame;  // the frame taken from free_ (in unaligned mode addr may lie before it)
    bool valid;
    bool own_frame;  // taken from free_, goes back there
  };
  void place(std::size_t index, Endpoint& socket, std::uint32_t& slot);
  std::vector<Outstanding> outstanding_;          // submitted, not completed, not reclaimed
  std::size_t submitted_ = 0;                     // descriptors
  std::vector<std::size_t> submitted_by_packet_;  // descriptors up to and including packet i
  std::size_t next_ = 0;
  std::uint32_t awaiting_valid_ = 0;
  std::uint32_t sent_valid_ = 0, sent_invalid_ = 0, completed_invalid_ = 0, reclaimed_ = 0;
  std::uint32_t odd_completed_even_ = 0;
  std::string error_;
};

// Receives on one socket into rx frames [first, first + frames * frame_size) and checks each
// frame against the sequences it expects, in order.
class Receiver {
 public:
  Receiver(Endpoint& socket, std::uint64_t first_frame, std::uint32_t frames);
  Receiver(Socket& socket, std::uint64_t first_frame, std::uint32_t frames);

  // Lend every rx frame to the fill ring (the kernel's xsk_populate_fill_ring); every odd one
  // `odd_offset` bytes from its start (unaligned chunks: SEND_RECEIVE_UNALIGNED lends frame - 32).
  void lend(std::int64_t odd_offset = 0);
  // Lend as the kernel's xsk_populate_fill_ring does for a table whose packets carry offsets
  // (after expect()): the rx buffers of the k-th expected packet (as many as it takes) at frame
  // + offsets[k] % frame_size, or frame + offsets[k] when negative, the frames taken in order;
  // the rest at their starts. Then every rx descriptor must name the buffer lent next (the fill
  // ring is a FIFO) at XDP_PACKET_HEADROOM + headroom from it, as the kernel's is_offset_correct
  // checks (in aligned mode the kernel rounds a fill address down to its chunk, and so must the
  // backend).
  void lend_per_packet(const std::vector<std::int64_t>& offsets);
  // The first `n` addresses lent, in order (what the kernel's set-up gives, for a case to pin).
  [[nodiscard]] std::vector<std::uint64_t> first_lent(std::size_t n) const;
  // Give received frames back to the fill ring (the default), or keep them: the kernel's
  // use_fill_ring = false (STAT_FILL_EMPTY lends once and starves).
  void refill(bool on) noexcept { refill_ = on; }
  // Release the rx ring's entries once read (the default), or never: the kernel's release_rx =
  // false (STAT_RX_FULL peeks and checks every frame but leaves the ring full). The frames still
  // go back to the fill ring (refill), as the kernel's receiver gives them back.
  void release_rx(bool on) noexcept { release_rx_ = on; }
  // The frames are on the fill ring already: an earlier receiver on the same fill ring lent them
  // and gave every one back.
  void already_lent() noexcept { lent_ = frames_; }
  // Expect these sequences, in this order, with these lengths.
  void expect(std::vector<std::uint32_t> sequences, std::vector<std::uint32_t> lengths);
  // Up to `n` of the expected packets may be missing, lost before they reached the socket (the
  // sending veth's tx_dropped, when nothing paces it): a later sequence skips them, in order.
  void may_lose(std::uint32_t n) noexcept { may_lose_ = n; }
  [[nodiscard]] std::uint32_t lost() const noexcept { return lost_; }
  // Frames received so far must carry the metadata the program wrote (XDP_METADATA_COPY).
  void check_metadata(bool on) noexcept { check_metadata_ = on; }
  // The last `bytes` of each frame were added by the program (XDP_ADJUST_TAIL_GROW): only the
  // bytes before them are the sender's, and the last 4 must be the frame's length, big-endian,
  // as the program wrote it.
  void added_tail(std::uint32_t bytes) noexcept { added_tail_ = bytes; }
  // Kick (recvfrom), take up to `max` descriptors, check them, release them and give their frames
  // back to the fill ring. A packet may come as a chain of fragments (XDP_USE_SG), even across
  // calls: each fragment is checked (bounds, offset) and the packet whole at its last.
  std::uint32_t receive(std::uint32_t max);

  [[nodiscard]] bool done() const noexcept { return next_ == expected_.size(); }
  // How many packets it expects (what expect() set: any thread may read it).
  [[nodiscard]] std::size_t expected_count() const noexcept { return expected_.size(); }
  // How many of the sequences before `sequence` this receiver expects.
  [[nodiscard]] std::uint32_t expected_before(std::size_t sequence) const;
  // The rx buffers the packets it expects before `sent` take, less those received.
  [[nodiscard]] std::uint32_t in_flight(std::size_t sent) const { return in_flight(sent, next_); }
  // The same with `received` packets received (a count received() gave); 0 when those are more
  // than `sent` accounts for (a count another thread published, behind). It reads only what
  // expect() set, so run_traffic's tx thread calls it while the rx thread receives.
  [[nodiscard]] std::uint32_t in_flight(std::size_t sent, std::size_t received) const;
  [[nodiscard]] std::uint32_t received() const noexcept {
    return static_cast<std::uint32_t>(next_);
  }
  // Rx descriptors taken (fragments; a packet without XDP_USE_SG is one).
  [[nodiscard]] std::uint32_t descriptors() const noexcept { return descriptors_; }
  // The fragments of each packet received, in order.
  [[nodiscard]] const std::vector<std::uint32_t>& fragments_by_packet() const noexcept {
    return fragments_by_packet_;
  }
  // Sequences of the stream up to and including the last one received.
  [[nodiscard]] std::size_t passed() const noexcept { return passed(next_); }
  // The same with `received` packets received; as in_flight(sent, received), any thread.
  [[nodiscard]] std::size_t passed(std::size_t received) const noexcept {
    return received == 0 ? 0 : std::size_t{expected_[received - 1]} + 1;
  }
  [[nodiscard]] std::uint32_t lent() const noexcept { return lent_; }
  [[nodiscard]] const std::string& error() const noexcept { return error_; }
  Endpoint& socket() noexcept { return *socket_; }

 private:
  void fail(const std::string& what) {
    if (error_.empty()) error_ = what;
  }
  std::unique_ptr<Endpoint> owned_;  // made for the Socket& overload
  Endpoint* socket_;
  std::uint64_t first_;
  std::uint32_t frames_;
  std::uint32_t lent_ = 0;
  std::vector<std::uint32_t> expected_, lengths_;
  std::size_t next_ = 0;
  bool check_metadata_ = false;
  std::uint32_t added_tail_ = 0;
  void take(const xdp_desc& desc);
  void check_packet();
  bool skip_lost(std::uint32_t sequence);
  std::uint32_t may_lose_ = 0, lost_ = 0;
  std::vector<std::uint64_t> waiting_;  // frames for the fill ring that did not fit yet
  bool refill_ = true;
  bool release_rx_ = true;
  void lend_frames(const std::vector<std::int64_t>& offsets);
  bool put_on_fill(std::uint32_t n, const std::function<std::uint64_t(std::uint32_t)>& addr);
  bool check_fill_order_ = false;
  std::deque<std::uint64_t> fill_order_;   // what is on the fill ring, oldest first (if checked)
  std::vector<std::uint64_t> lent_first_;  // lend_frames' addresses
  std::vector<std::uint8_t> packet_;       // the fragments of the packet so far
  std::uint32_t fragments_ = 0;
  std::uint32_t descriptors_ = 0;
  std::vector<std::uint32_t> fragments_by_packet_;
  std::vector<std::uint32_t> buffers_until_{0};  // rx buffers of the expected packets before i
  std::string error_;
};

// The expected rx side of a stream: the sequences and lengths of the packets `keep` accepts.
void expect_valid(Receiver& receiver, const Sender& sender, const std::vector<Packet>& stream,
                  const std::function<bool(std::uint32_t)>& keep = {});

// How run_traffic drives the two ends.
enum class Drive {
  // The kernel's way: the receivers on a thread of their own, the sender (send, kick, complete)
  // on another, so the kernel sees rx and tx on the two sockets at once.
  two_threads,
  // Both from the calling thread in turns: each step sees the other's last one.
  one_thread,
};
// Drive::two_threads, or Drive::one_thread when the environment says
// AFXDP_CONFORMANCE_DRIVE=one_thread (the extra ctest runs, CMakeLists.txt).
Drive default_drive();

struct TrafficOptions {
  // poll(POLLIN) before each rx round, the ring read only when it says POLLIN; an error, a
  // timeout with frames on their way, or POLLIN on an empty ring fails (POLL_RX).
  bool poll_rx = false;
  // poll(POLLOUT) after each batch submitted (and while the tx ring lacks room for one) instead
  // of sendto; every one is made and must say POLLOUT, a timeout fails (POLL_TX).
  bool poll_tx = false;
  std::uint32_t tx_batch = batch;
  std::uint32_t rx_batch = batch;
  // How to drive the ends; unset: default_drive().
  std::optional<Drive> drive{};
};

// Drive one sender and its receivers until every receiver has its frames and the sender its
// completions, pacing so that no more frames are in flight than the receivers lent (as the
// kernel's test does) and no more wait in veth's ring than it holds (veth_ring: with busy-poll
// NAPI settings and native XDP the receiving end's NAPI may not run for a while). Without
// receivers, send as fast as the tx ring allows. The kernel's time limits (THREAD_TMOUT's shape,
// stream_timeout long): the receivers have it for their whole stream, the sender for its
// completions once the last packet is queued (and to queue what nothing paces; harness.cpp).
// Returns "" or the first failure. With Drive::two_threads the receivers run on
// one thread (all of them: XDP_SHARED_UMEM's two share a fill ring) and the sender on another;
// the call returns once both are joined.
std::string run_traffic(Sender& sender, std::vector<Receiver*> receivers,
                        const TrafficOptions& options = {});

// Sender/Receiver for a Link or Ends, one direction.
Sender sender_on(Endpoint& from, Endpoint& to, const std::vector<Packet>& stream,
                 const LinkSetup& setup);
Sender sender_on(Socket& from, Socket& to, const std::vector<Packet>& stream,
                 const LinkSetup& setup);
Receiver receiver_on(Endpoint& socket, const LinkSetup& setup);
Receiver receiver_on(Socket& socket, const LinkSetup& setup);

// The two ends of a case on either backend: a fresh veth pair (make_veth; jumbo_veth for
// LinkSetup::multi_buffer) with a Link in the
// mode's attach and bind modes, or a Loopback whose queues 0 (a) and 1 (b) are the two ends, each
// with its own UMEM, a kick on one carrying what it sent to the other (the wire).
class Ends {
 public:
  explicit Ends(const Mode& mode, const LinkSetup& setup = {});
  Ends(const Ends&) = delete;
  Ends& operator=(const Ends&) = delete;
  ~Ends();
  Endpoint& a() noexcept { return *a_; }
  Endpoint& b() noexcept { return *b_; }
  // Frames that left a but never reached b's XDP: the sending veth's tx_dropped, counted when its
  // peer's 256-entry ring was full (with busy-poll's deferred interrupts and nobody polling, the
  // peer's NAPI runs only on gro_flush_timeout's timer); 0 on the Loopback.
  [[nodiscard]] std::uint64_t dropped_by_sender() const;

  const LinkSetup setup;

 private:
  std::optional<lab::VethPair> veth_;
  std::unique_ptr<Link> link_;
  std::unique_ptr<testing::Loopback> loopback_;
  std::unique_ptr<Endpoint> a_, b_;
};

// SEND_RECEIVE on a Link or Ends: the default stream a→b, checked; "" or the failure.
std::string send_receive(Endpoint& a, Endpoint& b, const LinkSetup& setup,
                         std::uint32_t packets = default_packets, std::uint32_t len = min_packet,
                         const TrafficOptions& options = {});
std::string send_receive(Link& link, std::uint32_t packets = default_packets,
                         std::uint32_t len = min_packet, const TrafficOptions& options = {});

// Wait up to `ms` for `done`, kicking rx meanwhile. For counters the kernel updates in softirq.
bool settle(Endpoint& socket, const std::function<bool()>& done, int ms = 1000);
bool settle(Socket& socket, const std::function<bool()>& done, int ms = 1000);

// First statement of every conformance case: on veth, AFXDP_REQUIRE_SYSTEM; the Loopback needs
// nothing.
#define AFXDP_REQUIRE_BACKEND()                                      \
  do {                                                               \
    if (GetParam().backend == ::afxdp::conformance::Backend::veth) { \
      AFXDP_REQUIRE_SYSTEM();                                        \
    }                                                                \
  } while (0)

// A multi-buffer case (XDP_USE_SG): on veth it also needs the kernel to allow multi-buffer
// sockets (the probe); the Loopback always does.
#define AFXDP_REQUIRE_MULTI_BUFFER()                                 \
  do {                                                               \
    AFXDP_REQUIRE_BACKEND();                                         \
    if (GetParam().backend == ::afxdp::conformance::Backend::veth) { \
      AFXDP_REQUIRE_FACILITY(::afxdp::test::multi_buffer());         \
    }                                                                \
  } while (0)

// What a case asserts that this kernel was measured to do, where the kernel's own case expects
// something else or would accept either (docs/conformance.md, "What the kernel here does"): the
// count is asserted exactly, and the failure message names the kernel it was measured on and the
// one running, so a kernel that behaves otherwise is noticed (and measured again), never absorbed.
inline constexpr const char* measured_kernel = "6.18.44";
// uname -r of the running kernel.
std::string kernel_release();
// " (measured on Linux 6.18.44: <what>; running <uname -r>; docs/conformance.md)", for a message.
std::string measured(const std::string& what);

// The verdict docs/conformance.md's case table gives each kernel case, in its "strict, or why not"
// column (check_doc_table.py reads both and fails when they differ):
//   strict          the kernel's set-up and every assertion it makes (most check more);
//   variant         the kernel's set-up, but an assertion differs: this kernel's measured
//                   behaviour where the kernel's case expects another, or a count it does not pin;
//   partial         strict in some modes, not applicable in the others;
//   not_applicable  not applicable on veth in any mode (the kernel's own case skips there too).
enum class Verdict { strict, variant, partial, not_applicable };
struct CaseVerdict {
  const char* name;  // the kernel's case
  Verdict verdict;
  const char* why;  // empty for strict
};
const std::vector<CaseVerdict>& case_verdicts();

// Why a test may skip in a run of the conformance binaries (case_table.cpp). A skip that is not
// in this list fails the run (an Environment's TearDown names it), as does one whose facility
// the probe found available: hugepages the kernel would not give are a failure, not a skip.
// Tests skipped for want of privilege (AFXDP_REQUIRE_SYSTEM: the tier cannot run at all) aside.
enum class SkipCause {
  not_applicable,   // on veth in the modes named, on every kernel (the doc says why)
  xdp_adjust_meta,  // afxdp::test::xdp_adjust_meta() refused
  xdp_adjust_tail,  // afxdp::test::xdp_adjust_tail() refused
  multi_buffer,     // afxdp::test::multi_buffer() refused
  busy_poll,        // afxdp::test::busy_poll() refused
};
struct ExpectedSkip {
  const char* test;   // Suite.Name, without the mode; "*" for every test
  const char* modes;  // the modes it may skip in, space-separated; "" for every mode
  SkipCause cause;
  // not_applicable: words the skip's message must contain, the case's own reason (any other
  // reason for skipping it fails, as for a test no entry names).
  const char* reason = "";
};
const std::vector<ExpectedSkip>& expected_skips();
// The skips of a finished run that no entry allows, one line each (empty when none);
// `refused(cause)` says whether that facility's probe refused it.
struct SkippedTest {
  std::string name;  // Suite.Name/mode as GoogleTest names it
  std::string why;
};
std::vector<std::string> unexpected_skips(const std::vector<SkippedTest>& skipped,
                                          const std::function<bool(SkipCause)>& refused);

// The kernel's table of valid and invalid tx descriptors (testapp_invalid_desc), sent once over
// a fresh link: ALIGNED_INV_DESC*, UNALIGNED_INV_DESC*.
void run_invalid_desc(const Mode& mode, std::uint32_t frame_size, bool unaligned);

// The kernel's table of bad multi-buffer chains (testapp_invalid_desc_mb) from a raw XDP_USE_SG
// socket to another: ALIGNED_INV_DESC_MULTI_BUFF, UNALIGNED_INV_DESC_MULTI_BUFF (frags_test.cpp).
void run_invalid_desc_mb(const Mode& mode, bool unaligned);

}  // namespace afxdp::conformance
