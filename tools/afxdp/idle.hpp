// What a benchmark loop does when its ring is empty. Data often follows within microseconds (the
// kernel hands over one NAPI batch at a time), so the loop first re-checks the ring a few times;
// only when it stays empty does it give the CPU away: poll() with -p (sleep until the kernel
// says there is data), else sched_yield(), so that a kernel thread sharing our CPU (threaded
// NAPI on one core) runs instead of waiting for our time slice to end.
#pragma once

#include <cstdint>
#include <sched.h>

namespace afxdp::tool {

class IdleWait {
 public:
  // Empty peeks in a row before giving the CPU away (about a microsecond of re-checking).
  static constexpr std::uint32_t spins = 64;

  // The ring had data: start counting again.
  void busy() noexcept { empty_ = 0; }
  // The ring was empty: true when it is time to sleep (poll) or yield.
  bool give_up_cpu() noexcept {
    if (++empty_ < spins) {
#if defined(__x86_64__) || defined(__i386__)
      __builtin_ia32_pause();  // a spinning hyperthread leaves its sibling the core
#endif
      return false;
    }
    empty_ = 0;
    return true;
  }
  static void yield() noexcept { ::sched_yield(); }

 private:
  std::uint32_t empty_ = 0;
};

}  // namespace afxdp::tool
