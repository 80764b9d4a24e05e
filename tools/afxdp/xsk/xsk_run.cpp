#include "xsk/xsk_run.hpp"

#include "common/config_flags.hpp"
#include "common/report_schedule.hpp"
#include "common/require.hpp"
#include "common/steer.hpp"
#include "xsk/privileges.hpp"

#include <afxdp/run.hpp>
#include <afxdp/xsk/interface.hpp>
#include <afxdp/xsk/xdp_link.hpp>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <span>
#include <stdexcept>
#include <system_error>
#include <vector>

namespace afxdp::tool {
namespace {

using Clock = std::chrono::steady_clock;

// The checks that need the kernel but change nothing, in the tool's words: before any set-up.
// `run` is the run's config, validated (--cpu) here and not again by run_per_queue.
ValidatedRunConfig check_system(const XskOptions& o, const RunConfig& run) {
  require_privilege(benchmark_name(o.benchmark));
  return check_in_flags([&] { return validated(run); });
}

}  // namespace

Port open_port(const XskOptions& o) {
  try {
    return Port::open(o.interface, o.port.value());
  } catch (const XdpAttachConflict& e) {
    if (o.force) throw;  // a bpf_link holds it: the library's message says why --force can't help
    throw std::runtime_error("another XDP program (id " + std::to_string(e.other_program()) +
                             ") is already attached to " + o.interface +
                             "; detach it, or --force to replace one attached with netlink");
  } catch (const std::system_error& e) {
    const int error = e.code().value();
    if (o.zero_copy && (error == EOPNOTSUPP || error == EINVAL)) {
      throw std::runtime_error(std::string(e.what()) + " (-c, or no -z)");  // the tool's words
    }
    throw;
  }
}

namespace {

Sample sample(const Queue& q, Clock::time_point start) {
  return {q.stats(), std::chrono::duration<double>(Clock::now() - start).count()};
}

// Every queue's ledger, summed, once the queue threads are joined. A frame still held by the
// application when its loop has returned is a leak, so it counts as an error too.
LedgerTotals ledger_totals(std::span<Queue> queues) {
  LedgerTotals t;
  t.enabled = FrameLedger::enabled;
  if (!t.enabled) return t;
  for (const Queue& q : queues) {
    const FrameLedger& l = q.ledger();
    if (t.first_error.empty()) t.first_error = l.first_error();
    t.errors += l.errors();
    t.frames += q.frames();
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

// Said once the whole set-up has worked, so that a later set-up error stays the only line.
void say_if_copy_mode(const XskOptions& o, Port& port) {
  if (port.config().bind == BindMode::automatic && !port.zero_copy()) {
    std::fprintf(stderr, "afxdp: zero-copy is not available on %s (driver %s); using copy mode\n",
                 port.queues().front().name().c_str(), interface_driver(o.interface).c_str());
  }
}

// The main thread's part while the queues run (run_per_queue's on_tick): stop on a signal or at
// the deadline; print every queue's line each interval. (run_per_queue itself ends the run when
// the interface is gone.)
class Ticker {
 public:
  Ticker(const XskOptions& o, std::span<Queue> queues, const Reporter& reporter,
         const SignalStop& signals)
      : o_(o),
        queues_(queues),
        reporter_(reporter),
        signals_(signals),
        start_(Clock::now()),
        interval_(
            std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(o.interval))),
        next_report_(start_ + interval_),
        previous_(queues.size()) {
    if (o.duration > 0) {
      deadline_ = start_ + std::chrono::duration_cast<Clock::duration>(
                               std::chrono::duration<double>(o.duration));
    }
  }

  // False when the run is to stop.
  bool tick() {
    if (signals_.requested()) return false;
    const auto now = Clock::now();
    if (now >= deadline_) return false;
    if (now >= next_report_) {
      report();
      next_report_ = next_report_time(next_report_, Clock::now(), interval_);
    }
    return true;
  }

  [[nodiscard]] Clock::time_point start() const noexcept { return start_; }

 private:
  void report() {
    for (std::size_t i = 0; i < queues_.size(); ++i) {
      const Sample current = sample(queues_[i], start_);
      if (!o_.quiet) {
        reporter_.print({static_cast<std::uint32_t>(i), o_.interface, queues_[i].id()},
                        current - previous_[i], current);
      }
      previous_[i] = current;
    }
  }

  const XskOptions& o_;
  std::span<Queue> queues_;
  const Reporter& reporter_;
  const SignalStop& signals_;
  Clock::time_point start_;
  Clock::duration interval_;
  Clock::time_point deadline_ = Clock::time_point::max();
  Clock::time_point next_report_;
  std::vector<Sample> previous_;
};

// The summary, then what went wrong, if anything did, as the run's one error.
void summarize(const XskOptions& o, Port& port, const Reporter& reporter, Clock::time_point start,
               bool lost_interface) {
  const std::span<Queue> queues = port.queues();
  std::vector<Sample> totals;
  for (const Queue& q : queues) totals.push_back(sample(q, start));
  const LedgerTotals ledger = ledger_totals(queues);
  reporter.summary(totals, std::chrono::duration<double>(Clock::now() - start).count(), ledger);
  if (!o.steer.empty()) {  // each rule's hits, after the summary
    const std::vector<SteeringRule> rules = port.steering().list();
    const std::string text =
        o.json ? "{\"steering\":" + steering_json(rules) + "}\n" : steering_text(rules);
    std::fputs(text.c_str(), stdout);
  }
  if (lost_interface) {
    throw std::runtime_error("interface " + o.interface + " disappeared while " +
                             benchmark_name(o.benchmark) + " was running");
  }
  if (ledger.errors != 0) {
    throw std::runtime_error("frame ledger: " + std::to_string(ledger.errors) +
                             " error(s), the first: " + ledger.first_error);
  }
}

}  // namespace

PortConfig port_config(const XskOptions& o) {
  PortConfig c;
  c.queues = o.queues;
  c.frames_per_queue = o.frames;
  c.frame_size = o.frame_size;
  c.ring_size = o.ring_size;
  c.bind = o.skb         ? BindMode::skb
           : o.copy      ? BindMode::native_copy
           : o.zero_copy ? BindMode::native_zero_copy
                         : BindMode::automatic;
  c.attach = o.skb ? AttachMode::skb : AttachMode::native;
  c.need_wakeup = !o.no_need_wakeup;
  c.shared_umem = o.shared_umem;
  c.busy_poll = o.busy_poll;
  c.busy_poll_budget = o.batch;
  c.replace_program = o.force;
  c.receive = o.benchmark != Benchmark::txpush;
  c.transmit = o.benchmark != Benchmark::rxdrop;
  c.unaligned_chunks = o.unaligned;
  c.multi_buffer = o.frags;
  c.steer = o.steer;
  c.spin_before_sleep = std::chrono::nanoseconds(std::llround(o.spin_before_sleep_us * 1000));
  return c;
}

struct BenchmarkRun::State {
  explicit State(const XskOptions& o)
      : options(o), run(check_system(o, run_config())), port(open(o)) {}

  // --cpu, and the ticker's turn on the main thread (called only once the ticker is built).
  RunConfig run_config() {
    return RunConfig{.cpus = {options.cpus.begin(), options.cpus.end()},
                     .stop_on_signals = false,  // `signals`, since the start
                     .on_tick = [this] { return ticker.tick(); },
                     .tick = std::chrono::milliseconds(20)};
  }

  static Port open(const XskOptions& o) {
    const bool drop = drops_privileges(o);
    const RunAs run_as = drop ? resolve_run_as(o.user, o.group) : RunAs{};
    interface_index(o.interface);  // "interface X does not exist" before any other refusal
    Port port = open_port(o);
    say_if_copy_mode(o, port);
    if (drop) drop_privileges(run_as);
    if (const std::string note = root_note(o.user, run_as); drop && !note.empty()) {
      std::fprintf(stderr, "afxdp: %s\n", note.c_str());
    }
    return port;
  }

  // First: from here on SIGINT and SIGTERM only ask for a stop, even during set-up (the run then
  // ends at once, with a summary and exit 0).
  const SignalStop signals;
  const XskOptions& options;
  const ValidatedRunConfig run;
  Port port;
  PacketBudget budget{options.count};
  const QueueContext context{.options = options,
                             .budget = budget,
                             .rate = options.rate / static_cast<double>(port.queues().size()),
                             .idle_timeout = std::chrono::milliseconds(options.use_poll ? 100 : 0)};
  const Reporter reporter{options, options.skb ? "xdp-skb" : "xdp-drv", stdout};
  Ticker ticker{options, port.queues(), reporter, signals};
  std::exception_ptr failure;
  bool lost_interface = false;
};

BenchmarkRun::BenchmarkRun(const XskOptions& options) : state_(std::make_unique<State>(options)) {}

BenchmarkRun::~BenchmarkRun() = default;

Port& BenchmarkRun::port() noexcept { return state_->port; }

const QueueContext& BenchmarkRun::context() const noexcept { return state_->context; }

const ValidatedRunConfig& BenchmarkRun::run_config() const noexcept { return state_->run; }

void BenchmarkRun::failed(const std::exception_ptr& failure) noexcept {
  try {
    std::rethrow_exception(failure);
  } catch (const InterfaceGone&) {
    state_->lost_interface = true;  // said in the tool's words after the summary
  } catch (...) {
    state_->failure = std::current_exception();
  }
}

int BenchmarkRun::finish() {
  State& s = *state_;
  summarize(s.options, s.port, s.reporter, s.ticker.start(), s.lost_interface);
  if (s.failure) std::rethrow_exception(s.failure);
  return 0;
}

}  // namespace afxdp::tool
