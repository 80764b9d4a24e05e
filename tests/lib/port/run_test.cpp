// run_per_queue on a Loopback port: every thread joined on every way out, the first failure
// named, signals kept off the queue threads, and a thread that cannot start is one error.
#include <afxdp/run.hpp>
#include <afxdp/testing/loopback.hpp>

#include "expect_throw.hpp"
#include "forked_child.hpp"
#include <gtest/gtest.h>

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdint>
#include <memory>
#include <pthread.h>
#include <stdexcept>
#include <string>
#include <sys/resource.h>
#include <sys/wait.h>
#include <system_error>
#include <thread>
#include <unistd.h>
#include <vector>

namespace {

using afxdp::Queue;
using afxdp::RunConfig;
using afxdp::testing::Loopback;

TEST(RunPerQueue, RunsEveryQueueOnItsOwnThreadUntilStopped) {
  Loopback lb({.queues = 2, .frames_per_queue = 16, .ring_size = 16});
  std::atomic<int> started{0};
  std::atomic<int> ticks{0};
  afxdp::run_per_queue(
      lb.port(),
      [&](Queue&, const std::stop_token& stop) {
        ++started;
        while (!stop.stop_requested()) std::this_thread::yield();
      },
      RunConfig{.stop_on_signals = false,
                .on_tick = [&] { return ++ticks < 3 || started < 2; },
                .tick = std::chrono::milliseconds(5)});
  EXPECT_EQ(started, 2);
  EXPECT_GE(ticks, 3);
}

// A body taking the queue's index gets its position in port.queues(): per-thread results go in a
// vector slot each, with no map keyed by the Queue's address and no lock.
TEST(RunPerQueue, ABodyMayTakeItsQueuesIndex) {
  Loopback lb({.queues = 3, .frames_per_queue = 16, .ring_size = 16});
  std::vector<std::uint32_t> ids(3, 99);
  std::vector<Queue*> seen(3, nullptr);
  std::atomic<int> started{0};
  afxdp::run_per_queue(
      lb.port(),
      [&](Queue& q, std::size_t index, const std::stop_token& stop) {
        ids.at(index) = q.id();
        seen.at(index) = &q;
        ++started;
        while (!stop.stop_requested()) std::this_thread::yield();
      },
      RunConfig{.stop_on_signals = false,
                .on_tick = [&] { return started < 3; },
                .tick = std::chrono::milliseconds(5)});
  for (std::size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(ids[i], lb.port().queues()[i].id());
    EXPECT_EQ(seen[i], &lb.port().queues()[i]);
  }
}

// Every thread calls the one body object the caller passed (no copy per thread, none at all): a
// move-only body is accepted and its state is the caller's.
TEST(RunPerQueue, EveryThreadCallsTheCallersBodyObject) {
  Loopback lb({.queues = 2, .frames_per_queue = 16, .ring_size = 16});
  struct Body {
    std::unique_ptr<std::atomic<int>> calls = std::make_unique<std::atomic<int>>(0);
    void operator()(Queue&, const std::stop_token&) const { ++*calls; }
  } body;
  afxdp::run_per_queue(lb.port(), body, RunConfig{.stop_on_signals = false});
  EXPECT_EQ(body.calls->load(), 2);
}

TEST(RunPerQueue, TheFirstFailureIsRethrownNamingInterfaceAndQueue) {
  Loopback lb({.queues = 2, .frames_per_queue = 16, .ring_size = 16});
  std::atomic<bool> other_stopped{false};
  const auto body = [&](Queue& q, const std::stop_token& stop) {
    if (q.id() == 1) throw std::runtime_error("handler failed");
    while (!stop.stop_requested()) std::this_thread::yield();
    other_stopped = true;
  };
  EXPECT_THROW_WITH(afxdp::run_per_queue(lb.port(), body), std::system_error,
                    "loopback:1: handler failed");
  EXPECT_TRUE(other_stopped);
}

// A std::system_error from a queue is said once, with the queue's name in front: its errno's words
// are not repeated.
TEST(RunPerQueue, ASystemErrorIsRethrownWithItsWordsOnce) {
  Loopback lb({.queues = 1, .frames_per_queue = 16, .ring_size = 16});
  try {
    afxdp::run_per_queue(lb.port(), [](Queue&, const std::stop_token&) {
      throw std::system_error(EIO, std::generic_category(), "read(config)");
    });
    FAIL() << "no exception";
  } catch (const std::system_error& e) {
    const std::string words = std::generic_category().message(EIO);
    EXPECT_EQ(std::string(e.what()), "loopback:0: read(config): " + words);
    EXPECT_EQ(e.code().value(), EIO);
  }
}

TEST(RunPerQueue, SigtermStopsTheRunAndNeverReachesAQueueThread) {
  Loopback lb({.queues = 2, .frames_per_queue = 16, .ring_size = 16});
  std::atomic<int> blocked{0};
  afxdp::run_per_queue(
      lb.port(),
      [&](Queue&, const std::stop_token& stop) {
        sigset_t mask;
        pthread_sigmask(SIG_SETMASK, nullptr, &mask);
        if (sigismember(&mask, SIGTERM) == 1 && sigismember(&mask, SIGINT) == 1) ++blocked;
        while (!stop.stop_requested()) std::this_thread::yield();
      },
      RunConfig{.on_tick =
                    [&] {
                      if (blocked == 2) ::kill(::getpid(), SIGTERM);
                      return true;
                    },
                .tick = std::chrono::milliseconds(5)});
  EXPECT_EQ(blocked, 2);
}

// Under a process limit the second thread cannot start: one std::system_error naming the queue,
// the first thread joined, not std::terminate. Runs in a child that gives up root so that
// RLIMIT_NPROC applies.
TEST(RunPerQueue, AThreadThatCannotStartIsOneErrorNotAnAbort) {
  const auto end = afxdp::test::run_in_child([](const afxdp::test::ForkedChild::Pipe& pipe) {
    Loopback lb({.queues = 4, .frames_per_queue = 16, .ring_size = 16});
    if (::getuid() == 0 && (::setgid(65534) != 0 || ::setuid(65534) != 0)) {
      return pipe.say("could not give root up") ? 3 : 6;
    }
    const rlimit one{1, 1};  // this process alone: no thread may start
    ::setrlimit(RLIMIT_NPROC, &one);
    try {
      afxdp::run_per_queue(lb.port(), [](Queue&, const std::stop_token& stop) {
        while (!stop.stop_requested()) std::this_thread::yield();
      });
    } catch (const std::system_error& e) {
      const std::string what = e.what();
      if (what.find("cannot start the thread for loopback:") == 0) return 0;
      return pipe.say("another error: " + what) ? 4 : 6;
    }
    return pipe.say("every thread started") ? 5 : 6;
  });
  ASSERT_TRUE(WIFEXITED(end.status)) << "killed by signal " << WTERMSIG(end.status);
  EXPECT_EQ(WEXITSTATUS(end.status), 0) << end.said;
}

// A CPU outside the affinity mask is one ConfigError naming the field, found before any thread.
TEST(RunPerQueue, ACpuThisProcessMayNotUseIsAConfigError) {
  const std::vector<unsigned> usable = afxdp::usable_cpus();
  ASSERT_FALSE(usable.empty());
  const unsigned outside = usable.back() + 1;  // the mask is read in ascending order
  const afxdp::RunConfig config{.cpus = {usable.front(), outside}};
  EXPECT_THROW_WITH(afxdp::validate(config), afxdp::ConfigError,
                    "cpus: CPU " + std::to_string(outside) + " is not usable");
  EXPECT_NO_THROW(afxdp::validate(afxdp::RunConfig{}));
  EXPECT_NO_THROW(afxdp::validate(afxdp::RunConfig{.cpus = afxdp::usable_cpus()}));
}

TEST(SignalStop, ASignalSetsTheFlagInsteadOfEndingTheProcess) {
  const afxdp::SignalStop stop = afxdp::stop_on_signals();
  EXPECT_FALSE(stop.requested());
  ::raise(SIGINT);
  EXPECT_TRUE(stop.requested());
  EXPECT_EQ(stop.signal(), SIGINT);
}

// gen's loop: blocked, a signal waits until the loop looks (no system call is cut short), and
// the wait that doubles as its sleep ends when one arrives.
TEST(SignalStop, BlockedHoldsTheSignalUntilCollected) {
  const afxdp::SignalStop stop(afxdp::SignalStop::Delivery::blocked);
  EXPECT_FALSE(stop.wait_for(std::chrono::milliseconds(1)));
  ::raise(SIGTERM);  // pending, not delivered: the process lives on
  EXPECT_TRUE(stop.requested());
  EXPECT_EQ(stop.signal(), SIGTERM);
  EXPECT_TRUE(stop.wait_for(std::chrono::hours(1)));
}

namespace {
std::atomic<int> actions_run{0};
void count_action() noexcept { actions_run.fetch_add(1, std::memory_order_relaxed); }
}  // namespace

// The demo's use: the handler also kills its children. A SignalStop without an action of its own
// leaves the one in force, and each restores what it found.
TEST(SignalStop, TheHandlerAlsoRunsTheActionGivenWhileItLives) {
  actions_run = 0;
  {
    const afxdp::SignalStop stop(count_action);
    ::raise(SIGINT);
    EXPECT_TRUE(stop.requested());
    EXPECT_EQ(actions_run.load(), 1);
    {
      const afxdp::SignalStop inner;
      ::raise(SIGTERM);
      EXPECT_EQ(actions_run.load(), 2);
    }
    ::raise(SIGINT);
    EXPECT_EQ(actions_run.load(), 3);
  }
  const afxdp::SignalStop plain;
  ::raise(SIGINT);
  EXPECT_TRUE(plain.requested());
  EXPECT_EQ(actions_run.load(), 3);
}

TEST(SignalStop, WaitForEndsWhenASignalArrives) {
  for (const auto delivery :
       {afxdp::SignalStop::Delivery::handler, afxdp::SignalStop::Delivery::blocked}) {
    const afxdp::SignalStop stop(delivery);
    // To this thread: a signal to the process could land on the sender, which does not wait.
    const pthread_t waiter = ::pthread_self();
    std::thread sender([waiter] {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      ::pthread_kill(waiter, SIGINT);
    });
    const auto start = std::chrono::steady_clock::now();
    const bool stopped = stop.wait_for(std::chrono::seconds(60));
    const auto waited = std::chrono::steady_clock::now() - start;
    sender.join();
    EXPECT_TRUE(stopped);
    EXPECT_LT(waited, std::chrono::seconds(30));  // woken, not timed out
    EXPECT_EQ(stop.signal(), SIGINT);
  }
}

}  // namespace
