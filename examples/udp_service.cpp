// udp_service: a UDP echo service on one port of an interface that keeps its address. Steering
// gives the sockets only UDP datagrams to that port; ARP, ping, SSH and every other port stay the
// kernel's. The answer is the datagram with its endpoints swapped and its checksums computed in
// full (the sender's kernel may have left a partial, offloaded one).
//
//   udp_service INTERFACE PORT     every rx queue, a thread each, until SIGINT or SIGTERM
#include <afxdp/net.hpp>
#include <afxdp/port.hpp>
#include <afxdp/run.hpp>
#include <afxdp/steering/match.hpp>
#include <afxdp/xsk/interface.hpp>

#include <cstdio>
#include <string>

using namespace std::chrono_literals;

int main(int argc, char** argv) try {
  if (argc != 3) {
    std::fprintf(stderr, "usage: udp_service INTERFACE PORT\n");
    return 2;
  }
  const std::string flow = std::string("udp dst port ") + argv[2];
  auto port = afxdp::Port::open(argv[1], {.steer = {afxdp::Match::parse(flow)}});
  const afxdp::InterfaceAddresses me = afxdp::interface_addresses(argv[1]);

  const auto answer = [&me](afxdp::Frame& frame) {
    afxdp::net::Headers h = afxdp::net::parse(frame.data());
    if (!h.udp || !afxdp::net::addressed_to(h, me) || !afxdp::net::may_answer(h)) {
      return afxdp::Verdict::drop;  // not to us (a subnet broadcast, say), or a loop
    }
    afxdp::net::swap_endpoints(h);
    afxdp::net::update_checksums(h);
    return afxdp::Verdict::send_back;
  };
  afxdp::run_per_queue(port, [&](afxdp::Queue& q, const std::stop_token& stop) {
    while (!stop.stop_requested()) {
      if (q.serve(answer) == 0) q.wait(100ms);
    }
  });
  std::printf("udp_service: '%s' took %llu frames from the kernel\n", flow.c_str(),
              static_cast<unsigned long long>(port.steering().list().at(0).hits));
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "udp_service: %s\n", e.what());
  return 1;
}
