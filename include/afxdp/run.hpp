// Threads for a Port's queues (SignalStop, in signal_stop.hpp, and the CPU helpers, in cpu.hpp,
// come with it).
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

#include <afxdp/cpu.hpp>
#include <afxdp/port.hpp>
#include <afxdp/signal_stop.hpp>

#include <chrono>
#include <concepts>
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

// Throws afxdp::ConfigError("cpus", ...) for a CPU this process may not run on (its affinity
// mask): run_per_queue checks a RunConfig first; a caller that checks before it opens the port
// keeps validated()'s verdict (below) for run_per_queue.
void validate(const RunConfig& config);

// A RunConfig that validate() has accepted, and can no longer change (ValidatedPortConfig's
// shape, port.hpp): only validated() makes one, and run_per_queue takes it without checking
// again. Its CPUs were checked against the affinity mask of the moment it was made.
class ValidatedRunConfig {
 public:
  // Copies only (a move copies too): a moved-from RunConfig is not the one validate() accepted.
  ValidatedRunConfig(const ValidatedRunConfig&) = default;
  ValidatedRunConfig& operator=(const ValidatedRunConfig&) = default;
  ~ValidatedRunConfig() = default;

  const RunConfig& operator*() const noexcept { return config_; }
  const RunConfig* operator->() const noexcept { return &config_; }

 private:
  explicit ValidatedRunConfig(const RunConfig& config) : config_(config) {}
  friend ValidatedRunConfig validated(const RunConfig& config);
  RunConfig config_;
};

// validate(config), then the config as accepted; throws afxdp::ConfigError as validate does.
[[nodiscard]] ValidatedRunConfig validated(const RunConfig& config);

template <class Body>
concept IndexedQueueBody = std::invocable<Body&, Queue&, std::size_t, std::stop_token>;
template <class Body>
concept QueueBody = IndexedQueueBody<Body> || std::invocable<Body&, Queue&, std::stop_token>;

namespace detail {
using QueueCall = std::function<void(Queue&, std::size_t, std::stop_token)>;
void run_queues(std::span<Queue> queues, const QueueCall& body, const ValidatedRunConfig& config);
}  // namespace detail

template <QueueBody Body>
void run_per_queue(Port& port, Body&& body, const ValidatedRunConfig& config) {
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

// A RunConfig is validated once (validated()), then run as above.
template <QueueBody Body>
void run_per_queue(Port& port, Body&& body, const RunConfig& config = {}) {
  run_per_queue(port, std::forward<Body>(body), validated(config));
}

}  // namespace afxdp
