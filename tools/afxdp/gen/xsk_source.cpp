#include "gen/xsk_source.hpp"

#include <afxdp/port.hpp>
#include <afxdp/xsk/interface.hpp>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace afxdp::tool {
namespace {

using Clock = std::chrono::steady_clock;

// A tx ring that takes no frame for this long (a link down, a driver stuck) ends gen with why.
constexpr std::chrono::seconds stall_timeout{5};

// How long a completion may take before gen gives up on the frames in flight (a link gone down).
constexpr std::chrono::seconds drain_timeout{5};

// Waits longer than this sleep; shorter ones spin (a sleep overshoots by tens of microseconds).
constexpr auto spin_below = std::chrono::microseconds(100);

PortConfig send_only(std::uint32_t queue) {
  PortConfig c;
  c.queues = {queue};
  c.receive = false;
  c.frames_per_queue = 4096;
  c.ring_size = 2048;
  return c;
}

}  // namespace

struct XskSource::State {
  const GenOptions& o;
  Port port;
  Queue& q;
  std::uint32_t length;
  unsigned ifindex;
  std::uint64_t tx_dropped_before;
  double measured_rate = 0;  // frames per second of the last unpaced call: sizes the next
};

XskSource::XskSource(const GenOptions& o, std::span<const std::uint8_t> frame, unsigned ifindex) {
  Port port = Port::open(o.interface, send_only(o.queue));
  Queue& q = port.queues().front();
  const auto length = static_cast<std::uint32_t>(frame.size());
  // Written once: a frame keeps its bytes while it goes round, so the loop only sets lengths.
  q.for_each_free_frame([&](Frame& f) { std::memcpy(f.data().data(), frame.data(), length); });
  const std::uint64_t dropped = interface_link(ifindex).tx_dropped;
  state_ = std::make_unique<State>(State{o, std::move(port), q, length, ifindex, dropped});
}

XskSource::XskSource(XskSource&&) noexcept = default;
XskSource::~XskSource() = default;

std::uint64_t XskSource::next_run(const Pace& pace) const {
  const double rate = pace.rate > 0 ? static_cast<double>(pace.rate) : state_->measured_rate;
  if (rate <= 0) return first_call;
  return frames_for_a_call(rate);
}

std::uint64_t XskSource::send(std::uint64_t n, const Pace& pace, const SignalStop& stop) {
  State& s = *state_;
  const std::uint64_t batch = s.o.batch_size;
  const auto start = Clock::now();
  auto progress = start;
  std::uint64_t done = 0;
  while (done < n) {
    std::uint64_t want = std::min(batch, n - done);
    if (pace.rate > 0) {
      // The frames due by now, at most a batch: a frame never leaves before its time.
      const std::uint64_t next = pace.sent + done;
      const auto now = Clock::now();
      const auto due_at = pace.due(next);
      if (now < due_at) {
        if (due_at - now > spin_below) {
          std::this_thread::sleep_for(due_at - now - spin_below / 2);
          if (stop.requested()) break;
        }
        continue;
      }
      const double elapsed = seconds(now - pace.start);
      const auto due_by_now =
          static_cast<std::uint64_t>(elapsed * static_cast<double>(pace.rate)) + 1;
      want = std::min(want, due_by_now > next ? due_by_now - next : 1);
    }
    TxBatch frames = s.q.allocate(static_cast<std::uint32_t>(want));
    for (TxFrame f : frames) f.resize(s.length);
    const std::uint32_t sent = frames.send();
    done += sent;
    // Paced: out now (the Queue would kick only once a few batches are on the ring).
    if (pace.rate > 0) s.q.flush();
    if (sent == want) {
      progress = Clock::now();
      continue;
    }
    // The ring or the pool is full: kick, collect completions, give the CPU away briefly. A
    // link gone, or a ring that stopped moving, ends the run with why; so does a stop signal.
    if (sent != 0) progress = Clock::now();
    s.q.wait(std::chrono::nanoseconds::zero());
    if (stop.requested()) break;
    if (s.q.interface_gone() || Clock::now() - progress > stall_timeout) {
      const std::string why = s.q.error() != 0 ? s.q.error_message()
                                               : "no frame went out for " +
                                                     std::to_string(stall_timeout.count()) + " s";
      throw std::runtime_error(s.q.name() + ": " + why);
    }
  }
  s.q.flush();
  const double took = seconds(Clock::now() - start);
  if (pace.rate == 0 && took > 0) s.measured_rate = static_cast<double>(done) / took;
  return done;
}

std::uint64_t XskSource::finish() {
  State& s = *state_;
  if (!s.q.drain(drain_timeout)) {
    throw std::runtime_error(s.q.name() + ": " + std::to_string(s.q.in_flight()) +
                             " frames not completed after " +
                             std::to_string(drain_timeout.count()) + " s");
  }
  return interface_link(s.ifindex).tx_dropped - s.tx_dropped_before;
}

}  // namespace afxdp::tool
