// Echo (l2fwd in the library's words): a per-packet handler, given as a template parameter so
// that it inlines, returns a verdict; here it swaps the MAC addresses and sends the frame back
// out of the port it came in on. The peer checks that every frame comes back with MACs swapped.
#include <afxdp/socket.hpp>
#include <afxdp/xsk_program.hpp>
#include <lab.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>

enum class Verdict { drop, transmit, pass_on };  // pass_on: out of another socket (l2fwd)

Verdict swap_macs(std::uint8_t* frame, std::uint32_t length) {
  if (length < 14) return Verdict::drop;
  std::swap_ranges(frame, frame + 6, frame + 6);
  return Verdict::transmit;
}

// One batch. Frames go to a tx ring or back to the fill ring (dropped, or no room on tx); sent
// ones return on the completion ring. The fill ring has twice as many slots as the Umem has
// frames, so it has room for every frame we hold even while the kernel is late moving its
// consumer index (it publishes rx entries before it releases the fill slots they came from).
template <Verdict (*Handler)(std::uint8_t*, std::uint32_t)>
void serve(afxdp::Socket& in, afxdp::Socket* next) {
  afxdp::FillRing& fill = in.fill();
  const std::uint64_t frame = in.umem().config().frame_size;
  const std::uint32_t done = in.completion().peek(64);
  fill.reserve(done);
  for (std::uint32_t i = 0; i < done; ++i) fill.at(i) = in.completion().at(i) / frame * frame;
  fill.submit(done);
  in.completion().release(done);

  const std::uint32_t n = in.rx().peek(64);
  if (n == 0 && fill.needs_wakeup()) in.wake_rx();
  std::uint32_t back = 0, on = 0, dropped = 0;
  for (std::uint32_t i = 0; i < n; ++i) {
    const xdp_desc d = in.rx().at(i);
    const Verdict v = Handler(reinterpret_cast<std::uint8_t*>(in.umem().data(d.addr)), d.len);
    // In order of likelihood for this handler: it sends almost everything back.
    if (v == Verdict::transmit && in.tx().reserve(1) == 1) in.tx().at(back++) = d;
    else if (v == Verdict::pass_on && next && next->tx().reserve(1) == 1) next->tx().at(on++) = d;
    else if (fill.reserve(1) == 1) fill.at(dropped++) = d.addr / frame * frame;
  }
  in.rx().release(n);
  fill.submit(dropped);
  in.tx().submit(back);
  if (back != 0 && in.tx().needs_wakeup()) in.wake_tx();  // copy mode sends in sendto
  if (next) next->tx().submit(on);
  if (on != 0 && next->tx().needs_wakeup()) next->wake_tx();
}

int main() try {
  if (auto missing = afxdp::lab::missing_privilege(); !missing.empty()) {
    std::printf("echo: skipped: needs %s\n", missing.c_str());
    return 77;  // ctest's SKIP_RETURN_CODE
  }
  afxdp::lab::enter_private_network();
  afxdp::lab::VethPair veth(afxdp::lab::unique_prefix());
  afxdp::Umem umem({.frame_count = 2048, .fill_size = 4096});
  afxdp::Socket socket(umem, {.interface = veth.b(), .mode = afxdp::BindMode::native_copy});
  afxdp::XskProgram program({.interface = veth.b()});
  program.insert(0, socket.fd());
  afxdp::FillRing& fill = socket.fill();
  for (std::uint32_t i = 0, n = fill.reserve(2048); i < n; ++i) fill.at(i) = i * 4096ULL;
  fill.submit(2048);

  afxdp::lab::PacketSocket peer(veth.a());
  const auto a = afxdp::lab::mac_address(veth.a()), b = afxdp::lab::mac_address(veth.b());
  const std::uint32_t count = 1000;
  std::uint32_t sent = 0, echoed = 0;
  std::vector<std::uint8_t> got;
  for (auto end = std::chrono::steady_clock::now() + std::chrono::seconds(10);
       echoed < count && std::chrono::steady_clock::now() < end;) {
    if (sent < count && sent - echoed < 32) {
      const auto f = afxdp::lab::test_frame(sent, 100, b, a);
      if (peer.send(f.data(), f.size())) ++sent;
    }
    serve<swap_macs>(socket, nullptr);
    std::uint32_t seq = 0;  // back to a, from b: the handler's swap, payload untouched
    if (peer.receive(got, 0) && afxdp::lab::check_test_frame(got.data(), got.size(), seq) &&
        std::equal(a.begin(), a.end(), got.begin()) && std::equal(b.begin(), b.end(), got.begin() + 6)) {
      ++echoed;
    }
  }
  std::printf("echo: sent %u frames into %s, %u came back with MACs swapped\n", sent,
              veth.a().c_str(), echoed);
  return echoed == count ? 0 : 1;
} catch (const std::exception& e) {
  std::fprintf(stderr, "echo: %s\n", e.what());
  return 1;
}
