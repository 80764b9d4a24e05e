#include "txpush.hpp"

#include "packet.hpp"
#include "pcap.hpp"
#include "tx_budget.hpp"

#include <afxdp/frame_pool.hpp>
#include <lab.hpp>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <memory>
#include <poll.h>
#include <stdexcept>
#include <thread>

namespace afxdp::tool {
namespace {

using Clock = std::chrono::steady_clock;

// Frames a txpush queue keeps in flight: its share of the UMEM, at most a tx ring's worth.
std::uint32_t tx_frames(const Worker& w) { return std::min(w.frames, w.socket->tx().size()); }

// --rate: tokens accrue at `rate` per second up to one batch, so bursts stay small.
class TokenBucket {
 public:
  TokenBucket(double rate, std::uint32_t burst) : rate_(rate), burst_(burst), last_(Clock::now()) {}
  bool limited() const noexcept { return rate_ > 0; }
  // Packets that may go now (at most `wanted`).
  std::uint32_t available(std::uint32_t wanted) noexcept {
    const auto now = Clock::now();
    tokens_ = std::min<double>(burst_, tokens_ + rate_ * std::chrono::duration<double>(now - last_).count());
    last_ = now;
    return std::min(wanted, static_cast<std::uint32_t>(tokens_));
  }
  void spend(std::uint32_t n) noexcept { tokens_ -= n; }
  // How long until one more packet may go.
  std::chrono::duration<double> until_next() const noexcept {
    return std::chrono::duration<double>(tokens_ >= 1 ? 0.0 : (1.0 - tokens_) / rate_);
  }

 private:
  double rate_;
  double burst_;
  double tokens_ = 0;
  Clock::time_point last_;
};

// --pcap: the capture's frames, each checked to fit a UMEM frame; the loop copies them in.
void prepare_replay(Worker& w) {
  const BenchOptions& o = *w.options;
  w.replay = read_pcap(o.pcap_file);
  if (w.replay.empty()) throw std::invalid_argument("--pcap " + o.pcap_file + ": holds no frames");
  for (std::size_t i = 0; i < w.replay.size(); ++i) {
    const std::size_t size = w.replay[i].size();
    if (size < 14 || size > o.frame_size) {
      throw std::invalid_argument("--pcap " + o.pcap_file + ", frame " + std::to_string(i + 1) +
                                  ": " + std::to_string(size) + " bytes; frames here are 14 to " +
                                  std::to_string(o.frame_size) + " (-f) bytes");
    }
  }
}

}  // namespace

void txpush_prepare(Worker& w) {
  const BenchOptions& o = *w.options;
  raise_tx_budget(*w.socket);
  if (!o.pcap_file.empty()) return prepare_replay(w);
  UdpFrameSpec spec;
  if (o.dst_mac) {
    spec.dst_mac = *o.dst_mac;
  } else {
    spec.dst_mac.fill(0xFF);  // broadcast: every receiver takes it
  }
  if (o.src_mac) {
    spec.src_mac = *o.src_mac;
  } else {
    const auto own = lab::mac_address(o.interface);
    std::copy(own.begin(), own.end(), spec.src_mac.begin());
  }
  spec.vlan = o.vlan;
  spec.vlan_id = static_cast<std::uint16_t>(o.vlan_id);
  spec.vlan_priority = static_cast<std::uint8_t>(o.vlan_priority);
  spec.src_ip = o.src_ip;
  spec.dst_ip = o.dst_ip;
  spec.src_port = static_cast<std::uint16_t>(o.src_port);
  spec.dst_port = static_cast<std::uint16_t>(o.dst_port);
  spec.size = o.packet_size;
  w.packet.resize(o.packet_size);
  build_udp_frame(spec, w.packet);
  // Once, here: the loop only recycles descriptors.
  for (std::uint32_t i = 0; i < tx_frames(w); ++i) {
    std::memcpy(w.umem->data(w.first_addr + std::uint64_t{i} * w.frame_size), w.packet.data(),
                w.packet.size());
  }
}

void txpush_loop(Worker& w) {
  const BenchOptions& o = *w.options;
  TxRing& tx = w.socket->tx();
  CompletionRing& completion = w.socket->completion();
  // Offsets within this queue's share; first_addr places them in the (possibly shared) UMEM.
  FramePool pool(tx_frames(w), w.frame_size);
  const std::uint32_t length = static_cast<std::uint32_t>(w.packet.size());
  TokenBucket bucket(w.rate, o.batch);
  std::uint64_t in_flight = 0;  // submitted, not yet completed
  // --pcap: frames go out in the capture's order, --loop times (0: no end), copied in as sent.
  const std::uint64_t replay_total = o.loop == 0 ? UINT64_MAX : w.replay.size() * o.loop;
  std::uint64_t replayed = 0;

  while (!w.stopping()) {
    // Completions first, on every turn: waiting until the tx ring is full stalls the sender.
    // All that is there, not one batch: completions arrive in the kernel's (larger) batches.
    const std::uint32_t done = completion.peek(completion.size());
    for (std::uint32_t i = 0; i < done; ++i) {
      pool.give(w.frame_of(completion.at(i)) - w.first_addr);
      w.record(completion.at(i), FramePlace::tx, FramePlace::free);
    }
    completion.release(done);
    in_flight -= done;
    Counters::add(w.counters->tx, done);

    std::uint32_t n = std::min(o.batch, pool.available());
    if (!w.replay.empty()) {
      n = static_cast<std::uint32_t>(std::min<std::uint64_t>(n, replay_total - replayed));
    }
    if (bucket.limited()) n = bucket.available(n);
    n = w.budget->claim(n);
    const bool replay_done = !w.replay.empty() && replayed == replay_total;
    if (n == 0 && in_flight == 0 && (w.budget->exhausted() || replay_done)) return;  // all sent
    const bool submitted = n != 0 && tx.reserve(n) == n;
    if (submitted) {
      for (std::uint32_t i = 0; i < n; ++i) {
        const std::uint64_t addr = w.first_addr + pool.take();
        w.record(addr, FramePlace::free, FramePlace::tx);
        if (w.replay.empty()) {
          tx.at(i) = xdp_desc{addr, length, 0};
          continue;
        }
        const auto& frame = w.replay[replayed++ % w.replay.size()];
        tx.at(i) = xdp_desc{addr, static_cast<std::uint32_t>(frame.size()), 0};
        std::memcpy(w.umem->packet(tx.at(i)).data(), frame.data(), frame.size());
      }
      tx.submit(n);
      in_flight += n;
      bucket.spend(n);
    } else {
      w.budget->refund(n);
      if (done == 0) Counters::add(w.counters->empty_polls, 1);
    }

    // The kernel sends what is on the tx ring when woken (copy mode: only then). With -p, the
    // kick is still a sendto(); poll() is for waiting, so it comes only on a turn that could do
    // nothing (no completion came, nothing could be sent): poll() kicks the kernel too, and
    // as each turn's kick it cost 7-14 % (docs/benchmarks.md).
    const bool waiting = !submitted && done == 0 && in_flight != 0;  // only completions can come
    if (o.use_poll && waiting) {
      if (!w.poll(POLLOUT)) return;
    } else if (tx.outstanding() != 0 && (o.no_need_wakeup || tx.needs_wakeup())) {
      if (!w.wake_tx()) return;
    }
    if (bucket.limited() && n == 0 && done == 0) {
      // Paced and idle: sleep until the next token rather than spin (short waits spin).
      const auto wait = bucket.until_next();
      if (wait > std::chrono::microseconds(50)) {
        std::this_thread::sleep_for(std::min<std::chrono::duration<double>>(wait, std::chrono::milliseconds(10)));
      }
    }
  }
}

Command add_txpush(CLI::App& parent) {
  auto options = std::make_shared<BenchOptions>();
  CLI::App* app = add_bench_subcommand(parent, *options, Benchmark::txpush,
                                       "send UDP frames on each queue as fast as possible (or --rate)");
  return {app, [options] { return run_benchmark(*options, {txpush_prepare, txpush_loop}); }};
}

}  // namespace afxdp::tool
