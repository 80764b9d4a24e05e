#include "latency/latency_loop.hpp"

#include "common/packet.hpp"
#include "latency/latency_probe.hpp"
#include "latency/udp_echo.hpp"

#include <afxdp/port.hpp>
#include <afxdp/xsk/interface.hpp>
#include <afxdp/xsk/unique_fd.hpp>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <poll.h>
#include <stdexcept>
#include <sys/socket.h>
#include <system_error>
#include <unistd.h>

namespace afxdp::tool {
namespace {

constexpr std::uint32_t headers = 42;  // Ethernet, IPv4, UDP: the probe follows
constexpr std::uint32_t burst = 64;    // most probes sent in one turn when behind the schedule

std::uint64_t cpu_ns() noexcept {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<std::uint64_t>(ts.tv_sec) * 1'000'000'000U +
         static_cast<std::uint64_t>(ts.tv_nsec);
}

// A UDP socket's wait: poll() on `fd` until it is readable or `until` (CLOCK_MONOTONIC ns)
// passed. Nanosecond timeouts: the next probe may be due in microseconds.
void wait_readable(int fd, std::uint64_t now, std::uint64_t until) {
  if (until <= now) return;
  const std::uint64_t left = until - now;
  const timespec timeout{static_cast<time_t>(left / 1'000'000'000U),
                         static_cast<long>(left % 1'000'000'000U)};
  pollfd p{fd, POLLIN, 0};
  ::ppoll(&p, 1, &timeout, nullptr);  // EINTR (a stop signal) is a wake-up like any other
}

void sleep_until(std::uint64_t until) {
  const timespec at{static_cast<time_t>(until / 1'000'000'000U),
                    static_cast<long>(until % 1'000'000'000U)};
  clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &at, nullptr);
}

// Probes through an AF_XDP socket: each frame built from a template (Ethernet, IPv4, UDP with no
// checksum, since the probe changes), the echoes read off the rx ring.
class XskLink {
 public:
  XskLink(Queue& queue, std::vector<std::uint8_t> frame, LatencyWait wait, std::string interface)
      : queue_(queue),
        frame_(std::move(frame)),
        wait_(wait),
        interface_(std::move(interface)),
        ifindex_(interface_index(interface_)) {}

  // Why no probe goes out: the interface gone, or the queue's error. (The interface check is
  // the tool's until Queue::error() reports a vanished interface itself.)
  [[nodiscard]] std::string problem() const {
    if (!interface_exists(ifindex_)) return interface_ + " is gone";
    if (queue_.error() != 0) return queue_.name() + ": " + std::strerror(queue_.error());
    return "the tx ring of " + queue_.name() + " takes no probe";
  }

  std::uint32_t send(ProbeBook& book, std::uint32_t n) {
    TxBatch batch = queue_.allocate(n);
    const auto size = static_cast<std::uint32_t>(frame_.size());
    for (std::uint32_t i = 0; i < batch.size(); ++i) {
      TxFrame f = batch[i];
      f.resize(size);
      std::memcpy(f.data().data(), frame_.data(), size);
      write_probe(f.data().data() + headers, book.next(i));
    }
    const std::uint32_t sent = batch.send();
    book.mark_sent(sent);
    queue_.flush();  // one probe is a batch of its own: kick now, not after four batches
    return sent;
  }

  std::uint32_t receive(ProbeBook& book) {
    return queue_.receive([&](Frames frames) {
      const std::uint64_t now = monotonic_ns();
      for (const Frame& f : frames) {
        const std::span<const std::byte> bytes = f.data();
        book.answer(bytes.size() > headers ? bytes.subspan(headers) : std::span<const std::byte>{},
                    now);
      }
    });
  }

  // Nothing arrived: receive() has already kicked tx and woken the fill ring if asked.
  void idle(std::uint64_t now, std::uint64_t until, bool waiting) {
    if (wait_ != LatencyWait::poll) {
      queue_.wait(std::chrono::milliseconds(0));  // spin: re-check, yield; busy-poll: recvfrom
    } else if (waiting) {
      // The library's wait: kicks what is unsent, re-checks a while, then poll() until `until`.
      if (until > now) queue_.wait(std::chrono::nanoseconds(until - now));
    } else {
      sleep_until(until);
    }
  }

 private:
  Queue& queue_;
  std::vector<std::uint8_t> frame_;
  LatencyWait wait_;
  std::string interface_;
  unsigned ifindex_;
};

// Probes through a UDP socket connected to the reflector: what an application without AF_XDP
// would do. A queued ICMP error (port unreachable) fails one call; it is not a reason to stop.
class UdpLink {
 public:
  [[nodiscard]] static std::string problem() { return "the socket takes no probe"; }

  UdpLink(const sockaddr_in& to, std::uint32_t payload, LatencyWait wait)
      : fd_(UniqueFd::socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0)),
        buffer_(std::max<std::uint32_t>(payload, 2048)),
        payload_(payload),
        wait_(wait) {
    if (::connect(fd_.get(), reinterpret_cast<const sockaddr*>(&to), sizeof to) != 0) {
      throw std::system_error(errno, std::generic_category(), "connect to " + endpoint_text(to));
    }
    for (std::uint32_t i = probe_bytes; i < payload_; ++i) buffer_[i] = static_cast<std::byte>(i);
  }

  std::uint32_t send(ProbeBook& book, std::uint32_t n) {
    std::uint32_t sent = 0;
    while (sent < n) {
      write_probe(buffer_.data(), book.next());
      ssize_t rc = ::send(fd_.get(), buffer_.data(), payload_, 0);
      if (rc < 0 && errno == ECONNREFUSED) rc = ::send(fd_.get(), buffer_.data(), payload_, 0);
      if (rc < 0) {
        if (errno == EAGAIN || errno == ENOBUFS || errno == ECONNREFUSED) break;  // later
        throw std::system_error(errno, std::generic_category(), "send");
      }
      book.mark_sent(1);
      ++sent;
    }
    return sent;
  }

  std::uint32_t receive(ProbeBook& book) {
    std::uint32_t n = 0;
    while (n < burst) {
      const ssize_t rc = ::recv(fd_.get(), buffer_.data(), buffer_.size(), MSG_DONTWAIT);
      if (rc < 0) {
        if (errno == ECONNREFUSED || errno == EINTR) continue;
        if (errno == EAGAIN) break;
        throw std::system_error(errno, std::generic_category(), "recv");
      }
      book.answer(std::span<const std::byte>(buffer_.data(), static_cast<std::size_t>(rc)),
                  monotonic_ns());
      ++n;
    }
    return n;
  }

  void idle(std::uint64_t now, std::uint64_t until, bool waiting) {
    if (wait_ == LatencyWait::spin) return;  // the next recv() is the spin
    if (waiting) {
      wait_readable(fd_.get(), now, until);
    } else {
      sleep_until(until);
    }
  }

 private:
  UniqueFd fd_;
  std::vector<std::byte> buffer_;
  std::uint32_t payload_;
  LatencyWait wait_;
};

std::uint32_t run_id() {
  return static_cast<std::uint32_t>(monotonic_ns() ^
                                    (static_cast<std::uint64_t>(::getpid()) << 20));
}

// No probe could be sent for --timeout (the link went away, or the tx ring takes nothing): one
// line with the reason, instead of retrying at full speed for ever.
[[noreturn]] void throw_stalled(const LatencyOptions& o, const std::string& problem,
                                const std::string& where, const ProbeBook& book) {
  char seconds[32];
  std::snprintf(seconds, sizeof seconds, "%g", o.timeout);
  throw std::runtime_error("no probe could be sent " + where + " for " + seconds +
                           " s: " + problem + " (" + std::to_string(book.sent()) + " sent, " +
                           std::to_string(book.received()) + " answered)");
}

// Send -C probes on the rate's schedule (absolute: a late turn catches up, at most `burst` at a
// time), read echoes, and stop when all are answered or --timeout passed since the last probe.
template <class Link>
LatencyResult measure(Link& link, const LatencyOptions& o, const SignalStop& signals,
                      const std::string& where) {
  ProbeBook book(run_id(), static_cast<std::uint32_t>(o.count));
  const auto timeout = static_cast<std::uint64_t>(o.timeout * 1e9);
  const auto due = [&](std::uint64_t k) {
    return static_cast<std::uint64_t>(static_cast<double>(k) * 1e9 / o.rate);
  };
  const std::uint64_t cpu_start = cpu_ns();
  const std::uint64_t start = monotonic_ns();
  std::uint64_t first_send = 0;
  std::uint64_t last_send = start;
  std::uint64_t stalled_since = 0;  // when a due send first took nothing; 0 while they go out
  bool sending = true;
  for (;;) {
    std::uint64_t now = monotonic_ns();
    if (sending && (signals.requested() || book.sent() == book.count())) sending = false;
    if (sending && now >= start + due(book.sent())) {
      // Probes due by now, up to a burst.
      const auto behind =
          static_cast<std::uint64_t>(static_cast<double>(now - start) * o.rate / 1e9) + 1;
      const std::uint64_t n = std::min<std::uint64_t>(
          {behind > book.sent() ? behind - book.sent() : 1, burst, book.count() - book.sent()});
      if (link.send(book, static_cast<std::uint32_t>(n)) != 0) {
        last_send = monotonic_ns();
        if (first_send == 0) first_send = last_send;
        stalled_since = 0;
      } else if (stalled_since == 0) {
        stalled_since = now;
      } else if (now - stalled_since >= timeout) {
        throw_stalled(o, link.problem(), where, book);
      }
    }
    const std::uint32_t got = link.receive(book);
    now = monotonic_ns();
    const bool silent = book.received() == 0 && first_send != 0;
    if (silent && now - first_send >= timeout) {
      char seconds[32];
      std::snprintf(seconds, sizeof seconds, "%g", o.timeout);
      throw std::runtime_error("no reply from the reflector " + where + " within " + seconds +
                               " s (" + std::to_string(book.sent()) + " probes sent)");
    }
    if (!sending && (book.outstanding() == 0 || now - last_send >= timeout)) break;
    if (got != 0) continue;
    std::uint64_t until = sending ? start + due(book.sent()) : last_send + timeout;
    if (silent) until = std::min(until, first_send + timeout);
    link.idle(now, until, book.outstanding() != 0);
  }
  LatencyResult r;
  r.wait = latency_wait_name(o.wait);
  r.rate = o.rate;
  r.size = o.size;
  r.sent = book.sent();
  r.received = book.received();
  r.duplicates = book.duplicates();
  r.strays = book.strays();
  r.seconds = static_cast<double>(monotonic_ns() - start) / 1e9;
  r.cpu_seconds = static_cast<double>(cpu_ns() - cpu_start) / 1e9;
  if (r.sent == 0) throw std::runtime_error("stopped before the first probe was sent");
  r.round_trips = summarize(book.round_trips_ns());
  r.buckets = histogram(book.round_trips_ns());
  return r;
}

std::vector<std::uint8_t> probe_frame(const LatencyOptions& o) {
  UdpFrameSpec spec;
  if (o.dst_mac) {
    spec.dst_mac = *o.dst_mac;
  } else {
    spec.dst_mac.fill(0xFF);  // broadcast: any reflector's interface takes it
  }
  const auto own = mac_address(o.interface);
  std::copy(own.begin(), own.end(), spec.src_mac.begin());
  spec.src_ip = 0xC0000201;  // 192.0.2.1 -> 192.0.2.2 (TEST-NET-1), port 7 (echo)
  spec.dst_ip = 0xC0000202;
  spec.src_port = 1024;
  spec.dst_port = 7;
  spec.size = o.size;
  std::vector<std::uint8_t> frame(o.size);
  build_udp_frame(spec, frame);
  frame[40] = frame[41] = 0;  // no UDP checksum: the probe's bytes change with every frame
  return frame;
}

}  // namespace

LatencyResult measure_xsk(const LatencyOptions& o, const SignalStop& signals) {
  interface_index(o.interface);  // "interface X does not exist", not a failed MAC query
  std::vector<std::uint8_t> frame = probe_frame(o);
  // A named config, not a braced temporary: g++ 12 with Debian's hardening flags warns that the
  // temporary's strings may be used uninitialized (-Wmaybe-uninitialized, a false positive).
  PortConfig config;
  config.queues = {o.queue};
  config.bind = o.skb ? BindMode::skb : BindMode::automatic;
  config.attach = o.skb ? AttachMode::skb : AttachMode::native;
  config.busy_poll = o.wait == LatencyWait::busy_poll;
  config.spin_before_sleep = std::chrono::nanoseconds(std::llround(o.spin_us * 1000));
  config.steer = o.steer;
  Port port = Port::open(o.interface, config);
  Queue& queue = port.queues().front();
  XskLink link(queue, std::move(frame), o.wait, o.interface);
  LatencyResult r = measure(link, o, signals, "on " + o.interface);
  r.transport = "af_xdp";
  r.path = queue.name() + (o.skb ? " (xdp-skb, " : " (xdp-drv, ") +
           (port.zero_copy() ? "zero-copy)" : "copy mode)");
  r.steering = port.steering().list();
  return r;
}

LatencyResult measure_udp(const LatencyOptions& o, const SignalStop& signals) {
  UdpLink link(*o.udp, o.size - headers, o.wait);
  LatencyResult r = measure(link, o, signals, "at " + endpoint_text(*o.udp));
  r.transport = "udp";
  r.path = endpoint_text(*o.udp);
  return r;
}

}  // namespace afxdp::tool
