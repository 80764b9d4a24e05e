// SIGINT and SIGTERM as ordinary events for a single-threaded loop: blocked for the object's
// lifetime (so they never interrupt a syscall half-way, e.g. a BPF test run whose progress
// would be lost), and collected with sigtimedwait, which doubles as the loop's sleep.
#pragma once

#include <cerrno>
#include <chrono>
#include <csignal>
#include <ctime>
#include <pthread.h>

namespace afxdp::tool {

class StopSignals {
 public:
  StopSignals() {
    sigemptyset(&set_);
    sigaddset(&set_, SIGINT);
    sigaddset(&set_, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &set_, &previous_);
  }
  StopSignals(const StopSignals&) = delete;
  StopSignals& operator=(const StopSignals&) = delete;
  ~StopSignals() { pthread_sigmask(SIG_SETMASK, &previous_, nullptr); }

  // Sleep up to `timeout` (0: just look); true once SIGINT or SIGTERM arrived.
  bool wait(std::chrono::nanoseconds timeout) {
    if (stopped_) return true;
    if (timeout < std::chrono::nanoseconds::zero()) timeout = std::chrono::nanoseconds::zero();
    timespec ts{};
    ts.tv_sec = static_cast<std::time_t>(timeout.count() / 1'000'000'000);
    ts.tv_nsec = static_cast<long>(timeout.count() % 1'000'000'000);
    int rc = 0;
    while ((rc = sigtimedwait(&set_, nullptr, &ts)) < 0 && errno == EINTR) {
    }
    stopped_ = rc > 0;
    return stopped_;
  }

 private:
  sigset_t set_{};
  sigset_t previous_{};
  bool stopped_ = false;
};

}  // namespace afxdp::tool
