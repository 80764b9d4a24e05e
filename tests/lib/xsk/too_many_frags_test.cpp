// The kernel selftests' TOO_MANY_FRAGS and ALIGNED/UNALIGNED_INV_DESC_MULTI_BUFF on the raw layer,
// against this kernel: a tx chain longer than MAX_SKB_FRAGS + 1, or with an invalid descriptor
// inside, is not sent, and the packets around it are. What the kernel counts is recorded as
// observed (the numbers go to docs/conformance.md). TxBatch::send_packet refuses to build such
// chains at all.
#include "hugepages.hpp"
#include "jumbo.hpp"
#include "system_test.hpp"

#include <afxdp/detail/uapi.hpp>
#include <afxdp/socket.hpp>
#include <afxdp/umem.hpp>
#include <lab.hpp>

#include <chrono>
#include <cstring>
#include <thread>

namespace {

using namespace std::chrono_literals;

constexpr std::uint32_t frame = 4096;

struct Sender {
  // `unaligned`: XDP_UMEM_UNALIGNED_CHUNK_FLAG, the area on hugepages.
  explicit Sender(const std::string& interface, bool unaligned = false)
      : umem({.frame_count = 256,
              .frame_size = frame,
              .unaligned_chunks = unaligned,
              .hugepages = unaligned}),
        socket(umem, {.interface = interface,
                      .mode = afxdp::BindMode::skb,
                      .multi_buffer = true,
                      .rx_size = 0}) {}
  // A chain of `descs`: frame i of the UMEM holds its bytes (from `offset` into it); `bad` (if
  // any) is made invalid.
  void queue_chain(std::uint32_t first_frame, const std::vector<std::uint8_t>& packet,
                   std::uint32_t per_desc, int bad = -1, std::uint32_t offset = 0) {
    const std::uint32_t descs =
        static_cast<std::uint32_t>((packet.size() + per_desc - 1) / per_desc);
    ASSERT_EQ(socket.tx().reserve(descs), descs);
    for (std::uint32_t i = 0; i < descs; ++i) {
      const std::uint64_t address = std::uint64_t{first_frame + i} * frame + offset;
      const std::size_t at = std::size_t{i} * per_desc;
      const auto len =
          static_cast<std::uint32_t>(std::min<std::size_t>(per_desc, packet.size() - at));
      std::memcpy(umem.area().data() + address, packet.data() + at, len);
      socket.tx().at(i) = xdp_desc{static_cast<int>(i) == bad ? std::uint64_t{1} << 40 : address,
                                   len, i + 1 < descs ? afxdp::uapi::xdp_pkt_contd : 0U};
    }
    socket.tx().submit(descs);
  }
  void kick() {
    for (int i = 0; i < 10; ++i) socket.wake_tx();
  }
  // Addresses the kernel completed (all of them: nothing else was sent).
  std::uint32_t completed() {
    const std::uint32_t n = socket.completion().peek(1024);
    socket.completion().release(n);
    return n;
  }
  afxdp::Umem umem;
  afxdp::Socket socket;
};

// What the peer received of our test frames: their sequence numbers.
std::vector<std::uint32_t> received(afxdp::lab::PacketSocket& peer) {
  std::vector<std::uint32_t> sequences;
  std::vector<std::uint8_t> buffer;
  // NOLINTNEXTLINE(bugprone-infinite-loop): the condition calls receive() again on every turn
  while (const std::size_t n = peer.receive(buffer, 300)) {
    std::uint32_t sequence = 0;
    if (afxdp::lab::check_test_frame(buffer.data(), n, sequence)) sequences.push_back(sequence);
  }
  return sequences;
}

TEST(FragsConformance, TooManyFragsIsDroppedAndCounted) {
  AFXDP_REQUIRE_SYSTEM();
  afxdp::lab::VethPair veth = afxdp::test::jumbo_veth();
  Sender sender(veth.a());
  afxdp::lab::PacketSocket peer(veth.b());
  const auto dst = afxdp::mac_address(veth.b());
  const auto src = afxdp::mac_address(veth.a());
  // A good chain, one of 19 descriptors (100 bytes each), another good chain.
  sender.queue_chain(0, afxdp::lab::test_frame(1, 9000, dst, src), frame);
  sender.queue_chain(8, afxdp::lab::test_frame(2, 1900, dst, src), 100);
  sender.queue_chain(40, afxdp::lab::test_frame(3, 5000, dst, src), frame);
  sender.kick();
  const auto got = received(peer);
  EXPECT_EQ(got, (std::vector<std::uint32_t>{1, 3}));
  const afxdp::XdpStatistics s = sender.socket.statistics();
  // Linux 6.18: every descriptor of the over-long chain counted invalid; the good chains'
  // descriptors (3 + 2) completed.
  EXPECT_EQ(s.tx_invalid_descs, 19U);
  const std::uint32_t completions = sender.completed();
  std::printf("TOO_MANY_FRAGS: peer got %zu packets, tx_invalid_descs %llu, completions %u\n",
              got.size(), static_cast<unsigned long long>(s.tx_invalid_descs), completions);
  EXPECT_GE(completions, 5U);
}

TEST(FragsConformance, AnInvalidDescriptorInsideAChainDropsThatPacketOnly) {
  AFXDP_REQUIRE_SYSTEM();
  afxdp::lab::VethPair veth = afxdp::test::jumbo_veth();
  Sender sender(veth.a());
  afxdp::lab::PacketSocket peer(veth.b());
  const auto dst = afxdp::mac_address(veth.b());
  const auto src = afxdp::mac_address(veth.a());
  sender.queue_chain(0, afxdp::lab::test_frame(1, 9000, dst, src), frame);
  sender.queue_chain(8, afxdp::lab::test_frame(2, 9000, dst, src), frame, 1);  // middle one bad
  sender.queue_chain(16, afxdp::lab::test_frame(3, 9000, dst, src), frame);
  sender.kick();
  const auto got = received(peer);
  EXPECT_EQ(got, (std::vector<std::uint32_t>{1, 3}));
  const afxdp::XdpStatistics s = sender.socket.statistics();
  EXPECT_EQ(s.tx_invalid_descs, 3U);  // the whole chain, not only its bad descriptor
  const std::uint32_t completions = sender.completed();
  std::printf(
      "ALIGNED_INV_DESC_MULTI_BUFF: peer got %zu packets, tx_invalid_descs %llu, "
      "completions %u\n",
      got.size(), static_cast<unsigned long long>(s.tx_invalid_descs), completions);
  EXPECT_GE(completions, 6U);
}

// UNALIGNED_INV_DESC_MULTI_BUFF's point in unaligned mode: the same three chains, the first two
// with every descriptor 100 bytes into its frame and so crossing into the next one (valid only
// with unaligned chunks), the middle chain's second descriptor outside the UMEM.
TEST(FragsConformance, UnalignedChainsCrossFramesAndAnInvalidOneDropsThatPacketOnly) {
  AFXDP_REQUIRE_SYSTEM();
  afxdp::test::HugepageReservation hugepages(2);  // 256 frames of 4096 bytes: 1 MiB
  if (!hugepages.failure().empty()) GTEST_SKIP() << hugepages.failure();
  afxdp::lab::VethPair veth = afxdp::test::jumbo_veth();
  Sender sender(veth.a(), true);
  afxdp::lab::PacketSocket peer(veth.b());
  const auto dst = afxdp::mac_address(veth.b());
  const auto src = afxdp::mac_address(veth.a());
  sender.queue_chain(0, afxdp::lab::test_frame(1, 9000, dst, src), frame, -1, 100);
  sender.queue_chain(8, afxdp::lab::test_frame(2, 9000, dst, src), frame, 1, 100);
  sender.queue_chain(16, afxdp::lab::test_frame(3, 9000, dst, src), frame);
  sender.kick();
  const auto got = received(peer);
  EXPECT_EQ(got, (std::vector<std::uint32_t>{1, 3}));
  EXPECT_EQ(sender.socket.statistics().tx_invalid_descs, 3U);
  EXPECT_GE(sender.completed(), 6U);
}

}  // namespace
