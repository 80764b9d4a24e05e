// Stopping a single-threaded program's loop on SIGINT/SIGTERM (run_per_queue, in run.hpp, does
// it for queue threads).
#pragma once

#include <chrono>
#include <csignal>

namespace afxdp {

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

}  // namespace afxdp
