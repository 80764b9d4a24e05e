// The kernel seam as production fills it: the calls go to an AF_XDP socket's fd.
#pragma once

#include <afxdp/detail/queue_kernel.hpp>

namespace afxdp {
class Socket;
}

namespace afxdp::detail {

class SocketKernel final : public QueueKernel {
 public:
  // `receives`: the queue has an rx ring (what check_bound() asks the socket).
  SocketKernel(Socket& socket, bool receives) noexcept;

  int kick_tx() noexcept override;
  int wake_rx() noexcept override;
  PollResult poll(short events, std::chrono::nanoseconds timeout) noexcept override;
  bool poll_any(std::span<QueueKernel* const> kernels, std::span<int> errors,
                std::chrono::nanoseconds timeout) noexcept override;
  [[nodiscard]] XdpStatistics statistics() const override;

 private:
  // A wake-up on the socket: ENXIO once the kernel unbound it (its interface deleted).
  [[nodiscard]] int check_bound() noexcept;

  Socket& socket_;
  int fd_;
  bool receives_;
};

}  // namespace afxdp::detail
