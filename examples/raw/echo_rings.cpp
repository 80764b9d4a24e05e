// Echo on the rings themselves (examples/echo.cpp does the same on afxdp::Queue in a few lines): a
// per-packet handler, given as a template parameter so that it inlines, returns a verdict; here
// it swaps the MAC addresses and the frame goes back out of the queue it came in on. The peer
// checks that every frame comes back with MACs swapped.
#include <afxdp/xsk/interface.hpp>
#include <afxdp/xsk/privilege.hpp>
#include <afxdp/xsk/socket.hpp>
#include <afxdp/xsk/xsk_program.hpp>
#include <lab.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>

enum class Verdict { drop, transmit };

Verdict swap_macs(std::uint8_t* frame, std::uint32_t length) {
  if (length < 14) return Verdict::drop;
  std::swap_ranges(frame, frame + 6, frame + 6);
  return Verdict::transmit;
}

// One batch. Frames go to the tx ring or back to the fill ring (dropped); sent ones return on
// the completion ring and go back to the fill ring from there. A frame is taken off a ring only
// when the ring it goes to next has room for it: otherwise it waits where it is, for a later turn.
template <Verdict (*Handler)(std::uint8_t*, std::uint32_t)>
void serve(afxdp::Socket& s) {
  afxdp::Umem& umem = s.umem();
  afxdp::FillRing& fill = s.fill();
  afxdp::TxRing& tx = s.tx();
  std::uint32_t done = s.completion().peek(64);
  if (const std::uint32_t room = fill.free_slots(done); room < done) {
    s.completion().cancel(done - room);
    done = room;
  }
  done = fill.reserve(done);  // all of them: they fit
  std::uint32_t back = 0;
  for (std::uint32_t i = 0; i < done; ++i) {
    const std::uint64_t chunk = umem.chunk_of(s.completion().at(i));
    if (umem.contains(chunk, umem.config().frame_size)) fill.at(back++) = chunk;  // else: not ours
  }
  fill.cancel(done - back);
  fill.submit(back);
  s.completion().release(done);

  std::uint32_t n = s.rx().peek(64);
  if (n == 0 && fill.needs_wakeup()) s.wake_rx();
  // Each frame goes to tx or to fill, so take off rx only what both have room for.
  if (const std::uint32_t room = std::min(tx.free_slots(n), fill.free_slots(n)); room < n) {
    s.rx().cancel(n - room);
    n = room;
  }
  n = tx.reserve(n);  // all n: they fit on both
  n = fill.reserve(n);
  std::uint32_t sent = 0, dropped = 0;
  for (std::uint32_t i = 0; i < n; ++i) {
    const xdp_desc d = s.rx().at(i);
    if (!umem.contains(umem.resolve(d.addr), d.len)) continue;  // never read, never lent again
    const std::span<std::byte> bytes = umem.packet(d);
    // In order of likelihood for this handler: it sends almost everything back.
    if (Handler(reinterpret_cast<std::uint8_t*>(bytes.data()), d.len) == Verdict::transmit) {
      tx.at(sent++) = d;
    } else {
      fill.at(dropped++) = umem.chunk_of(d.addr);
    }
  }
  s.rx().release(n);
  tx.cancel(n - sent);
  tx.submit(sent);
  fill.cancel(n - dropped);
  fill.submit(dropped);
  // Copy mode sends only in sendto(), a budget at a time: kick while anything waits on tx, not
  // only after a batch that added to it, or the last frames of a burst are never sent.
  if (tx.outstanding() != 0 && tx.needs_wakeup()) s.wake_tx();
}

int main() try {
  if (auto missing = afxdp::missing_privilege(); !missing.empty()) {
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
  const std::uint32_t lent = fill.reserve(umem.config().frame_count);
  for (std::uint32_t i = 0; i < lent; ++i) fill.at(i) = std::uint64_t{i} * umem.config().frame_size;
  fill.submit(lent);

  afxdp::lab::PacketSocket peer(veth.a());
  const auto a = afxdp::mac_address(veth.a()), b = afxdp::mac_address(veth.b());
  const std::uint32_t count = 1000;
  std::uint32_t sent = 0, echoed = 0;
  std::vector<std::uint8_t> got;
  for (auto end = std::chrono::steady_clock::now() + std::chrono::seconds(10);
       echoed < count && std::chrono::steady_clock::now() < end;) {
    // Bursts of 100 frames, each once the last came back: more than one kick's tx budget (32 in
    // copy mode), so the end of a burst is sent only if the program kicks with rx empty.
    if (sent == echoed) {
      for (const std::uint32_t last = std::min(sent + 100, count); sent < last; ++sent) {
        const auto f = afxdp::lab::test_frame(sent, 100, b, a);
        if (!peer.send(f.data(), f.size())) break;
      }
    }
    serve<swap_macs>(socket);
    std::uint32_t seq = 0;  // back to a, from b: the handler's swap, payload untouched
    if (peer.receive(got, 0) && afxdp::lab::check_test_frame(got.data(), got.size(), seq) &&
        std::equal(a.begin(), a.end(), got.begin()) &&
        std::equal(b.begin(), b.end(), got.begin() + 6)) {
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
