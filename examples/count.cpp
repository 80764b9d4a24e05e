// count: every rx queue of an interface opened for AF_XDP, a thread each, counting frames.
#include "private_network.hpp"  // the set-up: a veth pair of its own and a peer that sends

#include <afxdp/port.hpp>
#include <afxdp/run.hpp>

#include <atomic>
#include <cstdio>

using namespace std::chrono_literals;

int main() try {
  example::Network net("count", {.queues = 2});

  auto port = afxdp::Port::open(net.interface());  // every rx queue, the redirect program
  example::Sender peer(net, 2, 1000);              // 1000 frames from each CPU, into the far end

  std::atomic<std::uint64_t> frames{0}, bytes{0};
  const auto count = [&](afxdp::Queue& q, const std::stop_token& stop) {  // on a thread of its own
    while (!stop.stop_requested()) {
      std::uint64_t size = 0;
      const std::uint32_t n = q.receive([&](afxdp::Frames batch) {
        for (const afxdp::Frame& frame : batch) size += frame.size();
      });
      if (n == 0) q.wait(100ms);  // idle: poll() until frames arrive
      frames += n, bytes += size;
    }
  };
  // A thread per queue, pinned to a CPU; every 100 ms: go on?
  afxdp::run_per_queue(port, count, {.on_tick = [&] { return !peer.done(frames); }});

  std::printf("count: %llu frames, %llu bytes\n", static_cast<unsigned long long>(frames.load()),
              static_cast<unsigned long long>(bytes.load()));
  return peer.passed(port, frames, "count") ? 0 : 1;
} catch (const std::exception& e) {
  std::fprintf(stderr, "count: %s\n", e.what());
  return 1;
}
