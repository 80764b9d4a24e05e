// The kernel's multi-buffer tx cases TOO_MANY_FRAGS and ALIGNED/UNALIGNED_INV_DESC_MULTI_BUFF:
// their descriptor tables (testapp_too_many_frags, testapp_invalid_desc_mb) sent as they are from
// a raw XDP_USE_SG socket on end a to one on end b (veth at MTU 9000, or the Loopback). The
// packets the backend delivers must arrive whole, in order, byte for byte; nothing else may.
#include "harness.hpp"

#include <afxdp/detail/uapi.hpp>
#include <afxdp/packet.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <thread>

namespace afxdp::conformance {
namespace {

constexpr std::uint32_t frame = 4096;          // XSK_UMEM__DEFAULT_FRAME_SIZE
constexpr std::uint32_t large = 3072;          // XSK_UMEM__LARGE_FRAME_SIZE
constexpr std::uint32_t too_long = 9001;       // XSK_UMEM__INVALID_FRAME_SIZE
constexpr std::uint32_t bad_options = 0xffff;  // XSK_DESC__INVALID_OPTION
constexpr std::uint32_t contd = uapi::xdp_pkt_contd;

// One descriptor of the kernel's table. `offset` as the kernel's pkt_get_addr takes it: in a
// valid chain, from the start of the next buffer; in an invalid one, the address itself.
struct Desc {
  std::uint32_t len;
  std::uint32_t options = 0;
  std::int64_t offset = 0;
};
// A packet: its descriptors, and whether the kernel must deliver it.
struct Chain {
  std::vector<Desc> descs;
  bool valid;
};

// Puts every chain on a's tx ring as the kernel's __send_pkts puts a verbatim stream: each
// descriptor of a valid chain at its offset from the next buffer (the UMEM's frames in order from
// its start, as umem_alloc_buffer hands them out: end a has no rx ring, so none is lent), each
// descriptor of an invalid chain at its offset taken as the address; packet i's bytes, the test
// frame with sequence i, spread over a valid chain's descriptors only (pkt_generate). Returns how
// many descriptors.
std::uint32_t queue_chains(Ends& ends, const std::vector<Chain>& chains) {
  Endpoint& a = ends.a();
  const UmemView& umem = a.umem();
  std::uint32_t total = 0;
  for (const Chain& c : chains) total += static_cast<std::uint32_t>(c.descs.size());
  TxRing& tx = a.tx();
  EXPECT_EQ(tx.reserve(total), total);
  std::uint64_t next_buffer = 0;
  std::uint32_t slot = 0;
  for (std::uint32_t seq = 0; seq < chains.size(); ++seq) {
    std::uint32_t len = 0;
    for (const Desc& d : chains[seq].descs) len += d.len;
    const auto bytes =
        lab::test_frame(seq, std::max<std::uint32_t>(len, min_packet), ends.b().mac(), a.mac());
    std::uint32_t at = 0;
    for (const Desc& d : chains[seq].descs) {
      std::uint64_t addr = static_cast<std::uint64_t>(d.offset);
      if (chains[seq].valid) {
        addr = static_cast<std::uint64_t>(static_cast<std::int64_t>(next_buffer) + d.offset);
        next_buffer += frame;
        std::memcpy(umem.data(addr), bytes.data() + at, d.len);
        at += d.len;
      }
      tx.at(slot++) = xdp_desc{addr, d.len, d.options};
    }
  }
  tx.submit(total);
  return total;
}

// As the kernel's harness: the sender on a thread of its own (kicking until the kernel has taken
// every descriptor), the receiver on this one; each has stream_timeout (THREAD_TMOUT's shape). Then
// 50 ms more of receiving for any packet that should not come (the Receiver fails on it). With
// AFXDP_CONFORMANCE_DRIVE=one_thread, both from this thread in turns (the extra run).
void exchange(Ends& ends, Receiver& receiver) {
  using Clock = std::chrono::steady_clock;
  Endpoint& a = ends.a();
  std::string tx_failure;
  const auto kick = [&] {
    const WakeStatus status = a.wake_tx();
    if (!status.transient()) tx_failure = std::string("sendto: ") + std::strerror(status.error);
    return tx_failure.empty();
  };
  const auto deadline = Clock::now() + stream_timeout;
  if (default_drive() == Drive::one_thread) {
    while (!receiver.done() && Clock::now() < deadline && kick()) receiver.receive(batch);
  } else {
    std::jthread tx([&] {
      while (a.tx().outstanding() != 0) {
        if (Clock::now() > deadline) {
          tx_failure = "transmission loop timed out: the tx ring not consumed in " +
                       in_seconds(stream_timeout);
          return;
        }
        if (!kick()) return;
      }
    });
    while (!receiver.done() && Clock::now() < deadline && receiver.error().empty()) {
      receiver.receive(batch);
    }
  }  // the tx thread joined
  EXPECT_EQ(tx_failure, "");
  const auto settle = Clock::now() + std::chrono::milliseconds(50);
  while (Clock::now() < settle) {
    a.wake_tx();
    receiver.receive(batch);
  }
  EXPECT_EQ(a.tx().outstanding(), 0U);
}

// Descriptors the kernel completed (all of them: nothing else was sent).
std::uint32_t completions(Endpoint& socket) {
  std::uint32_t total = 0;
  for (int i = 0; i < 10; ++i) {
    const std::uint32_t n = socket.completion().peek(1024);
    socket.completion().release(n);
    total += n;
  }
  return total;
}

// Where Linux 6.18.44 differs from the kernel's cases (measured, docs/conformance.md): in copy
// mode a packet dropped at a descriptor that carries XDP_PKT_CONTD (an invalid one, or the one
// past the fragment limit) stays open, and the kernel drops the descriptors after it up to the
// next one without XDP_PKT_CONTD as well: the next packet, though valid, is lost. The kernel's
// cases expect it to arrive (the 2 x 4096 packet after the one with options 0xffff, the synch
// packet after the over-long chain), and so does the Loopback, which ends a dropped packet at its
// invalid descriptor. Returns the chains the backend delivers; `dropped_descs`: the descriptors
// of the others, all counted in tx_invalid_descs.
std::vector<std::uint32_t> delivered(const std::vector<Chain>& chains, Backend backend,
                                     std::uint32_t& dropped_descs) {
  std::vector<std::uint32_t> delivered;
  dropped_descs = 0;
  bool open = false;  // the previous packet was dropped at a descriptor saying "continues"
  for (std::uint32_t i = 0; i < chains.size(); ++i) {
    const bool arrives = chains[i].valid && !open;
    if (arrives) {
      delivered.push_back(i);
    } else {
      dropped_descs += static_cast<std::uint32_t>(chains[i].descs.size());
    }
    open = backend == Backend::veth && !arrives && (chains[i].descs.back().options & contd) != 0;
  }
  return delivered;
}

// Sends the table; the chains the backend delivers must arrive (a's raw socket to b's, both
// XDP_USE_SG), in order, each whole and byte for byte, and nothing else; tx_invalid_descs must
// count every descriptor of every dropped packet. Returns the receiver (what it lent, each
// received packet's fragments).
Receiver run_kernel_table(Ends& ends, Backend backend, const std::vector<Chain>& chains) {
  std::uint32_t dropped_descs = 0;
  const auto expected = delivered(chains, backend, dropped_descs);
  std::vector<std::uint32_t> lengths;
  std::vector<std::int64_t> offsets;  // the kernel's rx packet takes its last descriptor's offset
  std::uint32_t valid_descs = 0;
  for (const std::uint32_t i : expected) {
    std::uint32_t len = 0;
    for (const Desc& d : chains[i].descs) len += d.len;
    lengths.push_back(len);
    offsets.push_back(chains[i].descs.back().offset);
    valid_descs += static_cast<std::uint32_t>(chains[i].descs.size());
  }
  Receiver receiver = receiver_on(ends.b(), ends.setup);
  receiver.expect(expected, lengths);
  // Lent as the kernel's set-up lends them for the packets that arrive here: the crossing chain
  // of the unaligned table lands in a buffer lent 32 bytes before a chunk.
  receiver.lend_per_packet(offsets);
  queue_chains(ends, chains);
  exchange(ends, receiver);
  // On veth the packets expected are what this kernel was measured to deliver (delivered()).
  const std::string rule =
      backend == Backend::veth
          ? measured("a packet dropped at XDP_PKT_CONTD takes the next packet with it")
          : std::string();
  EXPECT_EQ(receiver.error(), "") << rule;
  EXPECT_TRUE(receiver.done()) << receiver.received() << " of " << expected.size() << " arrived"
                               << rule;
  const XdpStatistics s = ends.a().statistics();
  const std::uint32_t completed = completions(ends.a());
  ::testing::Test::RecordProperty("tx_invalid_descs", static_cast<int>(s.tx_invalid_descs));
  ::testing::Test::RecordProperty("completions", static_cast<int>(completed));
  EXPECT_EQ(s.tx_invalid_descs, dropped_descs) << rule;
  if (backend == Backend::loopback) {
    EXPECT_EQ(completed, valid_descs);  // a dropped packet's descriptors are never completed
  } else {
    EXPECT_EQ(completed, valid_descs + dropped_descs)
        << measured("copy mode completes every descriptor, those of dropped packets too");
  }
  return receiver;
}

// testapp_too_many_frags: a packet of exactly max_skb_frags + 1 descriptors (the limit in copy
// mode) is sent; one as long whose last descriptor still says "continues" is dropped whole.
TEST_P(Conformance, TOO_MANY_FRAGS) {
  AFXDP_REQUIRE_MULTI_BUFFER();
  // The Loopback's limit is MAX_SKB_FRAGS' default + 1 (afxdp::max_fragments), whatever the host's.
  const std::uint32_t limit =
      GetParam().backend == Backend::loopback ? max_fragments : max_skb_frags() + 1;
  Ends ends(GetParam(), {.multi_buffer = true});
  std::vector<Chain> chains{{{{min_packet}}, true}};
  Chain at_limit{std::vector<Desc>(limit, Desc{min_packet, contd}), true};
  at_limit.descs.back().options = 0;
  chains.push_back(at_limit);
  chains.push_back({std::vector<Desc>(limit, Desc{min_packet, contd}), false});
  chains.push_back({{{min_packet}}, true});
  chains.push_back({{{min_packet}}, true});            // one more: on veth the one before is lost
  run_kernel_table(ends, GetParam().backend, chains);  // checks packet 1 whole: limit * 64 B
}

// testapp_invalid_desc_mb: each bad pattern is a chain that ends at its invalid descriptor.
std::vector<Chain> invalid_desc_mb_table(std::uint64_t umem_size, bool unaligned) {
  return {
      {{{min_packet}}, true},                          // for synch
      {{{large, contd}, {large, contd}, {0}}, false},  // zero-length last
      {{{large, contd}, {large, contd, static_cast<std::int64_t>(umem_size)}},
       false},                                          // past the end
      {{{large, contd}, {too_long, contd}}, false},     // too long in the middle
      {{{large, contd}, {large, bad_options}}, false},  // invalid options
      {{{frame, contd}, {frame}}, true},                // 2 sent, 3 received
      {{{large, contd}, {min_packet, 0, -std::int64_t{min_packet} / 2}}, unaligned},  // crosses
      {{{min_packet}}, true},                                                         // for synch
  };
}

}  // namespace

void run_invalid_desc_mb(const Mode& mode, bool unaligned) {
  Ends ends(mode, {.unaligned = unaligned, .multi_buffer = true});
  auto chains =
      invalid_desc_mb_table(ends.a().umem().config().frame_count * std::uint64_t{frame}, unaligned);
  // The table's 2 x 4096 packet once more where no open packet precedes it, and a synch packet.
  chains.push_back({{{frame, contd}, {frame}}, true});
  chains.push_back({{{min_packet}}, true});
  std::uint32_t dropped = 0;
  const auto arrived = delivered(chains, mode.backend, dropped);
  const Receiver receiver = run_kernel_table(ends, mode.backend, chains);
  const auto& fragments = receiver.fragments_by_packet();
  // It does not fit one rx frame (4096 - 256 headroom): 3 fragments.
  std::uint32_t two_frame_packets = 0;
  for (std::size_t k = 0; k < fragments.size() && k < arrived.size(); ++k) {
    if (chains[arrived[k]].descs.size() == 2 && chains[arrived[k]].descs[0].len == frame) {
      EXPECT_EQ(fragments[k], 3U) << "packet " << arrived[k];
      ++two_frame_packets;
    }
  }
  // The crossing chain's rx buffer is lent 32 bytes before a chunk, as the kernel lends it, in
  // unaligned mode (where the chain is valid) only.
  std::uint32_t lent_before_chunk = 0;
  for (const std::uint64_t addr : receiver.first_lent(receiver.lent())) {
    if (addr % frame == frame - min_packet / 2) ++lent_before_chunk;
  }
  EXPECT_EQ(lent_before_chunk, unaligned ? 1U : 0U);
  // Veth loses the table's own one (see delivered()); the Loopback delivers both.
  if (mode.backend == Backend::veth) {
    EXPECT_EQ(two_frame_packets, 1U)
        << measured("the 2 x 4096 packet after the options-0xffff chain is lost");
  } else {
    EXPECT_EQ(two_frame_packets, 2U);
  }
}

namespace {

TEST_P(Conformance, ALIGNED_INV_DESC_MULTI_BUFF) {
  AFXDP_REQUIRE_MULTI_BUFFER();
  run_invalid_desc_mb(GetParam(), false);
}

}  // namespace
}  // namespace afxdp::conformance
