#include <afxdp/xsk/socket.hpp>

#include "socket_kernel.hpp"

#include <cerrno>
#include <poll.h>
#include <time.h>
#include <vector>

namespace afxdp::detail {
namespace {

// ppoll's timeout: null (no limit) for a negative one.
struct PollTimeout {
  explicit PollTimeout(std::chrono::nanoseconds timeout) noexcept {
    if (timeout.count() < 0) return;
    const auto seconds = std::chrono::duration_cast<std::chrono::seconds>(timeout);
    spec = {static_cast<time_t>(seconds.count()), static_cast<long>((timeout - seconds).count())};
    pointer = &spec;
  }
  timespec spec{};
  const timespec* pointer = nullptr;
};

// poll() on a socket the kernel unbound (its interface deleted) never wakes: a long or unlimited
// wait is cut into polls of at most a second, the binding looked at after each that brought
// nothing.
constexpr std::chrono::nanoseconds poll_slice = std::chrono::seconds(1);

std::chrono::nanoseconds next_slice(std::chrono::nanoseconds left) noexcept {
  return left.count() < 0 || left > poll_slice ? poll_slice : left;
}

// What is left of `left` after `slice` (a negative `left`, no limit, stays); false when nothing.
bool time_left(std::chrono::nanoseconds& left, std::chrono::nanoseconds slice) noexcept {
  if (left.count() < 0) return true;
  left -= slice;
  return left.count() > 0;
}

bool failed(int error) noexcept { return !WakeStatus{error}.transient(); }

}  // namespace

SocketKernel::SocketKernel(Socket& socket, bool receives) noexcept
    : socket_(socket), fd_(socket.fd()), receives_(receives) {}

int SocketKernel::kick_tx() noexcept { return socket_.wake_tx().error; }

int SocketKernel::wake_rx() noexcept { return socket_.wake_rx().error; }

int SocketKernel::check_bound() noexcept { return receives_ ? wake_rx() : kick_tx(); }

PollResult SocketKernel::poll(short events, std::chrono::nanoseconds timeout) noexcept {
  for (;;) {
    const std::chrono::nanoseconds slice = next_slice(timeout);
    pollfd entry{fd_, events, 0};
    const PollTimeout limit(slice);
    const int rc = ::ppoll(&entry, 1, limit.pointer, nullptr);
    if (rc > 0) return {entry.revents, 0};
    if (rc < 0) return {0, errno};  // EINTR: a wake with nothing to do
    const int error = check_bound();
    if (failed(error) || !time_left(timeout, slice)) return {0, error};
  }
}

bool SocketKernel::poll_any(std::span<QueueKernel* const> kernels, std::span<int> errors,
                            std::chrono::nanoseconds timeout) noexcept {
  std::vector<pollfd> fds;
  fds.reserve(kernels.size());
  for (QueueKernel* k : kernels) fds.push_back({static_cast<SocketKernel*>(k)->fd_, POLLIN, 0});
  for (;;) {  // as poll()
    const std::chrono::nanoseconds slice = next_slice(timeout);
    const PollTimeout limit(slice);
    const int rc = ::ppoll(fds.data(), fds.size(), limit.pointer, nullptr);
    if (rc != 0) return rc > 0;  // EINTR: a wake with nothing to do
    bool any_failed = false;
    for (std::size_t i = 0; i < kernels.size(); ++i) {
      errors[i] = static_cast<SocketKernel*>(kernels[i])->check_bound();
      any_failed = any_failed || failed(errors[i]);
    }
    if (any_failed || !time_left(timeout, slice)) return false;
  }
}

XdpStatistics SocketKernel::statistics() const { return socket_.statistics(); }

}  // namespace afxdp::detail
