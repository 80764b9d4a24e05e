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
#include <functional>
#include <pthread.h>
#include <span>
#include <string>
#include <system_error>
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
    q.receive([](afxdp::Frames) {});  // the peer's IPv6 chatter, if any
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
          if (q.receive([](afxdp::Frames) {}) == 0) (void)q.wait(std::chrono::seconds(1));
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

// The interface deleted under a waiting queue: the kernel unbinds the socket, after which poll()
// only times out (xsk_poll reports nothing for an unbound socket) and recvfrom()/sendto() say
// ENXIO. wait() finds out after the poll that brought nothing and error() says so.
TEST(QueueWake, AnInterfaceDeletedUnderWaitIsTheQueuesErrorNamingIt) {
  AFXDP_REQUIRE_SYSTEM();
  afxdp::lab::VethPair veth(afxdp::lab::unique_prefix());
  Port port = Port::open(veth.b(), {.frames_per_queue = 256, .ring_size = 128});
  Queue& q = port.queues()[0];
  afxdp::lab::run({"ip", "link", "del", veth.a()});
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (q.error() == 0 && std::chrono::steady_clock::now() < deadline) {
    q.receive([](afxdp::Frames) {});
    (void)q.wait(std::chrono::milliseconds(100));
  }
  EXPECT_EQ(q.error(), ENXIO);  // what Linux 6.18 says: the socket is no longer bound
  EXPECT_TRUE(q.interface_gone());
  EXPECT_NE(q.error_message().find(veth.b() + " is gone"), std::string::npos) << q.error_message();
}

// A wait with no time limit: `wait` runs it on its own thread, the interface is deleted, and the
// wait must return within the test's bound (it looks at the binding every second); a wait that
// never would is cut short with a handled signal, so that the test fails instead of hanging.
void unlimited_wait_ends(const std::string& interface, const std::function<void()>& wait) {
  const HandledSignal handled;
  std::atomic<bool> waiting{false};
  std::atomic<bool> returned{false};
  std::thread waiter([&] {
    waiting = true;
    wait();
    returned = true;
  });
  while (!waiting) std::this_thread::yield();
  std::this_thread::sleep_for(std::chrono::milliseconds(100));  // into poll()
  afxdp::lab::run({"ip", "link", "del", interface});
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (!returned && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_TRUE(returned) << "the wait went on after the interface was deleted";
  while (!returned) {
    ::pthread_kill(waiter.native_handle(), SIGUSR1);
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  waiter.join();
}

TEST(QueueWake, AnUnlimitedWaitEndsWhenTheInterfaceIsDeleted) {
  AFXDP_REQUIRE_SYSTEM();
  afxdp::lab::VethPair veth(afxdp::lab::unique_prefix());
  Port port = Port::open(veth.b(), {.frames_per_queue = 256, .ring_size = 128});
  Queue& q = port.queues()[0];
  unlimited_wait_ends(veth.a(), [&] {
    // Until it has failed: frames that came before the deletion (IPv6 chatter) end a wait too.
    while (q.error() == 0) {
      q.receive([](afxdp::Frames) {});
      (void)q.wait(std::chrono::nanoseconds(-1));
    }
  });
  EXPECT_EQ(q.error(), ENXIO);
}

TEST(QueueWake, AnUnlimitedWaitAnyEndsWhenTheInterfaceIsDeleted) {
  AFXDP_REQUIRE_SYSTEM();
  afxdp::lab::VethPair veth(afxdp::lab::unique_prefix(), 2);
  Port port = Port::open(veth.b(), {.frames_per_queue = 256, .ring_size = 128});
  std::vector<Queue*> queues;
  for (Queue& q : port.queues()) {
    q.receive([](afxdp::Frames) {});
    queues.push_back(&q);
  }
  unlimited_wait_ends(veth.a(), [&] {
    // Until a queue has failed: frames that came before the deletion end a wait too.
    while (queues[0]->error() == 0 && queues[1]->error() == 0) {
      for (Queue* q : queues) q->receive([](afxdp::Frames) {});
      (void)afxdp::wait_any(queues, std::chrono::nanoseconds(-1));
    }
  });
  EXPECT_TRUE(queues[0]->error() == ENXIO || queues[1]->error() == ENXIO);
}

// An echo in run_per_queue, its interface deleted: the run ends (within seconds; the test gives
// it 10 before it stops the run itself) with one error naming the interface.
TEST(QueueWake, AnInterfaceDeletedUnderRunPerQueueEndsTheRunNamingIt) {
  AFXDP_REQUIRE_SYSTEM();
  afxdp::lab::VethPair veth(afxdp::lab::unique_prefix());
  Port port = Port::open(veth.b(), {.frames_per_queue = 256, .ring_size = 128});
  std::atomic<bool> started{false};
  std::chrono::steady_clock::time_point deleted{};
  const auto echo = [&](Queue& q, const std::stop_token& stop) {
    started = true;
    while (!stop.stop_requested()) {
      if (q.serve([](afxdp::Frame&) { return afxdp::Verdict::send_back; }) == 0) {
        (void)q.wait(std::chrono::milliseconds(100));
      }
    }
  };
  std::string reason = "the run ended without an error";
  try {
    afxdp::run_per_queue(
        port, echo, afxdp::RunConfig{.stop_on_signals = false, .on_tick = [&] {
                                       if (!started) return true;
                                       const auto now = std::chrono::steady_clock::now();
                                       if (deleted == std::chrono::steady_clock::time_point{}) {
                                         afxdp::lab::run({"ip", "link", "del", veth.a()});
                                         deleted = now;
                                       }
                                       return now - deleted < std::chrono::seconds(10);
                                     }});
  } catch (const std::system_error& e) {
    reason = e.what();
  }
  EXPECT_NE(reason.find("interface " + veth.b() + " is gone"), std::string::npos) << reason;
  EXPECT_EQ(reason.find('\n'), std::string::npos) << reason;
}

}  // namespace
