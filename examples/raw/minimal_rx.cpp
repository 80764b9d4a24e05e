// Receive and count packets on one queue: the smallest complete use of the library.
// It makes its own private network (a namespace and a veth pair), sends test frames into one end
// with an ordinary packet socket, and receives them on the other end through AF_XDP.
#include <afxdp/xsk/interface.hpp>
#include <afxdp/xsk/privilege.hpp>
#include <afxdp/xsk/socket.hpp>
#include <afxdp/xsk/xsk_program.hpp>
#include <lab.hpp>

#include <charconv>
#include <chrono>
#include <cstdio>
#include <exception>
#include <stdexcept>
#include <string>
#include <string_view>

// The frames to wait for: a whole number from 1 to 1000000, all of the argument.
std::uint32_t parse_count(std::string_view text) {
  std::uint32_t n = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), n);
  if (error != std::errc{} || end != text.data() + text.size() || n == 0 || n > 1000000) {
    throw std::invalid_argument("count: '" + std::string(text) +
                                "' is not a whole number from 1 to 1000000");
  }
  return n;
}

// Lend the kernel frames to receive into: half a fill ring's worth, so that a batch taken off rx
// nearly always fits back on the fill ring at once (the kernel publishes rx entries before it
// moves the fill ring's consumer index, so a full fill ring can look full a moment longer). When
// it does not, the rest waits on rx: see receive_batch.
void lend_frames(afxdp::FillRing& fill, std::uint32_t frame_size) {
  const std::uint32_t lent = fill.reserve(fill.size() / 2);
  for (std::uint32_t i = 0; i < lent; ++i) fill.at(i) = std::uint64_t{i} * frame_size;
  fill.submit(lent);
}

// One turn on rx: take a batch off, count our intact test frames in it, lend the frames again.
// Returns how many frames were taken off rx.
std::uint32_t receive_batch(afxdp::Socket& socket, afxdp::Umem& umem, std::uint32_t& intact) {
  afxdp::FillRing& fill = socket.fill();
  afxdp::RxRing& rx = socket.rx();
  std::uint32_t n = rx.peek(64);
  if (n == 0) {
    if (fill.needs_wakeup()) socket.wake_rx();
    return 0;
  }
  // Take off rx only what fits back on the fill ring: the kernel publishes rx entries before
  // it moves the fill consumer, so room may lag. What stays on rx is read next turn.
  if (const std::uint32_t room = fill.free_slots(n); room < n) {
    rx.cancel(n - room);
    n = room;
  }
  n = fill.reserve(n);                       // all n: they fit
  const afxdp::UmemView view = umem.view();  // a local copy: its fields stay in registers
  afxdp::RingCursor<std::uint64_t> lend(fill.reserved());
  std::uint32_t refill = 0;
  for (const std::span<const xdp_desc> part : rx.peeked().parts()) {
    for (const xdp_desc& desc : part) {
      // Release trusts the kernel; a checked build (AFXDP_RING_CHECKS) checks the UMEM holds it.
      if (!view.trusted(desc)) continue;
      std::uint32_t sequence = 0;
      const std::span<std::byte> bytes = view.packet(desc);
      intact += afxdp::lab::check_test_frame(reinterpret_cast<const std::uint8_t*>(bytes.data()),
                                             bytes.size(), sequence);
      lend.put(view.chunk_of(desc.addr));
      ++refill;
    }
  }
  fill.cancel(n - refill);
  fill.submit(refill);
  rx.release(n);
  return n;
}

int main(int argc, char** argv) {
  try {
    if (argc > 2) throw std::invalid_argument("usage: minimal_rx [count]");
    const std::uint32_t count = argc > 1 ? parse_count(argv[1]) : 1000;
    if (auto missing = afxdp::missing_privilege(); !missing.empty()) {
      std::printf("minimal_rx: skipped: needs %s\n", missing.c_str());
      return 77;  // ctest's SKIP_RETURN_CODE
    }
    afxdp::lab::enter_private_network();
    afxdp::lab::VethPair veth(afxdp::lab::unique_prefix());

    afxdp::Umem umem({.frame_count = 4096});
    afxdp::Socket socket(umem,
                         {.interface = veth.b(), .queue = 0, .mode = afxdp::BindMode::native_copy});
    afxdp::XskProgram program({.interface = veth.b(), .mode = afxdp::AttachMode::native});
    program.insert(0, socket.fd());

    lend_frames(socket.fill(), umem.config().frame_size);

    afxdp::lab::PacketSocket peer(veth.a());
    const auto dst = afxdp::mac_address(veth.b());
    const auto src = afxdp::mac_address(veth.a());
    std::uint32_t sent = 0, received = 0, intact = 0;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (intact < count && std::chrono::steady_clock::now() < deadline) {
      if (sent < count && sent - intact < 256) {  // stay well inside the rings
        auto frame = afxdp::lab::test_frame(sent, 64, dst, src);
        if (peer.send(frame.data(), frame.size())) ++sent;
      }
      received += receive_batch(socket, umem, intact);
    }
    // `received` may exceed `sent`: the kernel's own IPv6 frames on a fresh link arrive too.
    std::printf(
        "sent %u test frames over %s; received %u frames on %s through AF_XDP, %u of them "
        "our test frames, intact\n",
        sent, veth.a().c_str(), received, socket.name().c_str(), intact);
    return intact == count ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "minimal_rx: %s\n", e.what());
    return 1;
  }
}
