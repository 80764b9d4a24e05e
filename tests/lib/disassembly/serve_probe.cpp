// Functions for the disassembly check (check_no_indirect.sh): each calls the Queue's data path
// with a handler and is kept out of line under a plain name, so that its machine code can be
// read. Nothing here runs; the binary only has to link.
#include <afxdp/net.hpp>
#include <afxdp/queue.hpp>
#include <afxdp/testing/loopback.hpp>

#include <cstdint>

namespace {

struct SwapMacs {
  afxdp::Verdict operator()(afxdp::Frame& frame) const noexcept {
    auto* bytes = frame.data().data();
    if (frame.size() < 14) return afxdp::Verdict::drop;
    for (int i = 0; i < 6; ++i) std::swap(bytes[i], bytes[6 + i]);
    return afxdp::Verdict::send_back;
  }
};

}  // namespace

extern "C" {

__attribute__((noinline, used)) std::uint32_t afxdp_probe_serve(afxdp::Queue& q) {
  return q.serve(SwapMacs{});
}

__attribute__((noinline, used)) std::uint32_t afxdp_probe_forward(afxdp::Queue& in,
                                                                  afxdp::Queue& out) {
  return in.forward(out, [](afxdp::Frame& f) {
    return f.size() > 60 ? afxdp::Verdict::send : afxdp::Verdict::drop;
  });
}

__attribute__((noinline, used)) std::uint32_t afxdp_probe_receive(afxdp::Queue& q,
                                                                  std::uint64_t& bytes) {
  return q.receive([&](afxdp::Frames frames) {
    for (const afxdp::Frame& f : frames) bytes += f.size();
  });
}

// Multi-buffer: the packet paths, with the handler inlined the same way.
__attribute__((noinline, used)) std::uint32_t afxdp_probe_serve_packets(afxdp::Queue& q) {
  return q.serve_packets([](afxdp::Packet& p) { return SwapMacs{}(p[0]); });
}

__attribute__((noinline, used)) std::uint32_t afxdp_probe_receive_packets(afxdp::Queue& q,
                                                                          std::uint64_t& bytes) {
  return q.receive_packets([&](std::span<afxdp::Packet> packets) {
    for (const afxdp::Packet& p : packets) bytes += p.size();
  });
}

// A UDP echo through <afxdp/net.hpp>: parse's if-chains inlined into the handler.
__attribute__((noinline, used)) std::uint32_t afxdp_probe_serve_udp_echo(afxdp::Queue& q) {
  return q.serve([](afxdp::Frame& frame) {
    afxdp::net::Headers h = afxdp::net::parse(frame.data());
    if (!h.udp || h.udp.destination_port() != 7777) return afxdp::Verdict::drop;
    afxdp::net::swap_endpoints(h);
    afxdp::net::update_checksums(h);
    return afxdp::Verdict::send_back;
  });
}

// The check's own control: a handler called through a pointer must be caught.
using Handler = afxdp::Verdict (*)(afxdp::Frame&);
__attribute__((noinline, used)) std::uint32_t afxdp_probe_control(afxdp::Queue& q,
                                                                  Handler volatile* handler) {
  return q.serve([handler](afxdp::Frame& f) { return (*handler)(f); });
}

}  // extern "C"

int main(int argc, char**) {
  // Referenced so the linker keeps them; never called (argc is never 42 in the test).
  if (argc == 42) {
    afxdp::testing::Loopback lb({.queues = 2, .frames_per_queue = 16, .ring_size = 16});
    std::uint64_t bytes = 0;
    Handler h = nullptr;
    afxdp_probe_serve(lb.port().queues()[0]);
    afxdp_probe_forward(lb.port().queues()[0], lb.port().queues()[1]);
    afxdp_probe_receive(lb.port().queues()[0], bytes);
    afxdp_probe_control(lb.port().queues()[0], &h);
    afxdp_probe_serve_packets(lb.port().queues()[0]);
    afxdp_probe_receive_packets(lb.port().queues()[0], bytes);
    afxdp_probe_serve_udp_echo(lb.port().queues()[0]);
  }
  return 0;
}
