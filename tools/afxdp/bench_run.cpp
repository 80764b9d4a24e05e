#include "bench_run.hpp"

#include <afxdp/interface.hpp>
#include <afxdp/xsk_program.hpp>
#include <lab.hpp>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstring>
#include <memory>
#include <sched.h>
#include <stdexcept>
#include <system_error>
#include <thread>

namespace afxdp::tool {
namespace {

using Clock = std::chrono::steady_clock;

// Set by SIGINT/SIGTERM (a lock-free atomic is safe to store from a signal handler) and by the
// main thread when -d runs out; every queue thread checks it once per loop turn.
std::atomic<bool> stop_requested{false};

void request_stop(int) { stop_requested.store(true, std::memory_order_relaxed); }

void catch_signals() {
  struct sigaction action{};
  action.sa_handler = request_stop;
  sigemptyset(&action.sa_mask);
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
}

std::vector<std::uint32_t> available_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  std::vector<std::uint32_t> cpus;
  if (sched_getaffinity(0, sizeof set, &set) != 0) return cpus;
  for (std::uint32_t cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
    if (CPU_ISSET(cpu, &set)) cpus.push_back(cpu);
  }
  return cpus;
}

// The checks that need the kernel but change nothing: they run before any setup.
void check_system(const BenchOptions& o, const std::vector<std::uint32_t>& cpus) {
  if (const std::string missing = lab::missing_privilege(); !missing.empty()) {
    throw std::runtime_error("needs " + missing);
  }
  const unsigned ifindex = interface_index(o.interface);
  const std::uint32_t queues = interface_rx_queues(o.interface);
  for (const std::uint32_t q : o.queues) {
    if (queues != 0 && q >= queues) {
      throw std::invalid_argument("queue (-q): " + o.interface + " has " + std::to_string(queues) +
                                  " rx queue(s), so queue " + std::to_string(q) +
                                  " does not exist");
    }
  }
  for (const std::uint32_t cpu : o.cpus) {
    if (std::find(cpus.begin(), cpus.end(), cpu) == cpus.end()) {
      throw std::invalid_argument("--cpu: CPU " + std::to_string(cpu) + " is not available");
    }
  }
  if (o.benchmark != Benchmark::txpush && !o.force) {
    if (const std::uint32_t other = attached_xdp_program(ifindex); other != 0) {
      throw std::system_error(EBUSY, std::generic_category(),
                              "another XDP program (id " + std::to_string(other) +
                                  ") is already attached to " + o.interface +
                                  "; detach it or replace it (--force)");
    }
  }
}

BindMode bind_mode(const BenchOptions& o) {
  if (o.skb) return BindMode::skb;
  if (o.copy) return BindMode::native_copy;
  if (o.zero_copy) return BindMode::native_zero_copy;
  return BindMode::automatic;
}

Sample sample(Worker& w, bool with_xdp, Clock::time_point start) {
  Sample s;
  s.app = w.counters->read();
  if (with_xdp) s.xdp = w.socket->statistics();
  s.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  return s;
}

}  // namespace

void fill_frames(Worker& w) {
  FillRing& fill = w.socket->fill();
  const std::uint32_t n = fill.reserve(std::min(w.frames, fill.size()));
  for (std::uint32_t i = 0; i < n; ++i) fill.at(i) = w.first_addr + std::uint64_t{i} * w.frame_size;
  fill.submit(n);
}

int run_benchmark(const BenchOptions& o, BenchmarkLoops loops) {
  const std::vector<std::uint32_t> cpus = available_cpus();
  check_system(o, cpus);
  stop_requested.store(false);
  catch_signals();

  const std::size_t queues = o.queues.size();
  const std::size_t umem_count = o.shared_umem ? 1 : queues;
  const std::uint32_t frames_per_umem =
      o.frames * static_cast<std::uint32_t>(o.shared_umem ? queues : 1);
  std::vector<std::unique_ptr<Umem>> umems;
  for (std::size_t i = 0; i < umem_count; ++i) {
    umems.push_back(std::make_unique<Umem>(UmemConfig{.frame_count = frames_per_umem,
                                                      .frame_size = o.frame_size,
                                                      .fill_size = o.ring_size,
                                                      .completion_size = o.ring_size,
                                                      .unaligned_chunks = o.unaligned,
                                                      .hugepages = o.unaligned}));
  }

  std::vector<std::unique_ptr<Socket>> sockets;
  for (std::size_t i = 0; i < queues; ++i) {
    Umem& umem = *umems[o.shared_umem ? 0 : i];
    sockets.push_back(std::make_unique<Socket>(
        umem, SocketConfig{.interface = o.interface,
                           .queue = o.queues[i],
                           .mode = bind_mode(o),
                           .need_wakeup = !o.no_need_wakeup,
                           .rx_size = o.benchmark == Benchmark::txpush ? 0 : o.ring_size,
                           .tx_size = o.benchmark == Benchmark::rxdrop ? 0 : o.ring_size,
                           .busy_poll = o.busy_poll,
                           .busy_poll_budget = o.batch}));
    if (bind_mode(o) == BindMode::automatic && !sockets.back()->zero_copy() && i == 0) {
      std::fprintf(stderr, "afxdp: zero-copy is not available on %s (driver %s); using copy mode\n",
                   sockets.back()->name().c_str(), interface_driver(o.interface).c_str());
    }
  }

  std::vector<Counters> counters(queues);
  std::vector<Worker> workers(queues);
  PacketBudget budget(o.count);
  for (std::size_t i = 0; i < queues; ++i) {
    Worker& w = workers[i];
    w.socket = sockets[i].get();
    w.umem = umems[o.shared_umem ? 0 : i].get();
    w.frames = o.frames;
    w.frame_size = o.frame_size;
    w.first_addr = o.shared_umem ? std::uint64_t{o.frames} * o.frame_size * i : 0;
    w.options = &o;
    w.counters = &counters[i];
    w.budget = &budget;
    w.stop = &stop_requested;
    w.rate = o.rate / static_cast<double>(queues);
    loops.prepare(w);
  }

  std::unique_ptr<XskProgram> program;
  if (o.benchmark != Benchmark::txpush) {
    program = std::make_unique<XskProgram>(XskProgramConfig{
        .interface = o.interface,
        .mode = o.skb ? AttachMode::skb : AttachMode::native,
        .replace = o.force});
    for (std::size_t i = 0; i < queues; ++i) program->insert(o.queues[i], sockets[i]->fd());
  }

  std::vector<std::thread> threads;
  for (std::size_t i = 0; i < queues; ++i) {
    const std::uint32_t cpu = o.cpus.empty() ? (cpus.empty() ? 0 : cpus[i % cpus.size()])
                                             : o.cpus[i % o.cpus.size()];
    threads.emplace_back([&w = workers[i], &loops, cpu] {
      lab::pin_to_cpu(cpu);  // best effort: the checks above made sure --cpu names usable CPUs
      loops.loop(w);
      w.done.store(true, std::memory_order_release);
    });
  }

  const Reporter reporter(o, o.skb ? "xdp-skb" : "xdp-drv", stdout);
  const auto start = Clock::now();
  const auto interval = std::chrono::duration_cast<Clock::duration>(
      std::chrono::duration<double>(o.interval));
  const auto deadline = o.duration > 0 ? start + std::chrono::duration_cast<Clock::duration>(
                                                     std::chrono::duration<double>(o.duration))
                                       : Clock::time_point::max();
  std::vector<Sample> previous(queues);
  auto next_report = start + interval;
  for (;;) {
    if (stop_requested.load(std::memory_order_relaxed)) break;
    const bool all_done = std::all_of(workers.begin(), workers.end(), [](const Worker& w) {
      return w.done.load(std::memory_order_acquire);
    });
    const auto now = Clock::now();
    if (all_done || now >= deadline) break;
    if (now >= next_report) {
      for (std::size_t i = 0; i < queues; ++i) {
        const Sample current = sample(workers[i], o.extra_stats, start);
        if (!o.quiet) {
          reporter.print({static_cast<std::uint32_t>(i), o.interface, o.queues[i]},
                         current - previous[i], current);
        }
        previous[i] = current;
      }
      next_report += interval;
    }
    std::this_thread::sleep_for(
        std::min<Clock::duration>({next_report - now, deadline - now, std::chrono::milliseconds(20)}));
  }
  stop_requested.store(true, std::memory_order_relaxed);
  for (auto& t : threads) t.join();

  std::vector<Sample> totals;
  for (auto& w : workers) totals.push_back(sample(w, o.extra_stats, start));
  reporter.summary(totals, std::chrono::duration<double>(Clock::now() - start).count());
  for (std::size_t i = 0; i < queues; ++i) {
    if (const int error = workers[i].error.load(); error != 0) {
      throw std::system_error(error, std::generic_category(),
                              "wake-up on " + sockets[i]->name() + " failed");
    }
  }
  return 0;
}

}  // namespace afxdp::tool
