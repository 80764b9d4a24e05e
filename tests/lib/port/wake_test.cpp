// What ends a Queue's wait on a real veth pair other than frames: a handled signal (a normal
// wake, not an error) and the interface deleted under it (an error naming the interface).
#include "system_test.hpp"

#include <afxdp/port.hpp>
#include <afxdp/run.hpp>
#include <lab.hpp>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <pthread.h>
#include <span>
#include <thread>
#include <vector>

namespace {

using afxdp::Port;
using afxdp::Queue;

void ignore_signal(int /*signal*/) {}

// SIGUSR1 with a handler that does nothing, and no SA_RESTART: as a program that handles a signal
// of its own (a reload, a status dump) has it. Restored when destroyed.
class HandledSignal {
 public:
  HandledSignal() {
    struct sigaction action {};
    action.sa_handler = ignore_signal;
    sigemptyset(&action.sa_mask);
    sigaction(SIGUSR1, &action, &previous_);
  }
  HandledSignal(const HandledSignal&) = delete;
  HandledSignal& operator=(const HandledSignal&) = delete;
  ~HandledSignal() { sigaction(SIGUSR1, &previous_, nullptr); }

 private:
  struct sigaction previous_ {};
};

// A signal that interrupts wait()'s poll() is a wake with nothing to do: error() stays 0.
TEST(QueueWake, AHandledSignalDuringWaitIsNotAnError) {
  AFXDP_REQUIRE_SYSTEM();
  afxdp::lab::VethPair veth(afxdp::lab::unique_prefix());
  Port port = Port::open(veth.b(), {.frames_per_queue = 256, .ring_size = 128});
  Queue& q = port.queues()[0];
  const HandledSignal handled;
  std::atomic<bool> waiting{false};
  std::thread waiter([&] {
    q.receive([](std::span<afxdp::Frame>) {});  // the peer's IPv6 chatter, if any
    waiting = true;
    (void)q.wait(std::chrono::seconds(5));
  });
  while (!waiting) std::this_thread::yield();
  std::this_thread::sleep_for(std::chrono::milliseconds(100));  // into poll()
  ::pthread_kill(waiter.native_handle(), SIGUSR1);
  waiter.join();
  EXPECT_EQ(q.error(), 0) << "errno " << q.error();
}

// In run_per_queue a handled signal on a queue thread does not fail the run.
TEST(QueueWake, AHandledSignalOnAQueueThreadDoesNotFailTheRun) {
  AFXDP_REQUIRE_SYSTEM();
  afxdp::lab::VethPair veth(afxdp::lab::unique_prefix());
  Port port = Port::open(veth.b(), {.frames_per_queue = 256, .ring_size = 128});
  const HandledSignal handled;
  std::atomic<pthread_t> thread{};
  std::atomic<bool> started{false};
  int signals_sent = 0;
  EXPECT_NO_THROW(afxdp::run_per_queue(
      port,
      [&](Queue& q, const std::stop_token& stop) {
        thread = ::pthread_self();
        started = true;
        while (!stop.stop_requested()) {
          if (q.receive([](std::span<afxdp::Frame>) {}) == 0) (void)q.wait(std::chrono::seconds(1));
        }
      },
      afxdp::RunConfig{.stop_on_signals = false,
                       .on_tick =
                           [&] {
                             if (!started) return true;
                             ::pthread_kill(thread.load(), SIGUSR1);
                             return ++signals_sent < 10;
                           },
                       .tick = std::chrono::milliseconds(20)}));
  EXPECT_EQ(signals_sent, 10);
}

}  // namespace
