// Threads for a Port's queues, and stopping on SIGINT/SIGTERM.
//
// run_per_queue runs body(Queue&, std::stop_token), or body(Queue&, std::size_t index,
// std::stop_token) with the queue's index in port.queues(), on one thread per queue, each pinned
// to a CPU. Every thread calls the one body object passed in (never a copy): state it captures
// is shared by all threads, so per-queue state belongs in a slot per index (or in the thread's
// own locals), and shared state needs atomics or a lock. SIGINT and SIGTERM request a stop and
// never reach the queue threads (a poll() there is never cut short). At every tick it asks
// whether each queue's interface still exists: when one has been deleted the run stops and throws
// afxdp::InterfaceGone (interface.hpp). Every thread is joined before it returns, also when one
// throws or cannot be started; then the first failure is rethrown as std::system_error naming
// interface and queue.
#pragma once

#include <afxdp/port.hpp>

#include <chrono>
#include <concepts>
#include <csignal>
#include <cstddef>
#include <functional>
#include <stop_token>
#include <utility>
#include <vector>

namespace afxdp {

struct RunConfig {
  std::vector<unsigned> cpus{};  // queue i runs on cpus[i % size]; empty: the process's CPUs
  bool pin = true;
  bool stop_on_signals = true;  // SIGINT/SIGTERM request a stop
  // Called on the calling thread every `tick` while the queues run; false requests a stop.
  std::function<bool()> on_tick{};
  std::chrono::milliseconds tick{100};
};

template <class Body>
concept IndexedQueueBody = std::invocable<Body&, Queue&, std::size_t, std::stop_token>;
template <class Body>
concept QueueBody = IndexedQueueBody<Body> || std::invocable<Body&, Queue&, std::stop_token>;

namespace detail {
using QueueCall = std::function<void(Queue&, std::size_t, std::stop_token)>;
void run_queues(std::span<Queue> queues, const QueueCall& body, const RunConfig& config);
}  // namespace detail

template <QueueBody Body>
void run_per_queue(Port& port, Body&& body, const RunConfig& config = {}) {
  // By reference: the caller's object, alive until every thread is joined, and no copy needed.
  Body& shared = body;
  if constexpr (IndexedQueueBody<Body>) {
    detail::run_queues(port.queues(), std::ref(shared), config);
  } else {
    detail::run_queues(
        port.queues(),
        [&shared](Queue& q, std::size_t, std::stop_token stop) { shared(q, std::move(stop)); },
        config);
  }
}

// SIGINT and SIGTERM request a stop instead of ending the process, from construction on, for a
// single-threaded program's loop: `while (!stop.requested()) ...`. Restores what it changed
// (the handlers, or the signal mask) when destroyed.
class SignalStop {
 public:
  // handler: a handler sets the flag at once, and a system call in progress returns EINTR.
  // blocked: the signals stay pending until requested() or wait_for() collects them, so that no
  // system call is cut short (a BPF test run interrupted loses the count of what it sent).
  enum class Delivery { handler, blocked };
  // What the handler also does at once, after setting the flag: it must be async-signal-safe
  // (kill(2) of child processes that would otherwise run on, say).
  using Action = void (*)() noexcept;
  SignalStop() : SignalStop(Delivery::handler) {}
  explicit SignalStop(Delivery delivery);
  // Delivery::handler, with `also` run by the handler.
  explicit SignalStop(Action also);
  SignalStop(const SignalStop&) = delete;
  SignalStop& operator=(const SignalStop&) = delete;
  ~SignalStop();
  [[nodiscard]] bool requested() const noexcept;
  // The signal that arrived (SIGINT or SIGTERM), 0 while none has.
  [[nodiscard]] int signal() const noexcept;
  // Sleeps up to `timeout` (0: just looks), ending early when a stop signal arrives; requested().
  [[nodiscard]] bool wait_for(std::chrono::nanoseconds timeout) const noexcept;

 private:
  SignalStop(Delivery delivery, Action also);
  Delivery delivery_;
  Action previous_action_ = nullptr;  // handler: the `also` to restore
  sigset_t previous_mask_{};          // blocked: the mask to restore
  struct sigaction previous_int_ {};
  struct sigaction previous_term_ {};
};

[[nodiscard]] inline SignalStop stop_on_signals() { return {}; }

// The CPUs this process may run on (sched_getaffinity), ascending.
std::vector<unsigned> usable_cpus();
// Pin the calling thread to `cpu`; false when it is not usable.
bool pin_to_cpu(unsigned cpu) noexcept;

}  // namespace afxdp
