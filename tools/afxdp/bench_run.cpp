#include "bench_run.hpp"

#include "report_schedule.hpp"

#include <afxdp/interface.hpp>
#include <afxdp/xsk_program.hpp>
#include <lab.hpp>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstring>
#include <linux/capability.h>
#include <memory>
#include <net/if.h>
#include <sched.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>
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

sigset_t stop_signal_set() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  return set;
}

// The first thing a benchmark does: from here on SIGINT and SIGTERM only ask for a stop, even
// during setup (the loop then ends at once, with a summary and exit 0). Unblocked too, so that
// one held pending by a parent that started us with them blocked is delivered now.
void catch_signals() {
  struct sigaction action{};
  action.sa_handler = request_stop;
  sigemptyset(&action.sa_mask);
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
  const sigset_t set = stop_signal_set();
  pthread_sigmask(SIG_UNBLOCK, &set, nullptr);
}

// --drop-privileges: no capability survives, and none can come back. Capabilities belong to a
// thread, so this runs on the main thread before the queue threads exist: they inherit the
// empty sets. Nothing after setup needs one: the rings are mapped, wake-ups, XDP_STATISTICS and
// closing the bpf_link (which detaches the program) are allowed to any owner of the fds.
void drop_capabilities() {
  ::prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
  // The bounding set first: dropping from it needs CAP_SETPCAP, which the capset below removes.
  for (int cap = 0; ::prctl(PR_CAPBSET_READ, cap, 0, 0, 0) >= 0; ++cap) {
    if (::prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0) {
      throw std::system_error(errno, std::generic_category(), "prctl(PR_CAPBSET_DROP)");
    }
  }
  __user_cap_header_struct header{_LINUX_CAPABILITY_VERSION_3, 0};
  __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3]{};
  if (::syscall(SYS_capset, &header, data) != 0) {
    throw std::system_error(errno, std::generic_category(), "capset (--drop-privileges)");
  }
}

// The interface we run on is gone (deleted, or its namespace went away) when its name no longer
// leads to the index we bound to. One cheap ioctl, asked by the statistics thread only.
bool interface_gone(const std::string& name, unsigned ifindex) {
  return ::if_nametoindex(name.c_str()) != ifindex;
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

// The UMEMs (one per queue, or one shared with -M) and one socket per queue, bound.
void bind_sockets(const BenchOptions& o, std::vector<std::unique_ptr<Umem>>& umems,
                  std::vector<std::unique_ptr<Socket>>& sockets) {
  const std::size_t queues = o.queues.size();
  const std::size_t umem_count = o.shared_umem ? 1 : queues;
  const std::uint32_t frames_per_umem =
      o.frames * static_cast<std::uint32_t>(o.shared_umem ? queues : 1);
  for (std::size_t i = 0; i < umem_count; ++i) {
    umems.push_back(std::make_unique<Umem>(UmemConfig{.frame_count = frames_per_umem,
                                                      .frame_size = o.frame_size,
                                                      .fill_size = o.ring_size,
                                                      .completion_size = o.ring_size,
                                                      .unaligned_chunks = o.unaligned,
                                                      .hugepages = o.unaligned}));
  }
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
  }
}

Sample sample(Worker& w, bool with_xdp, Clock::time_point start) {
  Sample s;
  s.app = w.counters->read();
  if (with_xdp) s.xdp = w.socket->statistics();
  s.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  return s;
}

// Every queue's ledger, summed, once the queue threads are joined. A frame still held by the
// application when its loop has returned is a leak, so it counts as an error too.
LedgerTotals ledger_totals(const std::vector<Worker>& workers) {
  LedgerTotals t;
  t.enabled = FrameLedger::enabled;
  if (!t.enabled) return t;
  for (const Worker& w : workers) {
    const FrameLedger& l = w.ledger;
    if (t.first_error.empty()) t.first_error = l.first_error();
    t.errors += l.errors();
    t.frames += w.frames;
    t.free += l.count(FramePlace::free);
    t.fill += l.count(FramePlace::fill);
    t.application += l.count(FramePlace::application);
    t.tx += l.count(FramePlace::tx);
  }
  if (t.application != 0) {
    if (t.first_error.empty()) {
      t.first_error = std::to_string(t.application) + " frame(s) still held by the application";
    }
    ++t.errors;
  }
  return t;
}

}  // namespace

void fill_frames(Worker& w) {
  FillRing& fill = w.socket->fill();
  const std::uint32_t n = fill.reserve(std::min(w.frames, fill.size()));
  for (std::uint32_t i = 0; i < n; ++i) {
    fill.at(i) = w.first_addr + std::uint64_t{i} * w.frame_size;
    w.record(fill.at(i), FramePlace::free, FramePlace::fill);
  }
  fill.submit(n);
}

int run_benchmark(const BenchOptions& o, BenchmarkLoops loops) {
  stop_requested.store(false);
  catch_signals();
  const std::vector<std::uint32_t> cpus = available_cpus();
  check_system(o, cpus);
  const unsigned ifindex = interface_index(o.interface);

  const std::size_t queues = o.queues.size();
  std::vector<std::unique_ptr<Umem>> umems;
  std::vector<std::unique_ptr<Socket>> sockets;
  // A queue whose previous socket was just closed (a run that ended or was killed a moment ago)
  // stays busy until the kernel's deferred release has run: bind says EBUSY. Start over with
  // fresh UMEMs for up to a second; a queue that is really in use still fails after that.
  const auto bind_deadline = Clock::now() + std::chrono::seconds(1);
  for (;;) {
    try {
      bind_sockets(o, umems, sockets);
      break;
    } catch (const std::system_error& e) {
      const int error = e.code().value();
      if (o.zero_copy && (error == EOPNOTSUPP || error == EINVAL)) {
        throw std::runtime_error(std::string(e.what()) + " (-c, or no -z)");  // the tool's words
      }
      if (error != EBUSY || Clock::now() >= bind_deadline) throw;
      sockets.clear();
      umems.clear();
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
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
    w.chunk_mask = afxdp::chunk_mask(w.umem->config());
    w.first_addr = o.shared_umem ? std::uint64_t{o.frames} * o.frame_size * i : 0;
    w.options = &o;
    w.counters = &counters[i];
    w.budget = &budget;
    w.stop = &stop_requested;
    w.rate = o.rate / static_cast<double>(queues);
    w.ledger = FrameLedger(o.frames, o.frame_size);
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

  // Said once the whole set-up has worked, so that a later set-up error stays the only line.
  if (bind_mode(o) == BindMode::automatic && !sockets.front()->zero_copy()) {
    std::fprintf(stderr, "afxdp: zero-copy is not available on %s (driver %s); using copy mode\n",
                 sockets.front()->name().c_str(), interface_driver(o.interface).c_str());
  }
  if (o.drop_privileges) drop_capabilities();

  // The queue threads never see SIGINT or SIGTERM (they inherit this mask): the main thread
  // takes them, and a poll() in a queue thread is never cut short by one.
  const sigset_t stop_signals = stop_signal_set();
  sigset_t previous_mask;
  pthread_sigmask(SIG_BLOCK, &stop_signals, &previous_mask);
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
  pthread_sigmask(SIG_SETMASK, &previous_mask, nullptr);

  const Reporter reporter(o, o.skb ? "xdp-skb" : "xdp-drv", stdout);
  const auto start = Clock::now();
  const auto interval = std::chrono::duration_cast<Clock::duration>(
      std::chrono::duration<double>(o.interval));
  const auto deadline = o.duration > 0 ? start + std::chrono::duration_cast<Clock::duration>(
                                                     std::chrono::duration<double>(o.duration))
                                       : Clock::time_point::max();
  std::vector<Sample> previous(queues);
  auto next_report = start + interval;
  bool lost_interface = false;
  for (;;) {
    if (stop_requested.load(std::memory_order_relaxed)) break;
    if (interface_gone(o.interface, ifindex)) {
      lost_interface = true;
      break;
    }
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
      next_report = next_report_time(next_report, Clock::now(), interval);
    }
    std::this_thread::sleep_for(
        std::min<Clock::duration>({next_report - now, deadline - now, std::chrono::milliseconds(20)}));
  }
  stop_requested.store(true, std::memory_order_relaxed);
  for (auto& t : threads) t.join();

  // A wake-up that failed because the device went away names the interface, not the errno.
  lost_interface = lost_interface || interface_gone(o.interface, ifindex);

  std::vector<Sample> totals;
  for (auto& w : workers) totals.push_back(sample(w, o.extra_stats, start));
  const LedgerTotals ledger = ledger_totals(workers);
  reporter.summary(totals, std::chrono::duration<double>(Clock::now() - start).count(), ledger);
  if (lost_interface) {
    throw std::runtime_error("interface " + o.interface + " disappeared while " +
                             benchmark_name(o.benchmark) + " was running");
  }
  if (ledger.errors != 0) {
    throw std::runtime_error("frame ledger: " + std::to_string(ledger.errors) +
                             " error(s), the first: " + ledger.first_error);
  }
  for (std::size_t i = 0; i < queues; ++i) {
    if (const int error = workers[i].error.load(); error != 0) {
      throw std::system_error(error, std::generic_category(),
                              "wake-up on " + sockets[i]->name() + " failed");
    }
  }
  return 0;
}

}  // namespace afxdp::tool
