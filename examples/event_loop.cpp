// event_loop: every queue of a Port served from one epoll loop that also serves a timer (stats
// once a second) and a control socket (a datagram "stop" ends it): one thread, none per queue.
// The same shape fits io_uring or Asio: a queue's fd() turns readable when its rx ring has frames.
#include "private_network.hpp"  // the set-up: a veth pair of its own and a peer that sends

#include <afxdp/error.hpp>
#include <afxdp/port.hpp>
#include <afxdp/xsk/unique_fd.hpp>

#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <span>
#include <string_view>

using namespace std::chrono_literals;

namespace {

void watch(int loop, int fd, std::uint64_t tag) {  // fd readable, reported with tag
  epoll_event e{.events = EPOLLIN, .data = {.u64 = tag}};
  if (::epoll_ctl(loop, EPOLL_CTL_ADD, fd, &e) != 0) afxdp::throw_errno(errno, "epoll_ctl");
}

afxdp::UniqueFd every_second() {
  afxdp::UniqueFd timer =
      afxdp::UniqueFd::adopt(::timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC), "timerfd_create");
  const itimerspec period{.it_interval = {1, 0}, .it_value = {1, 0}};
  if (::timerfd_settime(timer.get(), 0, &period, nullptr) != 0) {
    afxdp::throw_errno(errno, "timerfd_settime");
  }
  return timer;
}

std::uint64_t received(std::span<afxdp::Queue> queues) {  // stats() may be read from any thread
  std::uint64_t n = 0;
  for (const afxdp::Queue& q : queues) n += q.stats().received;
  return n;
}

// What the loop serves besides the queues (tags 0..n-1): the timer and the control socket.
struct Others {
  int timer;
  int control;
  std::uint64_t timer_tag;
  std::atomic<std::uint64_t>& ticks;
};

// One event; false once the control socket said "stop".
bool serve_event(std::uint64_t tag, std::span<afxdp::Queue> queues, const Others& o) {
  if (tag < o.timer_tag) {
    // Until the ring is empty: epoll says "ready", not how much. The call that finds rx empty
    // also kicks what a handler sent back and wakes the fill ring, so nothing waits unseen.
    const auto count = [](afxdp::Frame&) { return afxdp::Verdict::drop; };  // stats() counts
    while (queues[tag].serve(count) != 0) {
    }
  } else if (tag == o.timer_tag) {
    std::uint64_t expired = 0;
    if (::read(o.timer, &expired, sizeof expired) != sizeof expired) return true;
    for (const afxdp::Queue& q : queues) {
      std::printf("event_loop: %s received %llu frames\n", q.name().c_str(),
                  static_cast<unsigned long long>(q.stats().received));
    }
    ++o.ticks;
  } else {
    std::array<char, 64> command;
    const ssize_t size = ::recv(o.control, command.data(), command.size(), 0);
    return !(size > 0 &&
             std::string_view(command.data(), static_cast<std::size_t>(size)) == "stop");
  }
  return true;
}

}  // namespace

int main() try {
  example::Network net("event_loop", {.queues = 2});
  auto port = afxdp::Port::open(net.interface());  // every rx queue, the redirect program
  example::Sender peer(net, 2, 1000);              // 1000 frames from each CPU, into the far end

  const afxdp::UniqueFd loop = afxdp::UniqueFd::adopt(::epoll_create1(EPOLL_CLOEXEC), "epoll");
  const std::uint64_t timer_tag = port.queues().size(), control_tag = timer_tag + 1;
  for (std::size_t i = 0; i < port.queues().size(); ++i) {
    watch(loop.get(), port.queues()[i].fd(), i);
  }
  const afxdp::UniqueFd timer = every_second();
  watch(loop.get(), timer.get(), timer_tag);
  int ends[2];  // the control socket: the loop reads ends[0], the operator writes ends[1]
  if (::socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, ends) != 0)
    afxdp::throw_errno(errno, "socketpair");
  const afxdp::UniqueFd control = afxdp::UniqueFd::adopt(ends[0], "socketpair");
  const afxdp::UniqueFd operator_end = afxdp::UniqueFd::adopt(ends[1], "socketpair");
  watch(loop.get(), control.get(), control_tag);

  std::atomic<std::uint64_t> ticks{0};
  // Someone else's "stop", once every frame is in and the stats were printed at least once.
  example::Operator stop(operator_end.get(), "stop",
                         [&] { return peer.done(received(port.queues())) && ticks > 0; });
  const Others others{timer.get(), control.get(), timer_tag, ticks};
  for (bool running = true; running;) {
    std::array<epoll_event, 8> events;
    const int n = ::epoll_wait(loop.get(), events.data(), static_cast<int>(events.size()), -1);
    if (n < 0 && errno != EINTR) afxdp::throw_errno(errno, "epoll_wait");
    // After "stop" the round ends: the queues' events in it are served.
    for (const epoll_event& event :
         std::span(events).first(n < 0 ? 0 : static_cast<std::size_t>(n))) {
      running = serve_event(event.data.u64, port.queues(), others) && running;
    }
  }
  return peer.passed(port, received(port.queues()), "event_loop") ? 0 : 1;
} catch (const std::exception& e) {
  std::fprintf(stderr, "event_loop: %s\n", e.what());
  return 1;
}
