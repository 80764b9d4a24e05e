// Steering on a real veth pair: rules changed while frames flow. One flow (udp dst port 7777)
// has its rule throughout; another (8888) gets a rule added and removed again and again. Every
// frame of either flow must arrive exactly once, at the socket when a rule covers it and at the
// kernel (an AF_PACKET socket on the same interface sees what XDP passed) otherwise: none lost,
// none misdirected. In native mode, skb mode and with the frags program.
#include "system_test.hpp"
#include "test_frames.hpp"

#include <afxdp/interface.hpp>
#include <afxdp/port.hpp>
#include <lab.hpp>

#include <atomic>
#include <chrono>
#include <cstring>
#include <thread>
#include <vector>

namespace {

using afxdp::Match;
using afxdp::test::frame;
using afxdp::test::FrameSpec;

constexpr std::uint32_t frames_per_flow = 6000;
constexpr std::uint32_t magic = 0x5ee75ee7;

struct Flow {
  std::vector<std::uint8_t> at_socket = std::vector<std::uint8_t>(frames_per_flow);
  std::vector<std::uint8_t> at_kernel = std::vector<std::uint8_t>(frames_per_flow);
};

// (flow, sequence) of one of our frames: UDP to 7777 (0) or 8888 (1), the magic and the
// sequence at the end of the payload.
bool ours(const std::uint8_t* f, std::size_t size, std::size_t& flow, std::uint32_t& sequence) {
  if (size < 14 + 20 + 8 + 8 || f[12] != 0x08 || f[13] != 0x00 || f[23] != 17) return false;
  const unsigned port = (unsigned{f[36]} << 8U) | f[37];
  if (port != 7777 && port != 8888) return false;
  std::uint32_t m = 0;
  std::memcpy(&m, f + 42, 4);
  std::memcpy(&sequence, f + 46, 4);
  flow = port == 7777 ? 0 : 1;
  return m == magic && sequence < frames_per_flow;
}

std::vector<std::uint8_t> numbered(std::uint16_t port, std::uint32_t sequence,
                                   const afxdp::MacAddress& dst) {
  std::vector<std::uint8_t> f = frame(FrameSpec{.dport = port, .payload = 18});
  std::memcpy(f.data(), dst.data(), 6);
  std::memcpy(f.data() + 42, &magic, 4);
  std::memcpy(f.data() + 46, &sequence, 4);
  return f;
}

struct Variant {
  const char* name;
  afxdp::AttachMode attach;
  bool frags;
};

class SteerUnderTraffic : public testing::TestWithParam<Variant> {};

TEST_P(SteerUnderTraffic, NoFrameLostOrMisdirected) {
  AFXDP_REQUIRE_SYSTEM();
  afxdp::lab::VethPair veth(afxdp::lab::unique_prefix());
  const bool skb = GetParam().attach == afxdp::AttachMode::skb;
  afxdp::Port port =
      afxdp::Port::open(veth.b(), {.bind = skb ? afxdp::BindMode::skb : afxdp::BindMode::automatic,
                                   .attach = GetParam().attach,
                                   .multi_buffer = GetParam().frags,
                                   .steer = {Match::parse("udp dst port 7777")}});
  afxdp::lab::PacketSocket kernel(veth.b());
  afxdp::lab::PacketSocket sender(veth.a());
  const afxdp::MacAddress b_mac = afxdp::mac_address(veth.b());

  std::array<Flow, 2> flows;
  std::atomic<bool> done{false};
  std::thread socket_side([&] {
    afxdp::Queue& q = port.queues().front();
    const auto count_frame = [&](const afxdp::Frame& f) {
      std::size_t flow = 0;
      std::uint32_t seq = 0;
      const auto* bytes = reinterpret_cast<const std::uint8_t*>(f.data().data());
      if (ours(bytes, f.size(), flow, seq)) ++flows.at(flow).at_socket.at(seq);
    };
    const auto count = [&](std::span<afxdp::Frame> frames) {
      for (const afxdp::Frame& f : frames) count_frame(f);
    };
    // A multi-buffer queue hands out whole packets (here each one frame), never bare frames.
    const auto count_packets = [&](std::span<afxdp::Packet> packets) {
      for (const afxdp::Packet& p : packets) count_frame(p[0]);
    };
    const auto receive = [&] {
      return GetParam().frags ? q.receive_packets(count_packets) : q.receive(count);
    };
    while (!done.load()) {
      if (receive() == 0) q.wait(std::chrono::milliseconds(5));
    }
    while (receive() != 0) {
    }
  });
  std::thread kernel_side([&] {
    std::vector<std::uint8_t> buffer;
    while (!done.load()) {
      const std::size_t n = kernel.receive(buffer, 5);
      std::size_t flow = 0;
      std::uint32_t seq = 0;
      if (n != 0 && ours(buffer.data(), n, flow, seq)) ++flows.at(flow).at_kernel.at(seq);
    }
  });

  afxdp::Steering& steering = port.steering();
  afxdp::RuleId second = 0;  // 0: not there
  std::uint32_t changes = 0;
  for (std::uint32_t seq = 0; seq < frames_per_flow; ++seq) {
    for (const int p : {7777, 8888}) {
      const std::vector<std::uint8_t> f = numbered(static_cast<std::uint16_t>(p), seq, b_mac);
      while (!sender.send(f.data(), f.size())) std::this_thread::yield();
    }
    if (seq % 200 == 100 && seq + 200 < frames_per_flow) {  // a change every 200 frames
      if (second != 0) {
        steering.remove(second);
        second = 0;
      } else {
        second = steering.add(Match::parse("udp dst port 8888"));
      }
      ++changes;
    }
    if (seq == frames_per_flow - 50 && second != 0) {  // the last frames: no second rule
      steering.remove(second);
      second = 0;
    }
    if (seq % 16 == 0) std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  done = true;
  socket_side.join();
  kernel_side.join();

  std::uint32_t to_socket = 0;
  for (std::uint32_t seq = 0; seq < frames_per_flow; ++seq) {
    ASSERT_EQ(flows[0].at_socket[seq], 1) << "7777 #" << seq << " not at the socket once";
    ASSERT_EQ(flows[0].at_kernel[seq], 0) << "7777 #" << seq << " reached the kernel";
    ASSERT_EQ(flows[1].at_socket[seq] + flows[1].at_kernel[seq], 1)
        << "8888 #" << seq << ": " << int{flows[1].at_socket[seq]} << " at the socket, "
        << int{flows[1].at_kernel[seq]} << " at the kernel";
    to_socket += flows[1].at_socket[seq];
  }
  EXPECT_GT(changes, 20U);
  EXPECT_EQ(flows[1].at_kernel[0], 1);                    // before the first add
  EXPECT_EQ(flows[1].at_kernel[frames_per_flow - 1], 1);  // after the last remove
  EXPECT_GT(to_socket, frames_per_flow / 4);
  EXPECT_LT(to_socket, frames_per_flow * 3 / 4);
  const std::vector<afxdp::SteeringRule> rules = steering.list();
  ASSERT_EQ(rules.size(), 1U);
  EXPECT_EQ(rules.front().hits, frames_per_flow);
}

INSTANTIATE_TEST_SUITE_P(Modes, SteerUnderTraffic,
                         testing::Values(Variant{"native", afxdp::AttachMode::native, false},
                                         Variant{"skb", afxdp::AttachMode::skb, false},
                                         Variant{"native_frags", afxdp::AttachMode::native, true}),
                         [](const auto& param) { return std::string(param.param.name); });

}  // namespace
