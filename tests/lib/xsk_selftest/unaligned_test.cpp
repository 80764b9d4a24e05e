// The kernel's unaligned-chunk cases (XDP_UMEM_UNALIGNED_CHUNK_FLAG). On veth the UMEMs are on
// 2 MiB hugepages, reserved for the test through /proc/sys/vm/nr_hugepages and given back
// afterwards (tests/support/hugepages.hpp). The Loopback's UMEM is one ordinary allocation,
// contiguous as a hugepage is, and nothing registers it: it needs no reservation (and,
// unprivileged, could not make one).
#include "harness.hpp"

#include "hugepages.hpp"
#include "probes.hpp"

#include <optional>

namespace afxdp::conformance {
namespace {

// Two UMEMs of 2048 frames of up to 4096 bytes: 8 MiB each.
constexpr long pages = 2L * 4;

#define RESERVE_HUGEPAGES()                                          \
  std::optional<afxdp::test::HugepageReservation> hugepages;         \
  if (GetParam().backend == Backend::veth) hugepages.emplace(pages); \
  if (hugepages) AFXDP_REQUIRE_FACILITY(afxdp::test::hugepages(*hugepages))

// Every other packet 32 bytes before its frame's start, so that it straddles the boundary with
// the frame before, and, as the kernel's xsk_populate_fill_ring does for such a stream, every
// other rx frame lent 32 bytes before its start too (the receiver puts each back where it was);
// each arrives in order with its content at the exact offset from the address lent.
TEST_P(Conformance, SEND_RECEIVE_UNALIGNED) {
  AFXDP_REQUIRE_BACKEND();
  RESERVE_HUGEPAGES();
  Ends ends(GetParam(), {.unaligned = true});
  const LinkSetup& setup = ends.setup;
  auto stream = uniform_stream(default_packets, min_packet);
  for (std::size_t i = 1; i < stream.size(); i += 2)
    stream[i].offset = -std::int64_t{min_packet} / 2;
  Sender sender = sender_on(ends.a(), ends.b(), stream, setup);
  Receiver receiver = receiver_on(ends.b(), setup);
  expect_valid(receiver, sender, stream);
  // Each packet's buffer lent at its own offset, and checked to land in the buffer lent for it
  // (the kernel's is_offset_correct): not only at the offset past whichever buffer it took.
  std::vector<std::int64_t> offsets;
  offsets.reserve(stream.size());
  for (const auto& packet : stream) offsets.push_back(packet.offset);
  receiver.lend_per_packet(offsets);
  for (std::size_t i = 0; i < stream.size(); ++i) ASSERT_TRUE(sender.valid(i)) << i;
  EXPECT_EQ(run_traffic(sender, {&receiver}), "");
  EXPECT_EQ(ends.a().statistics().tx_invalid_descs, 0U);
  const XdpStatistics rx = ends.b().statistics();
  EXPECT_EQ(rx, (XdpStatistics{.tx_ring_empty_descs = rx.tx_ring_empty_descs}));
}

// SEND_RECEIVE_9K_PACKETS with unaligned chunks on both UMEMs: chains of whole chunks out,
// fragments in, each packet whole and in order.
TEST_P(Conformance, SEND_RECEIVE_UNALIGNED_9K_PACKETS) {
  AFXDP_REQUIRE_MULTI_BUFFER();
  RESERVE_HUGEPAGES();
  Ends ends(GetParam(), {.unaligned = true, .multi_buffer = true});
  EXPECT_EQ(send_receive(ends.a(), ends.b(), ends.setup, default_packets, max_jumbo), "");
  EXPECT_EQ(ends.a().statistics().tx_invalid_descs, 0U);
  EXPECT_EQ(ends.b().statistics().rx_dropped, 0U);
}

TEST_P(Conformance, UNALIGNED_INV_DESC) {
  AFXDP_REQUIRE_BACKEND();
  RESERVE_HUGEPAGES();
  run_invalid_desc(GetParam(), 4096, true);
}

// An odd frame size, so that the UMEM ends away from a page boundary (2048 * 4001 bytes end 2048
// bytes into a page): the descriptors straddling the UMEM's end straddle no page.
TEST_P(Conformance, UNALIGNED_INV_DESC_4001_FRAME_SIZE) {
  AFXDP_REQUIRE_BACKEND();
  RESERVE_HUGEPAGES();
  run_invalid_desc(GetParam(), 4001, true);
}

TEST_P(Conformance, UNALIGNED_INV_DESC_MULTI_BUFF) {
  AFXDP_REQUIRE_MULTI_BUFFER();
  RESERVE_HUGEPAGES();
  run_invalid_desc_mb(GetParam(), true);
}

}  // namespace
}  // namespace afxdp::conformance
