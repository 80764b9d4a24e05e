// echo: answer every frame on one queue with its MAC addresses swapped; poll() while idle.
#include "private_network.hpp"  // the set-up: a veth pair of its own and a peer that checks

#include <afxdp/net.hpp>
#include <afxdp/port.hpp>
#include <afxdp/run.hpp>

#include <cstdio>

using namespace std::chrono_literals;

int main() try {
  example::Network net("echo");

  auto port = afxdp::Port::open(net.interface());
  afxdp::Queue& q = port.queue(0);
  auto peer = example::echo_peer(net, 1000);  // sends 1000 frames, expects each back, swapped

  const auto swap_macs = [](afxdp::Frame& frame) {
    // Shorter than an Ethernet header: nothing to send back.
    return afxdp::net::swap_macs(frame.data()) ? afxdp::Verdict::send_back : afxdp::Verdict::drop;
  };
  const auto signals = afxdp::stop_on_signals();
  while (!signals.requested() && !peer.done()) {
    if (q.serve(swap_macs) == 0) q.wait(100ms);  // idle: kick what is unsent, then poll()
  }

  q.drain(1s);  // the last completions, so that `completed` counts every frame sent back
  const afxdp::QueueStats s = q.stats();
  std::printf("echo: %s received %llu frames, sent %llu back; %llu poll() calls\n",
              q.name().c_str(), static_cast<unsigned long long>(s.received),
              static_cast<unsigned long long>(s.completed),
              static_cast<unsigned long long>(s.polls));
  peer.report("echo");
  return peer.passed() ? 0 : 1;
} catch (const std::exception& e) {
  std::fprintf(stderr, "echo: %s\n", e.what());
  return 1;
}
