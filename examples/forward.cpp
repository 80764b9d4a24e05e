// forward: two interfaces on one UMEM, every frame from one sent out of the other, both ways,
// without copying it.
#include "private_network.hpp"  // the set-up: two veth pairs of their own and a peer that checks

#include <afxdp/port.hpp>
#include <afxdp/run.hpp>

#include <array>
#include <cstdio>

using namespace std::chrono_literals;

int main() try {
  example::Network net("forward", {.pairs = 2});

  auto port = afxdp::Port::open_pair(net.interface(0), net.interface(1));
  afxdp::Queue& a = port.queues()[0];  // queues(): the first interface's, then the second's
  afxdp::Queue& b = port.queues()[1];
  auto peer = example::forward_peer(net, 1000);  // 1000 frames each way, checked on arrival

  const auto pass = [](afxdp::Frame&) { return afxdp::Verdict::send; };
  const std::array<afxdp::Queue*, 2> both{&a, &b};
  const auto signals = afxdp::stop_on_signals();
  while (!signals.requested() && !peer.done()) {
    // One thread drives both queues; frames sent out of b come back to a once b completes them.
    if (a.forward(b, pass) + b.forward(a, pass) == 0) afxdp::wait_any(both, 100ms);
  }

  for (const afxdp::Queue* q : both) {
    std::printf("forward: %s received %llu frames, forwarded %llu\n", q->name().c_str(),
                static_cast<unsigned long long>(q->stats().received),
                static_cast<unsigned long long>(q->stats().forwarded));
  }
  peer.report("forward");
  return peer.passed() ? 0 : 1;
} catch (const std::exception& e) {
  std::fprintf(stderr, "forward: %s\n", e.what());
  return 1;
}
