// What the examples need that a real program does not: a private network to run on and a peer
// on its far end that sends test frames and checks what comes back. A real program opens its
// own interface ("eth1") and its traffic comes from the wire; none of this file is needed there.
//
// example::Network enters a network namespace of the process's own (the kernel deletes it, and
// the veth pairs in it, when the process exits) and makes veth pairs there: the example opens
// interface(i) with afxdp::Port, the peer works on the other end, peer(i). Without the privilege
// for AF_XDP it prints why and exits 77, which ctest counts as skipped.
#pragma once

#include <afxdp/run.hpp>
#include <afxdp/xsk/interface.hpp>
#include <afxdp/xsk/privilege.hpp>
#include <lab.hpp>

#include <linux/if_packet.h>
#include <sys/socket.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <fstream>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace example {

using Clock = std::chrono::steady_clock;
using Mac = afxdp::MacAddress;
inline constexpr auto peer_timeout = std::chrono::seconds(10);

struct NetworkConfig {
  std::uint32_t pairs = 1;   // veth pairs
  std::uint32_t queues = 1;  // rx and tx queues of each veth
};

class Network {
 public:
  Network(const char* program, const NetworkConfig& config) {
    if (const std::string missing = afxdp::missing_privilege(); !missing.empty()) {
      std::printf("%s: skipped: needs %s\n", program, missing.c_str());
      std::exit(77);  // ctest's SKIP_RETURN_CODE
    }
    afxdp::lab::enter_private_network();
    // No IPv6 chatter (router solicitations, MLD) on the new links: every frame is the peer's.
    if (std::ofstream off("/proc/sys/net/ipv6/conf/default/disable_ipv6"); off) off << "1\n";
    for (std::uint32_t i = 0; i < config.pairs; ++i) {
      pairs_.emplace_back(afxdp::lab::unique_prefix(), config.queues);
    }
  }
  explicit Network(const char* program) : Network(program, NetworkConfig{}) {}

  [[nodiscard]] const std::string& interface(std::size_t i = 0) const { return pairs_.at(i).b(); }
  [[nodiscard]] const std::string& peer(std::size_t i = 0) const { return pairs_.at(i).a(); }

 private:
  std::vector<afxdp::lab::VethPair> pairs_;
};

// Sends `per_cpu` test frames from each of the first `queues` usable CPUs into peer(0): a frame
// sent from CPU n lands on rx queue n mod queues of interface(0), so every queue gets some.
class Sender {
 public:
  Sender(const Network& net, std::uint32_t queues, std::uint32_t per_cpu)
      : deadline_(Clock::now() + peer_timeout) {
    const std::vector<unsigned> cpus = afxdp::usable_cpus();
    senders_ = static_cast<std::uint32_t>(std::min<std::size_t>(queues, cpus.size()));
    for (std::uint32_t i = 0; i < senders_; ++i) {
      threads_.emplace_back([this, &net, cpu = cpus[i], per_cpu, i] {
        try {
          send_from(net, cpu, i * per_cpu, per_cpu);
        } catch (const std::exception& e) {
          std::fprintf(stderr, "peer: %s\n", e.what());  // then sent() falls short
        }
        ++finished_;
      });
    }
  }
  ~Sender() {
    for (std::thread& t : threads_) t.join();
  }
  [[nodiscard]] std::uint32_t sent() const { return sent_.load(); }
  // Every frame sent, and `received` of them seen (or the time is up).
  [[nodiscard]] bool done(std::uint64_t received) const {
    if (Clock::now() > deadline_) return true;
    return finished_.load() == senders_ && received >= sent_.load();
  }
  // Every frame sent was received, and each sending CPU fed a queue of its own.
  bool passed(afxdp::Port& port, std::uint64_t received, const char* program) const {
    bool every_queue = true;
    for (const afxdp::Queue& q : port.queues()) {
      const std::uint64_t n = q.stats().received;
      std::printf("%s: %s received %llu frames\n", program, q.name().c_str(),
                  static_cast<unsigned long long>(n));
      every_queue = every_queue && n > 0;
    }
    std::printf("%s: the peer sent %u frames from %u CPUs\n", program, sent_.load(), senders_);
    return received == sent_.load() && (every_queue || senders_ < 2);
  }

 private:
  void send_from(const Network& net, unsigned cpu, std::uint32_t first, std::uint32_t count) {
    afxdp::lab::PacketSocket socket(net.peer());
    const int on = 1;  // past the qdisc, the frame takes tx queue cpu mod queues
    ::setsockopt(socket.fd(), SOL_PACKET, PACKET_QDISC_BYPASS, &on, sizeof on);
    const Mac dst = afxdp::mac_address(net.interface());
    const Mac src = afxdp::mac_address(net.peer());
    if (afxdp::pin_to_cpu(cpu)) {
      for (std::uint32_t i = 0; i < count && Clock::now() < deadline_; ++i) {
        const auto frame = afxdp::lab::test_frame(first + i, 64, dst, src);
        while (!socket.send(frame.data(), frame.size()) && Clock::now() < deadline_) {
          std::this_thread::yield();  // the socket's buffer is full: again
        }
        ++sent_;
        if (i % 16 == 15) std::this_thread::sleep_for(std::chrono::microseconds(100));  // pace
      }
    }
  }

  Clock::time_point deadline_;
  std::uint32_t senders_ = 0;
  std::atomic<std::uint32_t> sent_{0}, finished_{0};
  std::vector<std::thread> threads_;
};

// A service's operator: sends `command` as one datagram on `fd` once `ready()` is true (checked
// every 10 ms), or at once when destroyed first (the loop failed: nothing to wait for).
class Operator {
 public:
  template <class Ready>
  Operator(int fd, std::string command, Ready ready)
      : thread_([fd, command = std::move(command), ready](const std::stop_token& gone) {
          while (!gone.stop_requested() && !ready()) {
            std::this_thread::sleep_for(std::chrono::milliseconds(10));
          }
          ::send(fd, command.data(), command.size(), 0);
        }) {}

 private:
  std::jthread thread_;
};

// A stream of test frames into one end of the network and what must come out of another, with
// at most `window` frames under way: a frame lost stalls it, and the time runs out.
struct Flow {
  // Peer-side interfaces: the frames are sent into one and read on the other.
  std::string into, out_of;
  Mac dst, src;                // the frames as sent
  Mac expect_dst, expect_src;  // the frames as they must arrive
  std::uint32_t first = 0;     // the sequence numbers this flow uses: first, first + 1, ...
};

// Runs the flows on a thread of its own until each has had `count` frames through, intact, or
// the time is up.
class Peer {
 public:
  Peer(std::vector<Flow> flows, std::uint32_t count, std::uint32_t window = 64)
      : flows_(std::move(flows)), count_(count), window_(window), thread_([this] {
          try {
            run();
          } catch (const std::exception& e) {
            std::fprintf(stderr, "peer: %s\n", e.what());
          }
          done_ = true;
        }) {}
  ~Peer() { thread_.join(); }
  [[nodiscard]] bool done() const { return done_.load(); }
  [[nodiscard]] bool passed() const { return done() && passed_; }
  // One line per flow: sent and arrived.
  void report(const char* program) const {
    if (!done()) return;  // still running (the example was stopped early)
    for (std::size_t i = 0; i < state_.size(); ++i) {
      std::printf("%s: peer sent %u frames into %s, %u came out of %s as expected\n", program,
                  state_[i].sent, flows_[i].into.c_str(), state_[i].arrived,
                  flows_[i].out_of.c_str());
    }
  }

 private:
  struct State {
    std::unique_ptr<afxdp::lab::PacketSocket> tx, rx;
    std::uint32_t sent = 0, arrived = 0;
  };

  void run() {
    for (const Flow& f : flows_) {
      state_.push_back({std::make_unique<afxdp::lab::PacketSocket>(f.into),
                        std::make_unique<afxdp::lab::PacketSocket>(f.out_of)});
    }
    const auto deadline = Clock::now() + peer_timeout;
    std::vector<std::uint8_t> got;
    bool all = false;
    while (!all && Clock::now() < deadline) {
      bool progress = false;
      all = true;
      for (std::size_t i = 0; i < flows_.size(); ++i) {
        const Flow& f = flows_[i];
        State& s = state_[i];
        if (s.sent < count_ && s.sent - s.arrived < window_) {
          const auto frame = afxdp::lab::test_frame(f.first + s.sent, 100, f.dst, f.src);
          if (s.tx->send(frame.data(), frame.size())) ++s.sent, progress = true;
        }
        while (s.rx->receive(got, 0) != 0) {
          progress = true;
          if (arrived_as_expected(f, got)) ++s.arrived;
        }
        all = all && s.arrived == count_;
      }
      if (!progress) std::this_thread::sleep_for(std::chrono::microseconds(50));
    }
    passed_ = all;
  }

  [[nodiscard]] bool arrived_as_expected(const Flow& f,
                                         const std::vector<std::uint8_t>& frame) const {
    std::uint32_t sequence = 0;
    return afxdp::lab::check_test_frame(frame.data(), frame.size(), sequence) &&
           sequence >= f.first && sequence < f.first + count_ &&
           std::equal(f.expect_dst.begin(), f.expect_dst.end(), frame.begin()) &&
           std::equal(f.expect_src.begin(), f.expect_src.end(), frame.begin() + 6);
  }

  std::vector<Flow> flows_;
  std::vector<State> state_;
  std::uint32_t count_;
  std::uint32_t window_;
  bool passed_ = false;
  std::atomic<bool> done_{false};
  std::thread thread_;  // last: starts once the rest is built
};

// The peer for echo: frames into peer(0), back out of it with the MAC addresses swapped.
inline Peer echo_peer(const Network& net, std::uint32_t count) {
  const Mac a = afxdp::mac_address(net.peer()), b = afxdp::mac_address(net.interface());
  return Peer({{net.peer(), net.peer(), b, a, a, b, 0}}, count);
}

// The peer for forward: frames into peer(0) come out of peer(1) unchanged, and the other way.
inline Peer forward_peer(const Network& net, std::uint32_t count) {
  const Mac a0 = afxdp::mac_address(net.peer(0)), b0 = afxdp::mac_address(net.interface(0));
  const Mac a1 = afxdp::mac_address(net.peer(1)), b1 = afxdp::mac_address(net.interface(1));
  return Peer({{net.peer(0), net.peer(1), b0, a0, b0, a0, 0},
               {net.peer(1), net.peer(0), b1, a1, b1, a1, count}},
              count);
}

}  // namespace example
