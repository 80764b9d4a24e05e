// An AF_XDP socket bound to one (interface, rx queue), with its rx and tx rings.
//
// Threading: one thread owns a socket's rings (rx, tx, and the fill/completion rings it uses).
// Sockets that share one queue also share that queue's fill and completion rings, so one thread
// drives them all.
#pragma once

#include <afxdp/rings/ring.hpp>
#include <afxdp/xsk/statistics.hpp>
#include <afxdp/xsk/umem.hpp>
#include <afxdp/xsk/unique_fd.hpp>

#include <cstdint>
#include <optional>
#include <string>

namespace afxdp {

enum class BindMode {
  skb,               // copy mode, for the program attached in skb (generic) mode
  native_copy,       // copy mode, for the program attached in native (driver) mode
  native_zero_copy,  // XDP_ZEROCOPY: refused by drivers without it (veth)
  automatic,         // zero-copy when the driver has it, else copy
};

struct SocketConfig {
  std::string interface;
  std::uint32_t queue = 0;
  BindMode mode = BindMode::automatic;
  bool need_wakeup = true;  // XDP_USE_NEED_WAKEUP
  // XDP_USE_SG (Linux 6.6+): a packet larger than a frame arrives (and may be sent) as a chain of
  // descriptors, each but the last marked XDP_PKT_CONTD. A socket sharing a UMEM takes this from
  // the UMEM's first socket: the kernel refuses the flag alongside XDP_SHARED_UMEM.
  bool multi_buffer = false;
  std::uint32_t rx_size = 2048;  // entries, a power of two; 0: no rx ring
  std::uint32_t tx_size = 2048;  // entries, a power of two; 0: no tx ring
  // Busy polling (SO_PREFER_BUSY_POLL, SO_BUSY_POLL in microseconds, SO_BUSY_POLL_BUDGET).
  bool busy_poll = false;
  std::uint32_t busy_poll_usecs = 20;   // 0..2147483647 (SO_BUSY_POLL takes an int)
  std::uint32_t busy_poll_budget = 64;  // 1..65535 (the kernel's limit on SO_BUSY_POLL_BUDGET)
};

// Throws afxdp::ConfigError naming the field and the rule; needs no kernel.
void validate(const SocketConfig& config);

// The outcome of a wake-up syscall. Data-path calls never throw: EAGAIN, EBUSY, ENOBUFS,
// ENETDOWN and EINTR are ordinary outcomes (the kernel is busy, the link is down, a handled
// signal cut a poll() short); others, such as ENXIO when the interface vanished, are returned
// for the caller to act on.
struct WakeStatus {
  int error = 0;  // errno, 0 on success
  [[nodiscard]] bool ok() const noexcept { return error == 0; }
  [[nodiscard]] bool transient() const noexcept;  // ok, or one of the expected errors above
};

class Socket {
 public:
  // The first socket on a Umem binds the Umem's own fd and uses its fill/completion rings.
  // Later sockets share the Umem (XDP_SHARED_UMEM): on the first socket's (interface, queue) they
  // share its fill/completion rings too; on any other they get their own.
  // Destroying a Socket releases its kernel socket, which leaves the XSKMAPs it was in, so its
  // queue falls back to the program's default action. The one exception: the first socket's
  // kernel socket also carries the fill/completion rings of the sockets sharing its queue, so it
  // is released with the last of them. A constructor that throws leaves nothing bound.
  Socket(Umem& umem, const SocketConfig& config);
  Socket(Socket&& other) noexcept;
  Socket& operator=(Socket&& other) noexcept;
  Socket(const Socket&) = delete;
  Socket& operator=(const Socket&) = delete;
  ~Socket();

  RxRing& rx() noexcept { return rx_.ring; }
  TxRing& tx() noexcept { return tx_.ring; }
  FillRing& fill() noexcept { return own_fill_ ? own_fill_->ring : umem_->fill(); }
  CompletionRing& completion() noexcept {
    return own_completion_ ? own_completion_->ring : umem_->completion();
  }
  Umem& umem() noexcept { return *umem_; }

  [[nodiscard]] int fd() const noexcept { return fd_; }
  [[nodiscard]] const SocketConfig& config() const noexcept { return config_; }
  [[nodiscard]] unsigned ifindex() const noexcept { return ifindex_; }
  // XDP_OPTIONS, read after bind.
  [[nodiscard]] bool zero_copy() const noexcept { return zero_copy_; }
  // "veth0:3", for messages.
  [[nodiscard]] std::string name() const;

  // Kick the kernel to send what is on the tx ring: sendto(MSG_DONTWAIT).
  WakeStatus wake_tx() noexcept;
  // Kick the kernel to look at the fill ring / receive: recvfrom(MSG_DONTWAIT).
  WakeStatus wake_rx() noexcept;
  // poll(2) for `events` (POLLIN, POLLOUT); returns the revents, 0 on timeout, -errno on error.
  int poll(short events, int timeout_ms) noexcept;

  [[nodiscard]] XdpStatistics statistics() const;

 private:
  // The constructor's steps: the fd (and, sharing another queue, its own fill/completion rings),
  // the rx/tx rings, and, once bound, the Umem's bookkeeping.
  void open_fd(bool shares, bool same_queue, const std::string& context);
  void make_rings(const std::string& context);
  void join_umem(bool shares, bool same_queue) noexcept;
  void release() noexcept;
  void take(Socket& other) noexcept;

  Umem* umem_ = nullptr;
  SocketConfig config_;
  unsigned ifindex_ = 0;
  // The fd is the Umem's own for the first socket, else ours: owned_fd_ holds ours.
  UniqueFd owned_fd_;
  int fd_ = -1;
  MappedRing<RxRing> rx_;
  MappedRing<TxRing> tx_;
  std::optional<MappedRing<FillRing>> own_fill_;
  std::optional<MappedRing<CompletionRing>> own_completion_;
  bool zero_copy_ = false;
  // Uses the Umem's own fill/completion rings (the first socket, or one sharing its queue).
  bool home_ = false;
};

}  // namespace afxdp
