#include <afxdp/error.hpp>
#include <afxdp/run.hpp>
#include <afxdp/xsk/interface.hpp>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <ctime>
#include <exception>
#include <memory>
#include <optional>
#include <pthread.h>
#include <sched.h>
#include <stdexcept>
#include <string>
#include <system_error>
#include <thread>

namespace afxdp {
namespace {

// Lock-free atomics are safe to use from a signal handler.
std::atomic<int> caught_signal{0};
std::atomic<SignalStop::Action> stop_action{nullptr};
static_assert(std::atomic<SignalStop::Action>::is_always_lock_free);

void on_stop_signal(int signal) {
  caught_signal.store(signal, std::memory_order_relaxed);
  if (const SignalStop::Action also = stop_action.load(std::memory_order_relaxed)) also();
}

sigset_t stop_signals() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  return set;
}

// Threads started while this lives inherit SIGINT and SIGTERM blocked; the caller's mask comes
// back with it.
class BlockStopSignals {
 public:
  BlockStopSignals() {
    const sigset_t set = stop_signals();
    pthread_sigmask(SIG_BLOCK, &set, &previous_);
  }
  BlockStopSignals(const BlockStopSignals&) = delete;
  BlockStopSignals& operator=(const BlockStopSignals&) = delete;
  ~BlockStopSignals() { pthread_sigmask(SIG_SETMASK, &previous_, nullptr); }

 private:
  sigset_t previous_{};
};

// A queue's failure as the one error run_per_queue throws: it names the interface and queue.
std::system_error queue_failure(const Queue& queue, const std::exception_ptr& error) {
  const std::string where = queue.name() + ": ";
  try {
    std::rethrow_exception(error);
  } catch (const std::system_error& e) {
    return std::system_error(e.code(), where + message_of(e));
  } catch (const std::exception& e) {
    return std::system_error(std::make_error_code(std::errc::io_error), where + e.what());
  } catch (...) {
    return std::system_error(std::make_error_code(std::errc::io_error), where + "unknown error");
  }
}

// The first queue whose interface has been deleted (each interface asked once), or null.
const Queue* on_lost_interface(std::span<Queue> queues) {
  const std::string* asked = nullptr;
  for (const Queue& q : queues) {
    if (asked != nullptr && *asked == q.interface()) continue;
    asked = &q.interface();
    if (q.interface_gone()) return &q;
  }
  return nullptr;
}

// Once every thread is joined: a lost interface, whatever each of its queues made of it (a
// wake-up's ENXIO, or nothing at all), is the one reason; else the first queue's failure.
void throw_first_failure(std::span<Queue> queues, const std::vector<std::exception_ptr>& errors) {
  if (const Queue* lost = on_lost_interface(queues)) throw InterfaceGone(lost->interface());
  for (std::size_t i = 0; i < queues.size(); ++i) {
    if (errors[i]) throw queue_failure(queues[i], errors[i]);
  }
}

// From a config validated() accepted: not checked again.
std::vector<unsigned> cpus_for(const RunConfig& config) {
  if (!config.cpus.empty()) return config.cpus;
  const std::vector<unsigned> usable = usable_cpus();
  return usable.empty() ? std::vector<unsigned>{0} : usable;
}

}  // namespace

void validate(const RunConfig& config) {
  if (config.cpus.empty()) return;
  const std::vector<unsigned> usable = usable_cpus();
  for (const unsigned cpu : config.cpus) {
    if (std::find(usable.begin(), usable.end(), cpu) == usable.end()) {
      throw ConfigError("cpus", "CPU " + std::to_string(cpu) +
                                    " is not usable (not in this process's affinity mask)");
    }
  }
}

ValidatedRunConfig validated(const RunConfig& config) {
  validate(config);
  return ValidatedRunConfig(config);
}

SignalStop::SignalStop(Delivery delivery) : SignalStop(delivery, nullptr) {}

SignalStop::SignalStop(Action also) : SignalStop(Delivery::handler, also) {}

SignalStop::SignalStop(Delivery delivery, Action also) : delivery_(delivery) {
  caught_signal.store(0, std::memory_order_relaxed);
  const sigset_t set = stop_signals();
  if (delivery_ == Delivery::blocked) {
    pthread_sigmask(SIG_BLOCK, &set, &previous_mask_);
    return;
  }
  // Before the handler is in place, so that no signal finds it without `also`.
  previous_action_ = also != nullptr ? stop_action.exchange(also, std::memory_order_relaxed)
                                     : stop_action.load(std::memory_order_relaxed);
  struct sigaction action {};
  action.sa_handler = on_stop_signal;
  sigemptyset(&action.sa_mask);
  sigaction(SIGINT, &action, &previous_int_);
  sigaction(SIGTERM, &action, &previous_term_);
  // One held pending by a parent that started us with them blocked is delivered now.
  pthread_sigmask(SIG_UNBLOCK, &set, nullptr);
}

SignalStop::~SignalStop() {
  if (delivery_ == Delivery::blocked) {
    pthread_sigmask(SIG_SETMASK, &previous_mask_, nullptr);
    return;
  }
  sigaction(SIGINT, &previous_int_, nullptr);
  sigaction(SIGTERM, &previous_term_, nullptr);
  stop_action.store(previous_action_, std::memory_order_relaxed);
}

bool SignalStop::requested() const noexcept {
  if (delivery_ == Delivery::blocked && signal() == 0) return wait_for(std::chrono::nanoseconds{0});
  return signal() != 0;
}

int SignalStop::signal() const noexcept { return caught_signal.load(std::memory_order_relaxed); }

bool SignalStop::wait_for(std::chrono::nanoseconds timeout) const noexcept {
  // Blocked for the wait, so that sigtimedwait takes the signal instead of the handler.
  const sigset_t set = stop_signals();
  sigset_t previous;
  pthread_sigmask(SIG_BLOCK, &set, &previous);
  if (signal() == 0) {
    timeout = std::max(timeout, std::chrono::nanoseconds::zero());
    timespec left{};
    left.tv_sec = static_cast<std::time_t>(timeout.count() / 1'000'000'000);
    left.tv_nsec = static_cast<long>(timeout.count() % 1'000'000'000);
    int caught = 0;
    while ((caught = sigtimedwait(&set, nullptr, &left)) < 0 && errno == EINTR) {
    }
    if (caught > 0) caught_signal.store(caught, std::memory_order_relaxed);
  }
  pthread_sigmask(SIG_SETMASK, &previous, nullptr);
  return signal() != 0;
}

std::vector<unsigned> usable_cpus() {
  // The mask is sized by doubling from 1024 CPUs (glibc's cpu_set_t) while the kernel says
  // EINVAL, so that a machine with more CPUs is read whole.
  struct Free {
    void operator()(cpu_set_t* set) const noexcept { CPU_FREE(set); }
  };
  for (std::size_t count = 1024; count <= (std::size_t{1} << 20); count *= 2) {
    const std::unique_ptr<cpu_set_t, Free> set(CPU_ALLOC(count));
    if (!set) return {};
    const std::size_t size = CPU_ALLOC_SIZE(count);
    CPU_ZERO_S(size, set.get());
    if (::sched_getaffinity(0, size, set.get()) == 0) {
      std::vector<unsigned> cpus;
      for (std::size_t cpu = 0; cpu < count; ++cpu) {
        if (CPU_ISSET_S(cpu, size, set.get())) cpus.push_back(static_cast<unsigned>(cpu));
      }
      return cpus;
    }
    if (errno != EINVAL) return {};
  }
  return {};
}

bool pin_to_cpu(unsigned cpu) noexcept {
  if (cpu >= CPU_SETSIZE) return false;
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  return pthread_setaffinity_np(pthread_self(), sizeof set, &set) == 0;
}

namespace detail {

void run_queues(std::span<Queue> queues, const QueueCall& body,
                const ValidatedRunConfig& validated) {
  const RunConfig& config = *validated;
  const std::vector<unsigned> cpus = cpus_for(config);
  std::optional<SignalStop> signals;
  if (config.stop_on_signals) signals.emplace();
  std::stop_source stop;
  std::vector<std::exception_ptr> errors(queues.size());
  std::atomic<std::size_t> finished{0};
  std::exception_ptr start_error;
  {
    std::vector<std::jthread> threads;
    // Declared after the threads: requests the stop before they are joined, on any way out.
    struct StopFirst {
      std::stop_source& stop;
      ~StopFirst() { stop.request_stop(); }
    } stop_first{stop};
    {
      const BlockStopSignals blocked;
      for (std::size_t i = 0; i < queues.size(); ++i) {
        const unsigned cpu = cpus[i % cpus.size()];
        try {
          threads.emplace_back([&, i, cpu] {
            try {
              if (config.pin) pin_to_cpu(cpu);
              body(queues[i], i, stop.get_token());
              if (queues[i].error() != 0) {
                throw std::system_error(queues[i].error(), std::generic_category(),
                                        "wake-up failed");
              }
            } catch (...) {
              errors[i] = std::current_exception();
              stop.request_stop();
            }
            finished.fetch_add(1, std::memory_order_release);
          });
        } catch (const std::system_error& e) {
          start_error = std::make_exception_ptr(
              std::system_error(e.code(), "cannot start the thread for " + queues[i].name()));
          break;
        }
      }
    }
    const auto tick = config.tick.count() > 0 ? config.tick : std::chrono::milliseconds(100);
    auto next_tick = std::chrono::steady_clock::now() + tick;
    while (!start_error && !stop.stop_requested() &&
           finished.load(std::memory_order_acquire) < queues.size()) {
      if (signals && signals->requested()) break;
      const auto now = std::chrono::steady_clock::now();
      if (now >= next_tick) {
        if (on_lost_interface(queues) != nullptr) break;
        if (config.on_tick && !config.on_tick()) break;
        next_tick += tick;
        if (next_tick < now) next_tick = now + tick;  // after a stall: one tick, not a burst
      }
      std::this_thread::sleep_for(std::min<std::chrono::steady_clock::duration>(
          next_tick - now, std::chrono::milliseconds(20)));
    }
  }
  if (start_error) std::rethrow_exception(start_error);
  throw_first_failure(queues, errors);
}

}  // namespace detail
}  // namespace afxdp
