// The library's multi-buffer paths on a real veth pair (MTU 9000), skb and native mode:
// receive_packets hands over every frame whole and intact, serve_packets sends chains back out
// whole, and every UMEM frame is accounted for afterwards.
#include "jumbo.hpp"
#include "probes.hpp"
#include "system_test.hpp"
#include "tool_test.hpp"

#include <afxdp/port.hpp>
#include <afxdp/xsk/interface.hpp>
#include <lab.hpp>

#include <array>
#include <atomic>
#include <chrono>
#include <map>
#include <thread>

namespace {

using afxdp::AttachMode;
using afxdp::BindMode;
using afxdp::Packet;
using afxdp::test::jumbo_size;
using namespace std::chrono_literals;

struct Mode {
  const char* name;
  BindMode bind;
  AttachMode attach;
};

class FragsPort : public ::testing::TestWithParam<Mode> {
 protected:
  [[nodiscard]] afxdp::PortConfig config() const {
    return {.frames_per_queue = 2048,
            .bind = GetParam().bind,
            .attach = GetParam().attach,
            .multi_buffer = true};
  }
};

std::vector<std::uint8_t> joined(const Packet& p) {
  std::vector<std::uint8_t> out(p.size());
  p.copy_to(std::as_writable_bytes(std::span(out)));
  return out;
}

TEST_P(FragsPort, ReceivesJumboFramesWholeAndIntact) {
  AFXDP_REQUIRE_SYSTEM();
  AFXDP_REQUIRE_FACILITY(afxdp::test::multi_buffer());
  afxdp::test::quiet_ipv6();
  afxdp::lab::VethPair veth = afxdp::test::jumbo_veth();
  afxdp::Port port = afxdp::Port::open(veth.b(), config());
  afxdp::Queue& q = port.queues().front();
  afxdp::lab::PacketSocket peer(veth.a());
  const auto dst = afxdp::mac_address(veth.b());
  const auto src = afxdp::mac_address(veth.a());

  constexpr std::uint32_t count = 300;
  std::map<std::uint32_t, std::size_t> intact;  // sequence -> length
  std::uint32_t wrong = 0;
  std::uint32_t most_fragments = 0;
  const auto reader = [&](std::span<Packet> packets) {
    for (const Packet& p : packets) {
      const auto bytes = joined(p);
      std::uint32_t sequence = 0;
      if (!afxdp::lab::check_test_frame(bytes.data(), bytes.size(), sequence)) continue;  // chatter
      if (bytes != afxdp::lab::test_frame(sequence, jumbo_size(sequence), dst, src)) {
        ++wrong;
        continue;
      }
      intact[sequence] = bytes.size();
      most_fragments = std::max(most_fragments, p.fragment_count());
    }
  };
  for (std::uint32_t i = 0; i < count; ++i) {
    const auto frame = afxdp::lab::test_frame(i, jumbo_size(i), dst, src);
    ASSERT_TRUE(peer.send(frame.data(), frame.size())) << i;
    // Keep up with the sender so that no ring overflows: this checks content, not speed.
    while (q.receive_packets(reader) != 0) {
    }
  }
  const auto deadline = std::chrono::steady_clock::now() + 5s;
  while (intact.size() < count && std::chrono::steady_clock::now() < deadline) {
    if (q.receive_packets(reader) == 0) q.wait(10ms);
  }
  EXPECT_EQ(intact.size(), count);
  EXPECT_EQ(wrong, 0U);
  EXPECT_EQ(most_fragments, 3U);  // 9014 bytes in 3840-byte shares of 4096-byte frames
  EXPECT_EQ(q.stats().invalid_chains, 0U);
  EXPECT_EQ(q.stats().kernel.rx_dropped, 0U);
  EXPECT_EQ(q.account().total(), q.frames());
}

TEST_P(FragsPort, ServeSendsJumboFramesBackWholeAndIntact) {
  AFXDP_REQUIRE_SYSTEM();
  AFXDP_REQUIRE_FACILITY(afxdp::test::multi_buffer());
  afxdp::test::quiet_ipv6();
  afxdp::lab::VethPair veth = afxdp::test::jumbo_veth();
  afxdp::Port port = afxdp::Port::open(veth.b(), config());
  afxdp::Queue& q = port.queues().front();
  std::atomic<bool> stop{false};
  std::thread server([&] {
    while (!stop.load()) {
      if (q.serve_packets([](Packet&) { return afxdp::Verdict::send_back; }) == 0) q.wait(1ms);
    }
    q.drain(1s);
  });

  afxdp::lab::PacketSocket peer(veth.a());
  const auto dst = afxdp::mac_address(veth.b());
  const auto src = afxdp::mac_address(veth.a());
  constexpr std::uint32_t count = 200;
  std::uint32_t back = 0;
  std::uint32_t wrong = 0;
  std::vector<std::uint8_t> buffer;
  for (std::uint32_t i = 0; i < count; ++i) {
    const auto frame = afxdp::lab::test_frame(i, jumbo_size(i), dst, src);
    ASSERT_TRUE(peer.send(frame.data(), frame.size()));
    // One at a time: each comes back (as sent: the handler changes nothing) before the next.
    for (;;) {
      const std::size_t n = peer.receive(buffer, 2000);
      if (n == 0) break;
      std::uint32_t sequence = 0;
      if (!afxdp::lab::check_test_frame(buffer.data(), n, sequence)) continue;
      if (buffer == frame) {
        ++back;
      } else {
        ++wrong;
      }
      break;
    }
  }
  stop = true;
  server.join();
  EXPECT_EQ(back, count);
  EXPECT_EQ(wrong, 0U);
  EXPECT_EQ(q.stats().invalid_chains, 0U);
  EXPECT_EQ(q.stats().kernel.tx_invalid_descs, 0U);
  EXPECT_EQ(q.account().total(), q.frames());
  EXPECT_EQ(q.account().tx, 0U);
}

// A socket sharing the UMEM cannot pass XDP_USE_SG (the kernel refuses it beside
// XDP_SHARED_UMEM): it takes multi-buffer from the UMEM's first socket, and receives chains.
TEST_P(FragsPort, SharedUmemSocketsReceiveChains) {
  AFXDP_REQUIRE_SYSTEM();
  AFXDP_REQUIRE_FACILITY(afxdp::test::multi_buffer());
  afxdp::test::quiet_ipv6();
  afxdp::lab::VethPair veth(afxdp::lab::unique_prefix(), 2);
  for (const std::string& end : {veth.a(), veth.b()}) {
    afxdp::lab::run({"ip", "link", "set", "dev", end, "mtu", "9000"});
  }
  afxdp::PortConfig c = config();
  c.shared_umem = true;
  c.frames_per_queue = 1024;
  afxdp::Port port = afxdp::Port::open(veth.b(), c);
  ASSERT_EQ(port.queues().size(), 2U);
  const auto dst = afxdp::mac_address(veth.b());
  const auto src = afxdp::mac_address(veth.a());
  std::array<std::uint32_t, 2> intact{};
  std::uint32_t sequence_sent = 0;
  for (int s = 0; s < 16; ++s) {
    afxdp::lab::PacketSocket peer(veth.a());
    for (int i = 0; i < 3; ++i) {
      const auto frame =
          afxdp::lab::test_frame(sequence_sent++, afxdp::test::jumbo_frame, dst, src);
      ASSERT_TRUE(peer.send(frame.data(), frame.size()));
    }
  }
  const auto deadline = std::chrono::steady_clock::now() + 3s;
  while (intact[0] + intact[1] < sequence_sent && std::chrono::steady_clock::now() < deadline) {
    for (std::size_t k = 0; k < 2; ++k) {
      port.queues()[k].receive_packets([&](std::span<Packet> packets) {
        for (const Packet& p : packets) {
          const auto bytes = joined(p);
          std::uint32_t sequence = 0;
          if (afxdp::lab::check_test_frame(bytes.data(), bytes.size(), sequence) &&
              bytes == afxdp::lab::test_frame(sequence, afxdp::test::jumbo_frame, dst, src)) {
            ++intact[k];
          }
        }
      });
    }
  }
  EXPECT_EQ(intact[0] + intact[1], sequence_sent);
  // Which queue they land on is veth's choice (here: native mode queue 1, the sharing socket;
  // skb mode queue 0); a socket without multi-buffer would drop them (rx_dropped).
  for (afxdp::Queue& q : port.queues()) EXPECT_EQ(q.stats().kernel.rx_dropped, 0U) << q.name();
}

INSTANTIATE_TEST_SUITE_P(Modes, FragsPort,
                         ::testing::Values(Mode{"skb", BindMode::skb, AttachMode::skb},
                                           Mode{"native", BindMode::native_copy,
                                                AttachMode::native}),
                         [](const auto& param_info) { return std::string(param_info.param.name); });

}  // namespace
