// One socket and one thread per rx queue, all sockets sharing one UMEM (each queue lends its own
// half of the frames on its own fill ring). On a 2-queue veth pair, frames sent from CPU n land
// on rx queue n mod 2, so senders pinned to CPUs 0 and 1 feed both queues. Success: both queues
// received, and together exactly what was sent.
#include <afxdp/run.hpp>
#include <afxdp/xsk/interface.hpp>
#include <afxdp/xsk/privilege.hpp>
#include <afxdp/xsk/socket.hpp>
#include <afxdp/xsk/xsk_program.hpp>
#include <lab.hpp>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <linux/if_packet.h>
#include <poll.h>
#include <sys/socket.h>
#include <thread>

constexpr std::uint32_t queues = 2, per_sender = 1000, frames_per_queue = 2048;
using Counter = std::atomic<std::uint32_t>;

// Queue q's thread: it owns the socket's rings from its start on.
void count_frames(afxdp::Socket& s, Counter& counted, const std::atomic<bool>& stop) {
  afxdp::Umem& umem = s.umem();
  while (!stop.load(std::memory_order_relaxed)) {
    std::uint32_t n = s.rx().peek(64);
    if (n == 0) {
      s.poll(POLLIN, 10);  // sleeps while idle; wakes the kernel for the fill ring
      continue;
    }
    // Take off rx only what fits back on the fill ring (see minimal_rx.cpp); the rest waits.
    if (const std::uint32_t room = s.fill().free_slots(n); room < n) {
      s.rx().cancel(n - room);
      n = room;
    }
    n = s.fill().reserve(n);  // all n: they fit
    std::uint32_t ours = 0, refill = 0, sequence = 0;
    for (std::uint32_t i = 0; i < n; ++i) {
      const xdp_desc& d = s.rx().at(i);
      if (!umem.contains(umem.resolve(d.addr), d.len)) continue;  // never read, never lent again
      const std::span<std::byte> bytes = umem.packet(d);
      const auto* data = reinterpret_cast<const std::uint8_t*>(bytes.data());
      if (afxdp::lab::check_test_frame(data, bytes.size(), sequence)) ++ours;  // not IPv6 chatter
      s.fill().at(refill++) = umem.chunk_of(d.addr);
    }
    s.fill().cancel(n - refill);
    s.fill().submit(refill);
    s.rx().release(n);
    counted += ours;
  }
}

// A sender pinned to `cpu`. Past the qdisc (PACKET_QDISC_BYPASS) a packet socket's frame takes
// tx queue cpu mod queues, and veth hands it to its peer's rx queue of the same number.
void send_from(unsigned cpu, const afxdp::lab::VethPair& veth, Counter& sent) {
  afxdp::lab::PacketSocket peer(veth.a());
  const int on = 1;
  setsockopt(peer.fd(), SOL_PACKET, PACKET_QDISC_BYPASS, &on, sizeof on);
  const auto dst = afxdp::mac_address(veth.b()), src = afxdp::mac_address(veth.a());
  if (!afxdp::pin_to_cpu(cpu)) return;  // then `sent` falls short and main says so
  for (std::uint32_t i = 0; i < per_sender; ++i) {
    const auto f = afxdp::lab::test_frame(cpu * per_sender + i, 64, dst, src);
    while (!peer.send(f.data(), f.size())) std::this_thread::yield();  // ring full: again
    ++sent;
    if (i % 16 == 15) std::this_thread::sleep_for(std::chrono::microseconds(100));  // pace
  }
}

int main() try {
  if (auto missing = afxdp::missing_privilege(); !missing.empty()) {
    std::printf("multi_queue: skipped: needs %s\n", missing.c_str());
    return 77;  // ctest's SKIP_RETURN_CODE
  }
  afxdp::lab::enter_private_network();
  afxdp::lab::VethPair veth(afxdp::lab::unique_prefix(), queues);
  // 2048-byte frames: any size the kernel takes works, the addresses below follow it.
  afxdp::Umem umem({.frame_count = queues * frames_per_queue, .frame_size = 2048});
  afxdp::XskProgram program({.interface = veth.b()});
  const std::uint64_t frame_size = umem.config().frame_size;
  std::vector<afxdp::Socket> sockets;
  for (std::uint32_t q = 0; q < queues; ++q) {  // queue q lends frames [q * 2048, (q + 1) * 2048)
    auto& s = sockets.emplace_back(
        umem, afxdp::SocketConfig{
                  .interface = veth.b(), .queue = q, .mode = afxdp::BindMode::native_copy});
    const std::uint32_t n = s.fill().reserve(s.fill().size() / 2);
    for (std::uint32_t i = 0; i < n; ++i) s.fill().at(i) = (q * frames_per_queue + i) * frame_size;
    s.fill().submit(n);
    program.insert(q, s.fd());
  }
  std::atomic<bool> stop{false};
  Counter counted[queues] = {}, sent{0};
  std::vector<std::jthread> receivers, senders;
  for (std::uint32_t q = 0; q < queues; ++q) {
    receivers.emplace_back(count_frames, std::ref(sockets[q]), std::ref(counted[q]),
                           std::cref(stop));
  }
  for (unsigned cpu = 0; cpu < queues; ++cpu) {
    senders.emplace_back(send_from, cpu, std::cref(veth), std::ref(sent));
  }
  senders.clear();  // joins
  const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (counted[0] + counted[1] < sent && std::chrono::steady_clock::now() < end) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(50));  // any extra frame would show too
  stop = true;
  receivers.clear();
  std::printf("multi_queue: sent %u frames from CPUs 0 and 1; queue 0 received %u, queue 1 %u\n",
              sent.load(), counted[0].load(), counted[1].load());
  const bool ok = sent == queues * per_sender && counted[0] + counted[1] == sent;
  return ok && counted[0] > 0 && counted[1] > 0 ? 0 : 1;
} catch (const std::exception& e) {
  std::fprintf(stderr, "multi_queue: %s\n", e.what());
  return 1;
}
