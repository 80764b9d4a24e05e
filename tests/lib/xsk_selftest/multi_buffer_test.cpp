// Some of the kernel's multi-buffer cases' programs and traffic (XDP_METADATA_COPY_MULTI_BUFF on
// jumbo packets, XDP_ADJUST_TAIL_SHRINK_MULTI_BUFF, SEND_RECEIVE(_UNALIGNED)_9K_PACKETS) through
// the Port layer with PortConfig::multi_buffer: a veth pair with MTU 9000, an AF_PACKET peer
// sending test frames, every packet checked whole.
#include "conformance_meta.h"
#include "conformance_skeleton.hpp"
#include "harness.hpp"
#include "hugepages.hpp"
#include "probes.hpp"

#include <afxdp/port.hpp>

#include <chrono>
#include <cstring>
#include <functional>
#include <map>
#include <optional>

namespace afxdp::conformance {
namespace {

constexpr std::uint32_t jumbo_frame = 9000 + 14;
constexpr std::uint32_t large_packet = 2 * 3072;  // the kernel's XSK_UMEM__LARGE_FRAME_SIZE * 2
constexpr std::uint32_t packets = 200;

}  // namespace

PortConfig multi_buffer_config(const Mode& mode) {
  return {.queues = {0},
          .bind = mode.bind,
          .attach = mode.attach,
          .busy_poll = mode.busy_poll,
          .multi_buffer = true};
}

namespace {

// What one received packet was: its bytes joined, and what the check made of them.
struct Seen {
  std::vector<std::uint8_t> bytes;
  std::uint32_t fragments = 0;
  std::optional<std::uint32_t> meta;  // the program's count in front of the first fragment
};

// Send `packets` test frames of `length` bytes from veth a to the Port on b, one in flight at a
// time; returns what came of each, by sequence, once all have come or 10 s have passed.
// Gives up early when the program counts a refusal in `*refused`.
std::map<std::uint32_t, Seen> exchange(const lab::VethPair& veth, Port& port, std::uint32_t length,
                                       bool read_meta, const std::uint32_t* refused = nullptr) {
  lab::PacketSocket peer(veth.a());
  const auto dst = afxdp::mac_address(veth.b());
  const auto src = afxdp::mac_address(veth.a());
  std::map<std::uint32_t, Seen> seen;
  Queue& q = port.queues()[0];
  const auto reader = [&](std::span<afxdp::Packet> received) {
    for (const afxdp::Packet& p : received) {
      Seen s{std::vector<std::uint8_t>(p.size()), p.fragment_count(), {}};
      p.copy_to(std::as_writable_bytes(std::span(s.bytes)));
      std::uint32_t sequence = 0;
      // The tail a program grew is not the sender's: check the pattern up to the sent length.
      if (!lab::check_test_frame(s.bytes.data(), std::min<std::size_t>(s.bytes.size(), length),
                                 sequence)) {
        continue;  // not ours
      }
      if (read_meta) {
        const auto meta = p[0].metadata(sizeof(::conformance_meta));
        if (meta.size() == sizeof(::conformance_meta)) {
          ::conformance_meta m{};
          std::memcpy(&m, meta.data(), sizeof m);
          s.meta = m.count;
        }
      }
      seen[sequence] = std::move(s);
    }
  };
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  for (std::uint32_t sent = 0;
       seen.size() < packets && std::chrono::steady_clock::now() < deadline &&
       (refused == nullptr || *static_cast<const volatile std::uint32_t*>(refused) == 0);) {
    // This checks content, not speed: one in flight, so no ring ever overflows.
    if (sent == seen.size() && sent < packets) {
      const auto frame = lab::test_frame(sent, length, dst, src);
      if (peer.send(frame.data(), frame.size())) ++sent;
    }
    q.receive_packets(reader);
  }
  return seen;
}

// Every packet arrived, each `expect_length` bytes in at least `min_fragments` fragments, its
// first `intact` bytes as the sender wrote them.
void expect_all(const std::map<std::uint32_t, Seen>& seen, std::uint32_t sent_length,
                std::uint32_t expect_length, std::uint32_t intact, std::uint32_t min_fragments,
                const lab::VethPair& veth) {
  ASSERT_EQ(seen.size(), packets);
  const auto dst = afxdp::mac_address(veth.b());
  const auto src = afxdp::mac_address(veth.a());
  for (const auto& [sequence, s] : seen) {
    ASSERT_EQ(s.bytes.size(), expect_length) << "packet " << sequence;
    EXPECT_GE(s.fragments, min_fragments) << "packet " << sequence;
    const auto sent = lab::test_frame(sequence, sent_length, dst, src);
    EXPECT_TRUE(std::equal(sent.begin(), sent.begin() + intact, s.bytes.begin()))
        << "packet " << sequence;
  }
}

// XDP_METADATA_COPY_MULTI_BUFF's program on jumbo packets, through the Port layer: the metadata
// in front of the first fragment of packets in 3 or more.
TEST_P(Conformance, XDP_METADATA_COPY_MULTI_BUFF_jumbo_through_Port) {
  AFXDP_REQUIRE_SYSTEM();
  AFXDP_REQUIRE_FACILITY(afxdp::test::multi_buffer());
  AFXDP_REQUIRE_FACILITY(afxdp::test::xdp_adjust_meta());
  const auto veth = jumbo_veth(GetParam());
  Skeleton skeleton = load_programs({"populate_metadata_frags"});
  PortConfig config = multi_buffer_config(GetParam());
  config.program = {skeleton->obj, "populate_metadata_frags", "xsks"};
  Port port = Port::open(veth.b(), config);
  const auto seen = exchange(veth, port, jumbo_frame, true);
  expect_all(seen, jumbo_frame, jumbo_frame, jumbo_frame, 3, veth);
  std::optional<std::uint32_t> previous;
  for (const auto& [sequence, s] : seen) {
    ASSERT_TRUE(s.meta.has_value()) << "packet " << sequence << " has no metadata";
    if (previous) {
      EXPECT_GT(*s.meta, *previous) << "packet " << sequence;
    }
    previous = s.meta;
  }
  EXPECT_EQ(port.queues()[0].stats().invalid_chains, 0U);
}

// XDP_ADJUST_TAIL_SHRINK_MULTI_BUFF's program and sizes through the Port layer: 6144-byte
// packets from an AF_PACKET peer shrunk by a whole 4096-byte buffer; the helper never refuses.
TEST_P(Conformance, XDP_ADJUST_TAIL_SHRINK_MULTI_BUFF_through_Port) {
  AFXDP_REQUIRE_SYSTEM();
  AFXDP_REQUIRE_FACILITY(afxdp::test::multi_buffer());
  AFXDP_REQUIRE_FACILITY(afxdp::test::xdp_adjust_tail());
  constexpr std::int32_t adjust = -4096;
  const auto veth = jumbo_veth(GetParam());
  Skeleton skeleton = load_programs({"adjust_tail_frags"});
  skeleton->bss->tail_adjust = adjust;
  PortConfig config = multi_buffer_config(GetParam());
  config.program = {skeleton->obj, "adjust_tail_frags", "xsks"};
  Port port = Port::open(veth.b(), config);
  const auto seen = exchange(veth, port, large_packet, false, &skeleton->bss->tail_refused);
  ASSERT_EQ(skeleton->bss->tail_refused, 0U)
      << "refusals: -EINVAL " << skeleton->bss->tail_invalid << ", other "
      << skeleton->bss->tail_other << " (the last " << skeleton->bss->tail_other_error << ")";
  ASSERT_EQ(skeleton->bss->tail_unsupported, 0U);
  const auto received =
      static_cast<std::uint32_t>(static_cast<std::int32_t>(large_packet) + adjust);
  expect_all(seen, large_packet, received, received, 1, veth);
}

// SEND_RECEIVE_9K_PACKETS's traffic from an AF_PACKET peer into a Port: jumbo packets whole and
// intact, each in 3 or more fragments.
TEST_P(Conformance, SEND_RECEIVE_9K_PACKETS_through_Port) {
  AFXDP_REQUIRE_SYSTEM();
  AFXDP_REQUIRE_FACILITY(afxdp::test::multi_buffer());
  const auto veth = jumbo_veth(GetParam());
  Port port = Port::open(veth.b(), multi_buffer_config(GetParam()));
  const auto seen = exchange(veth, port, jumbo_frame, false);
  expect_all(seen, jumbo_frame, jumbo_frame, jumbo_frame, 3, veth);
  EXPECT_EQ(port.queues()[0].stats().refused, 0U);
}

// The same into a Port with unaligned chunks on hugepages.
TEST_P(Conformance, SEND_RECEIVE_UNALIGNED_9K_PACKETS_through_Port) {
  AFXDP_REQUIRE_SYSTEM();
  AFXDP_REQUIRE_FACILITY(afxdp::test::multi_buffer());
  PortConfig config = multi_buffer_config(GetParam());
  config.unaligned_chunks = true;
  config.frames_per_queue = 2048;
  afxdp::test::HugepageReservation hugepages(5);  // 2048 frames of 4096 bytes: 8 MiB
  AFXDP_REQUIRE_FACILITY(afxdp::test::hugepages(hugepages));
  const auto veth = jumbo_veth(GetParam());
  Port port = Port::open(veth.b(), config);
  const auto seen = exchange(veth, port, jumbo_frame, false);
  expect_all(seen, jumbo_frame, jumbo_frame, jumbo_frame, 3, veth);
  EXPECT_EQ(port.queues()[0].stats().refused, 0U);
}

}  // namespace
}  // namespace afxdp::conformance
