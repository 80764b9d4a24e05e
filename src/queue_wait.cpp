// Queue::wait, wait_any and drain: what a loop does when its rings have nothing for it. The
// policy of how long to re-check before giving the CPU away is detail/idle_wait.hpp's.
#include <afxdp/detail/queue_kernel.hpp>
#include <afxdp/queue.hpp>

#include <algorithm>
#include <chrono>
#include <poll.h>
#include <thread>
#include <vector>

namespace afxdp {

bool Queue::rx_ready() noexcept {
  if (rx_ == nullptr) return false;
  const std::uint32_t n = rx_->peek(1);
  rx_->cancel(n);
  return n != 0;
}

int Queue::poll(short events, std::chrono::nanoseconds timeout) noexcept {
  detail::QueueCounters::add(counters_.polls, 1);
  const detail::PollResult result = kernel_->poll(events, timeout);
  wake_result(result.error);
  return result.revents;
}

bool Queue::drain(std::chrono::milliseconds timeout) noexcept {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    if (tx_in_flight_ != 0) complete();
    if (tx_in_flight_ == 0) return true;
    if (std::chrono::steady_clock::now() >= deadline) return false;
    if (tx_->outstanding() != 0) {
      kick_tx();
    } else {
      std::this_thread::yield();
    }
  }
}

bool Queue::wait(std::chrono::nanoseconds timeout) noexcept {
  if (tx_ != nullptr && tx_in_flight_ != 0) {
    if (tx_->outstanding() != 0) {
      kick_tx();
      return true;
    }
    if (rx_ == nullptr) {  // sending only: what can come is completions
      if (completion_->peek(1) != 0) {
        completion_->cancel(1);
        idle_.note_data();  // the sender's work follows: no idle stretch for IdleWait to time
        return true;
      }
      if (timeout.count() == 0) {
        idle_.spin_yield();
        return false;
      }
      return poll(POLLOUT, timeout) != 0;
    }
  }
  if (rx_ == nullptr) return false;
  if (rx_ready()) return true;
  // Busy polling: one recvfrom(), which runs the driver's NAPI poll here, then the same window
  // and the same sleep or yield as without it (on one core the kernel's NAPI thread needs the
  // CPU to deliver anything).
  if (busy_poll_) {
    wake_rx();
    if (rx_ready()) return true;
  }
  // Completions are collected while waiting: a frame sent back is lent for receiving again
  // as soon as the kernel is done with it, not after the next batch arrives (a forwarder's
  // fill ring runs short otherwise).
  while (!idle_.note_empty()) {
    if (tx_in_flight_ != 0) complete();
    if (rx_ready()) return true;
  }
  if (spin_.count() != 0 && spin_until_ready(timeout)) return true;
  if (tx_in_flight_ != 0) complete();
  if (timeout.count() == 0) {
    idle_.spin_yield();
    return rx_ready();
  }
  return (poll(POLLIN, timeout) & POLLIN) != 0;
}

// wait()'s spin_before_sleep: re-check rx until it has frames (true) or the spin is over.
bool Queue::spin_until_ready(std::chrono::nanoseconds timeout) noexcept {
  // Bounded by a poll()'s timeout; a zero timeout (a yield next) spins the whole budget, since a
  // yield on a busy CPU gives it away for a time slice (milliseconds).
  const auto spin = timeout.count() <= 0 ? spin_ : std::min(spin_, timeout);
  const auto until = std::chrono::steady_clock::now() + spin;
  do {
    for (int i = 0; i < 16; ++i) {  // the clock costs more than a look at the ring
      if (rx_ready()) return true;
      detail::IdleWait::pause();
    }
    if (tx_in_flight_ != 0) complete();
  } while (std::chrono::steady_clock::now() < until);
  return rx_ready();
}

bool wait_any(std::span<Queue* const> queues, std::chrono::nanoseconds timeout) noexcept {
  if (queues.empty()) return false;
  if (queues.size() == 1) return queues[0]->wait(timeout);
  bool ready = false;
  for (Queue* q : queues) {
    if (q->tx_ != nullptr && q->tx_in_flight_ != 0 && q->tx_->outstanding() != 0) {
      q->kick_tx();
      ready = true;
    }
    ready = ready || q->rx_ready();
  }
  // The first queue's IdleWait times the waits; data on any queue is data to it (each queue's own
  // receive notes only its own).
  detail::IdleWait& idle = queues[0]->idle_;
  if (ready) {
    idle.note_data();
    return true;
  }
  while (!idle.note_empty()) {
    for (Queue* q : queues) {
      if (q->rx_ready()) {
        idle.note_data();
        return true;
      }
    }
  }
  if (timeout.count() == 0) {
    idle.spin_yield();
    ready = std::any_of(queues.begin(), queues.end(), [](Queue* q) { return q->rx_ready(); });
    if (ready) idle.note_data();
    return ready;
  }
  std::vector<detail::QueueKernel*> kernels;
  kernels.reserve(queues.size());
  for (Queue* q : queues) {
    kernels.push_back(q->kernel_);
    detail::QueueCounters::add(q->counters_.polls, 1);
  }
  std::vector<int> errors(queues.size(), 0);
  const bool woke = kernels[0]->poll_any(kernels, errors, timeout);
  for (std::size_t i = 0; i < queues.size(); ++i) queues[i]->wake_result(errors[i]);
  return woke;
}

}  // namespace afxdp
