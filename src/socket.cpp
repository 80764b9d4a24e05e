#include <afxdp/detail/socket_option.hpp>
#include <afxdp/detail/uapi.hpp>
#include <afxdp/error.hpp>
#include <afxdp/xsk/interface.hpp>
#include <afxdp/xsk/socket.hpp>

#include "config_rule.hpp"
#include "ring_mapping.hpp"

#include <bit>
#include <cerrno>
#include <poll.h>
#include <stdexcept>
#include <sys/socket.h>
#include <utility>

namespace afxdp {
namespace {

using detail::require;

std::uint16_t bind_flags(BindMode mode, bool need_wakeup, bool multi_buffer) {
  std::uint16_t flags = need_wakeup ? XDP_USE_NEED_WAKEUP : 0;
  if (multi_buffer) flags |= uapi::xdp_use_sg;
  if (mode == BindMode::native_zero_copy) flags |= XDP_ZEROCOPY;
  if (mode == BindMode::skb || mode == BindMode::native_copy) flags |= XDP_COPY;
  return flags;
}

void enable_busy_poll(int fd, const SocketConfig& c, const std::string& context) {
  const int on = 1;
  const int usecs = static_cast<int>(c.busy_poll_usecs);
  const int budget = static_cast<int>(c.busy_poll_budget);
  detail::set_option(fd, SOL_SOCKET, uapi::so_prefer_busy_poll, on, "SO_PREFER_BUSY_POLL", context);
  detail::set_option(fd, SOL_SOCKET, SO_BUSY_POLL, usecs, "SO_BUSY_POLL", context);
  detail::set_option(fd, SOL_SOCKET, uapi::so_busy_poll_budget, budget, "SO_BUSY_POLL_BUDGET",
                     context);
}

void require_queue_exists(const SocketConfig& c) {
  const std::uint32_t queues = interface_rx_queues(c.interface);
  if (queues != 0 && c.queue >= queues) {
    throw ConfigError("queue", c.interface + " has " + std::to_string(queues) +
                                   " rx queue(s), so queue " + std::to_string(c.queue) +
                                   " does not exist");
  }
}

// " (driver veth)", or nothing when the driver is unknown.
std::string driver_note(const std::string& interface) {
  const std::string driver = interface_driver(interface);
  return driver.empty() ? "" : " (driver " + driver + ")";
}

// A refused bind, named: a missing feature (multi-buffer, zero-copy) says which one.
[[noreturn]] void throw_bind_error(int error, const SocketConfig& c, bool shares,
                                   const std::string& context) {
  const bool unsupported = error == EOPNOTSUPP || error == EINVAL;
  if (unsupported && c.multi_buffer && !shares) {
    // Kernels before 6.6 refuse the unknown flag (EINVAL); zero-copy drivers without
    // multi-buffer support refuse it (EOPNOTSUPP).
    const char* what = c.mode == BindMode::native_zero_copy
                           ? "zero-copy multi-buffer (XDP_ZEROCOPY with XDP_USE_SG)"
                           : "multi-buffer (XDP_USE_SG)";
    throw_errno(error, "bind(" + context + ", XDP_USE_SG): " + what + " is not supported by " +
                           c.interface + driver_note(c.interface) + " or this kernel (Linux 6.6+)");
  }
  if (unsupported && c.mode == BindMode::native_zero_copy) {
    throw_errno(error, "bind(" + context + ", XDP_ZEROCOPY): zero-copy is not supported by " +
                           c.interface + driver_note(c.interface) + "; use copy mode instead");
  }
  if (error == EBUSY) {
    // The queue's buffer pool is another socket's (xp_assign_dev); Port::open retries this for
    // busy_retry first, as a socket just closed frees its pool a moment later.
    throw_errno(error, "bind(" + context +
                           "): another AF_XDP socket, perhaps another process, is bound to " +
                           c.interface + " queue " + std::to_string(c.queue));
  }
  throw_errno(error, "bind(" + context + ")");
}

// Bind `fd` to (ifindex, c.queue); shared_umem_fd is the Umem's bound fd for a sharing socket,
// -1 for the first.
void bind_socket(int fd, unsigned ifindex, const SocketConfig& c, int shared_umem_fd,
                 const std::string& context) {
  const bool shares = shared_umem_fd >= 0;
  sockaddr_xdp address{};
  address.sxdp_family = AF_XDP;
  address.sxdp_ifindex = ifindex;
  address.sxdp_queue_id = c.queue;
  address.sxdp_flags = bind_flags(c.mode, c.need_wakeup, c.multi_buffer);
  if (shares) {
    // No other flag may go with XDP_SHARED_UMEM: xsk_bind refuses XDP_COPY, XDP_ZEROCOPY,
    // XDP_USE_NEED_WAKEUP (and XDP_USE_SG) with EINVAL. Copy/zero-copy and need_wakeup are the
    // first socket's: the same-queue socket uses its buffer pool, another queue's pool copies them.
    address.sxdp_flags = XDP_SHARED_UMEM;
    address.sxdp_shared_umem_fd = static_cast<std::uint32_t>(shared_umem_fd);
  }
  const auto* generic = reinterpret_cast<const sockaddr*>(&address);
  int rc = ::bind(fd, generic, sizeof address);
  if (rc != 0 && c.mode == BindMode::automatic && !shares) {
    // No zero-copy here (or it was refused): copy mode.
    address.sxdp_flags = static_cast<std::uint16_t>(address.sxdp_flags | XDP_COPY);
    rc = ::bind(fd, generic, sizeof address);
  }
  if (rc != 0) throw_bind_error(errno, c, shares, context);
}

}  // namespace

void validate(const SocketConfig& c) {
  require(!c.interface.empty(), "interface", "must be named");
  require(c.rx_size != 0 || c.tx_size != 0, "rx_size, tx_size", "at least one ring is needed");
  require(c.rx_size == 0 || std::has_single_bit(c.rx_size), "rx_size",
          std::to_string(c.rx_size) + " must be a power of two");
  require(c.tx_size == 0 || std::has_single_bit(c.tx_size), "tx_size",
          std::to_string(c.tx_size) + " must be a power of two");
  require(!c.busy_poll || c.busy_poll_budget > 0, "busy_poll_budget", "must be at least 1");
  require(!c.busy_poll || c.busy_poll_budget <= 65535, "busy_poll_budget",
          std::to_string(c.busy_poll_budget) + " must be at most 65535 (SO_BUSY_POLL_BUDGET)");
  require(!c.busy_poll || c.busy_poll_usecs <= 2147483647U, "busy_poll_usecs",
          std::to_string(c.busy_poll_usecs) +
              " must be at most 2147483647 (SO_BUSY_POLL takes an int)");
}

bool WakeStatus::transient() const noexcept {
  return error == 0 || error == EAGAIN || error == EBUSY || error == ENOBUFS || error == ENETDOWN ||
         error == EINTR;
}

std::string Socket::name() const { return config_.interface + ":" + std::to_string(config_.queue); }

Socket::Socket(Umem& umem, const SocketConfig& config) : umem_(&umem), config_(config) {
  validate(config_);
  ifindex_ = interface_index(config_.interface);
  const std::string context = config_.interface + " queue " + std::to_string(config_.queue);
  require_queue_exists(config_);
  // The first socket binds the Umem's own fd; others open their own and share the Umem.
  const bool shares = umem.bound_;
  const bool same_queue =
      shares && umem.bound_ifindex_ == ifindex_ && umem.bound_queue_ == config_.queue;
  open_fd(shares, same_queue, context);
  // Rings and bind. The first socket does this on the Umem's own fd, and the kernel cannot take
  // rings back off a socket: after a failed bind (zero-copy refused, say) that fd could never
  // bind again, so the Umem gets a fresh one and stays usable. Sharing sockets fail on their own
  // fd, which simply closes. Everything up to the end can fail after bind: a first socket then
  // hands the Umem a fresh fd, since its own, bound, would keep the queue (and the Umem) taken.
  try {
    make_rings(context);
    bind_socket(fd_, ifindex_, config_, shares ? umem.fd() : -1, context);
    const auto options =
        detail::get_option<xdp_options>(fd_, SOL_XDP, XDP_OPTIONS, "XDP_OPTIONS", context);
    zero_copy_ = (options.flags & XDP_OPTIONS_ZEROCOPY) != 0;
    if (config_.busy_poll) enable_busy_poll(fd_, config_, context);
  } catch (...) {
    if (!shares) {
      rx_ = {};
      tx_ = {};
      umem.reopen();
    }
    throw;
  }
  join_umem(shares, same_queue);
}

void Socket::open_fd(bool shares, bool same_queue, const std::string& context) {
  Umem& umem = *umem_;
  if (!shares) {
    if (!umem.fd_) umem.open_registered();  // an earlier reopen ran out of resources
    fd_ = umem.fd();
    return;
  }
  owned_fd_ = UniqueFd::socket(AF_XDP, SOCK_RAW, 0);
  fd_ = owned_fd_.get();
  if (!same_queue) {
    // Another queue or device needs fill and completion rings of its own.
    own_fill_.emplace();
    own_completion_.emplace();
    detail::make_umem_rings(fd_, umem.config().fill_size, umem.config().completion_size, context,
                            *own_fill_, *own_completion_);
  }
}

void Socket::make_rings(const std::string& context) {
  if (config_.rx_size != 0) {
    detail::set_option(fd_, SOL_XDP, XDP_RX_RING, config_.rx_size, "XDP_RX_RING", context);
  }
  if (config_.tx_size != 0) {
    detail::set_option(fd_, SOL_XDP, XDP_TX_RING, config_.tx_size, "XDP_TX_RING", context);
  }
  const xdp_mmap_offsets offsets = detail::mmap_offsets(fd_, context);
  if (config_.rx_size != 0) {
    rx_ = detail::map_ring<RxRing>(fd_, offsets.rx, config_.rx_size, sizeof(xdp_desc),
                                   XDP_PGOFF_RX_RING, "rx ring");
  }
  if (config_.tx_size != 0) {
    tx_ = detail::map_ring<TxRing>(fd_, offsets.tx, config_.tx_size, sizeof(xdp_desc),
                                   XDP_PGOFF_TX_RING, "tx ring");
  }
}

void Socket::join_umem(bool shares, bool same_queue) noexcept {
  Umem& umem = *umem_;
  if (!shares) {
    umem.bound_ = true;
    umem.bound_ifindex_ = ifindex_;
    umem.bound_queue_ = config_.queue;
  }
  if (!shares || same_queue) {
    home_ = true;
    ++umem.home_users_;
  }
}

Socket::Socket(Socket&& other) noexcept { take(other); }

Socket& Socket::operator=(Socket&& other) noexcept {
  if (this != &other) {
    release();
    take(other);
  }
  return *this;
}

Socket::~Socket() { release(); }

void Socket::release() noexcept {
  // Every mapping holds the socket's file: unmap them all, then close, so the kernel releases it.
  rx_ = {};
  tx_ = {};
  own_fill_.reset();
  own_completion_.reset();
  owned_fd_ = {};
  fd_ = -1;
  if (umem_ != nullptr && home_) umem_->leave_home();
  home_ = false;
}

void Socket::take(Socket& other) noexcept {
  umem_ = std::exchange(other.umem_, nullptr);
  config_ = std::move(other.config_);
  ifindex_ = other.ifindex_;
  owned_fd_ = std::move(other.owned_fd_);
  fd_ = std::exchange(other.fd_, -1);
  rx_ = std::move(other.rx_);
  tx_ = std::move(other.tx_);
  own_fill_ = std::move(other.own_fill_);
  own_completion_ = std::move(other.own_completion_);
  other.own_fill_.reset();
  other.own_completion_.reset();
  zero_copy_ = other.zero_copy_;
  home_ = std::exchange(other.home_, false);
}

WakeStatus Socket::wake_tx() noexcept {
  if (::sendto(fd_, nullptr, 0, MSG_DONTWAIT, nullptr, 0) >= 0) return {};
  return {errno};
}

WakeStatus Socket::wake_rx() noexcept {
  if (::recvfrom(fd_, nullptr, 0, MSG_DONTWAIT, nullptr, nullptr) >= 0) return {};
  return {errno};
}

int Socket::poll(short events, int timeout_ms) noexcept {
  pollfd entry{fd_, events, 0};
  const int rc = ::poll(&entry, 1, timeout_ms);
  if (rc < 0) return -errno;
  return rc == 0 ? 0 : entry.revents;
}

XdpStatistics Socket::statistics() const {
  const auto s =
      detail::get_option<xdp_statistics>(fd_, SOL_XDP, XDP_STATISTICS, "XDP_STATISTICS", name());
  return {s.rx_dropped,   s.rx_invalid_descs,         s.tx_invalid_descs,
          s.rx_ring_full, s.rx_fill_ring_empty_descs, s.tx_ring_empty_descs};
}

}  // namespace afxdp
