// ALIGNED_INV_DESC and ALIGNED_INV_DESC_2K_FRAME_SIZE: the kernel's table of valid and invalid tx
// descriptors, at the kernel's addresses, sent once. The valid ones arrive in order and complete,
// each in the rx buffer the kernel's set-up lends for it (at its table offset: in unaligned mode
// near a chunk's end), the invalid ones are counted in tx_invalid_descs, and the raw layer's
// tx_descriptor_fault() agrees with the kernel on every one.
#include "harness.hpp"

namespace afxdp::conformance {
namespace {

// The first column of the kernel's table (its `offset`), row by row: the address of an invalid
// descriptor, and for a valid one the offset from the buffer it takes, which its rx buffer is
// lent at too (xsk_populate_fill_ring: buffer + offset % frame size). `size` is the receiving
// UMEM's length, a whole number of frames, so the offset in a frame is the kernel's.
std::vector<std::int64_t> kernel_offsets(std::uint64_t size, std::uint32_t frame) {
  const auto s = static_cast<std::int64_t>(size);
  const std::int64_t f = frame;
  const std::int64_t m = min_packet;
  return {0, 0, -2, 0, s - m - 2 * f, s, s - m / 2, 0x1000 - m / 2, 0x800 - m / 2, 0};
}

// The rx buffers the kernel's set-up lends for the valid packets of the unaligned cases (the
// figures quoted in issue 38): near a chunk's end, so each packet lands in the next chunk.
std::vector<std::uint64_t> kernel_fill_addresses(std::uint32_t frame) {
  if (frame == 4096) return {0, 4096, 8192 + 4032, 12288 + 4064, 16384 + 2016, 20480};
  return {0, 4001, 11939, 12066, 18020, 20005};  // 4001-byte chunks
}

// The kernel's table as its __send_pkts addresses it (pkt_get_addr): a valid descriptor at its
// offset from the next buffer (the UMEM's frames in order from its start, as umem_alloc_buffer
// hands them out: end a has no rx ring, so none is lent), an invalid one at its offset taken as
// the address. So three invalid ones share address 0 with the first valid one, as in the
// kernel's; the Sender matches each completion to one of them, and the counts come out the same.
std::vector<Packet> invalid_desc_stream(const std::vector<std::int64_t>& offsets,
                                        const std::vector<bool>& kernel_valid,
                                        std::uint32_t frame) {
  std::vector<Packet> stream;
  std::uint64_t next_buffer = 0;
  for (std::size_t i = 0; i < offsets.size(); ++i) {
    std::uint64_t addr = static_cast<std::uint64_t>(offsets[i]);
    if (kernel_valid[i]) {
      addr = static_cast<std::uint64_t>(static_cast<std::int64_t>(next_buffer) + offsets[i]);
      next_buffer += frame;
    }
    // Row 3 is the packet too large (XSK_UMEM__INVALID_FRAME_SIZE).
    stream.push_back({.len = i == 3 ? 9001U : min_packet, .addr = addr});
  }
  return stream;
}

}  // namespace

void run_invalid_desc(const Mode& mode, std::uint32_t frame_size, bool unaligned) {
  const LinkSetup setup{.frame_size = frame_size, .unaligned = unaligned};
  Ends ends(mode, setup);
  const std::uint64_t size = std::uint64_t{ends.a().umem().config().frame_count} * frame_size;
  // The kernel's expectations for this table; 2K frames make the 2K straddle invalid.
  std::vector<bool> kernel = {true, true, false, false, true, false, false, false, true, true};
  if (unaligned) kernel[7] = true;  // crossing a page is allowed in unaligned mode
  if (frame_size == 2048) kernel[8] = false;
  // Both UMEMs have the same length, so the table's offsets are the same for both ends.
  ASSERT_EQ(ends.b().umem().config().frame_count, ends.a().umem().config().frame_count);
  const auto table = kernel_offsets(size, frame_size);
  const auto stream = invalid_desc_stream(table, kernel, frame_size);
  Sender sender = sender_on(ends.a(), ends.b(), stream, setup);
  std::uint32_t odd_valid = 0;  // valid descriptors at odd addresses (4001-byte chunks only)
  for (std::size_t i = 0; i < stream.size(); ++i) {
    if (kernel[i] && (*stream[i].addr & 1) != 0) ++odd_valid;
  }
  std::uint32_t invalid = 0;
  for (std::size_t i = 0; i < stream.size(); ++i) {
    EXPECT_EQ(sender.valid(i), kernel[i]) << "tx_descriptor_fault disagrees on descriptor " << i;
    if (!kernel[i]) ++invalid;
  }

  Receiver receiver = receiver_on(ends.b(), setup);
  expect_valid(receiver, sender, stream);
  std::vector<std::int64_t> offsets;
  for (std::size_t i = 0; i < table.size(); ++i) {
    if (kernel[i]) offsets.push_back(table[i]);
  }
  receiver.lend_per_packet(offsets);
  if (unaligned) {
    EXPECT_EQ(receiver.first_lent(offsets.size()), kernel_fill_addresses(frame_size));
  }
  EXPECT_EQ(run_traffic(sender, {&receiver}), "");
  EXPECT_EQ(ends.a().statistics().tx_invalid_descs, invalid);
  EXPECT_EQ(ends.a().tx().outstanding(), 0U);
  sender.finish();
  EXPECT_EQ(sender.error(), "");
  ::testing::Test::RecordProperty("invalid_descriptors_completed",
                                  static_cast<int>(sender.completed_invalid()));
  // Each invalid descriptor comes back once, by completion or taken back by the application; how
  // many by completion is the backend's, pinned. The Loopback models a zero-copy driver here: an
  // invalid descriptor is never completed. Veth's copy mode completes every one, in every mode.
  EXPECT_EQ(sender.completed_invalid() + sender.reclaimed(), invalid);
  if (mode.backend == Backend::loopback) {
    EXPECT_EQ(sender.completed_invalid(), 0U);
  } else {
    EXPECT_EQ(sender.completed_invalid(), invalid)
        << measured("copy mode completes every invalid descriptor of this table");
  }
  // Only 4001-byte chunks give odd addresses (4001, 3 * 4001 + 4064 and 5 * 4001 among the valid
  // ones): veth's copy mode completes each one lower; the Loopback completes them as sent.
  EXPECT_EQ(odd_valid, frame_size == 4001 ? 3U : 0U);
  if (mode.backend == Backend::loopback) {
    EXPECT_EQ(sender.odd_completed_even(), 0U);
  } else {
    EXPECT_EQ(sender.odd_completed_even(), odd_valid)
        << measured("copy mode completes each odd address one lower");
  }
  ::testing::Test::RecordProperty("odd_addresses_completed_one_lower",
                                  static_cast<int>(sender.odd_completed_even()));
}

namespace {

TEST_P(Conformance, ALIGNED_INV_DESC) {
  AFXDP_REQUIRE_BACKEND();
  run_invalid_desc(GetParam(), 4096, false);
}

TEST_P(Conformance, ALIGNED_INV_DESC_2K_FRAME_SIZE) {
  AFXDP_REQUIRE_BACKEND();
  run_invalid_desc(GetParam(), 2048, false);
}

}  // namespace
}  // namespace afxdp::conformance
