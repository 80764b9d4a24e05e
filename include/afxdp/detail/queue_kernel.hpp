// What a Queue asks of the kernel beyond its rings: its few cold calls (kick tx, wake rx, poll,
// statistics). The socket answers them in production (src/socket_kernel.hpp), testing::Loopback
// in tests. Called per batch at most and out of line, never per frame: the one virtual call a
// kick costs stays off the per-packet path (docs/architecture.md, "The kernel seam").
#pragma once

#include <afxdp/xsk/statistics.hpp>

#include <chrono>
#include <span>

namespace afxdp::detail {

struct PollResult {
  int revents = 0;  // poll()'s, 0 when the wait timed out or failed
  int error = 0;    // errno of a wake-up that failed (Queue keeps the unexpected ones)
};

class QueueKernel {
 public:
  QueueKernel() = default;
  QueueKernel(const QueueKernel&) = delete;
  QueueKernel& operator=(const QueueKernel&) = delete;
  virtual ~QueueKernel() = default;

  // sendto(): in copy mode the kernel consumes the tx ring only when kicked. 0 or errno.
  virtual int kick_tx() noexcept = 0;
  // recvfrom(): wakes the kernel to fill rx (need_wakeup), runs NAPI under busy poll. 0 or errno.
  virtual int wake_rx() noexcept = 0;
  // Sleep until `events` or `timeout` (negative: no limit).
  virtual PollResult poll(short events, std::chrono::nanoseconds timeout) noexcept = 0;
  // Sleep until any of `kernels` (this one first, all of its kind) has received frames, or
  // `timeout`; errors[i] gets kernels[i]'s failed wake-up. True when any has.
  virtual bool poll_any(std::span<QueueKernel* const> kernels, std::span<int> errors,
                        std::chrono::nanoseconds timeout) noexcept = 0;
  [[nodiscard]] virtual XdpStatistics statistics() const = 0;
};

}  // namespace afxdp::detail
