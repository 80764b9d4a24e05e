#include "xsk/txpush.hpp"

#include "common/frame_fit.hpp"
#include "common/packet.hpp"
#include "common/pcap.hpp"
#include "common/require.hpp"

#include <afxdp/xsk/interface.hpp>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <limits>
#include <memory>
#include <stdexcept>
#include <thread>

namespace afxdp::tool {
namespace {

using Clock = std::chrono::steady_clock;

// A capture is held once, whatever the queue count; more than this is refused.
constexpr std::uint64_t max_capture_bytes = std::uint64_t{1} << 30;

// --rate: tokens accrue at `rate` per second up to one batch, so bursts stay small.
class TokenBucket {
 public:
  TokenBucket(double rate, std::uint32_t burst) : rate_(rate), burst_(burst), last_(Clock::now()) {}
  [[nodiscard]] bool limited() const noexcept { return rate_ > 0; }
  // Packets that may go now (at most `wanted`).
  std::uint32_t available(std::uint32_t wanted) noexcept {
    const auto now = Clock::now();
    tokens_ = std::min<double>(
        burst_, tokens_ + rate_ * std::chrono::duration<double>(now - last_).count());
    last_ = now;
    return std::min(wanted, static_cast<std::uint32_t>(tokens_));
  }
  void spend(std::uint32_t n) noexcept { tokens_ -= n; }
  // How long until one more packet may go.
  [[nodiscard]] std::chrono::duration<double> until_next() const noexcept {
    return std::chrono::duration<double>(tokens_ >= 1 ? 0.0 : (1.0 - tokens_) / rate_);
  }

 private:
  double rate_;
  double burst_;
  double tokens_ = 0;
  Clock::time_point last_;
};

// --pcap: the capture's frames, each checked to fit a UMEM frame.
void read_replay(const XskOptions& o, TxFrames& frames) {
  frames.replay = read_pcap(o.pcap_file, max_capture_bytes);
  if (frames.replay.empty())
    throw std::invalid_argument("--pcap " + o.pcap_file + ": holds no frames");
  for (std::size_t i = 0; i < frames.replay.size(); ++i) {
    const std::size_t size = frames.replay[i].size();
    if (size < 14 || size > o.frame_size) {
      throw std::invalid_argument("--pcap " + o.pcap_file + ", frame " + std::to_string(i + 1) +
                                  ": " + std::to_string(size) + " bytes; frames here are 14 to " +
                                  std::to_string(o.frame_size) + " (-f) bytes");
    }
  }
  // --loop 0 is no end, and so is a count too large to hold (it would wrap).
  const std::uint64_t size = frames.replay.size();
  frames.replay_total = o.loop == 0 || o.loop > std::numeric_limits<std::uint64_t>::max() / size
                            ? std::numeric_limits<std::uint64_t>::max()
                            : size * o.loop;
}

}  // namespace

TxFrames tx_frames(const XskOptions& o) {
  TxFrames frames;
  if (!o.pcap_file.empty()) {
    read_replay(o, frames);
    return frames;
  }
  UdpFrameSpec spec;
  if (o.dst_mac) {
    spec.dst_mac = *o.dst_mac;
  } else {
    spec.dst_mac.fill(0xFF);  // broadcast: every receiver takes it
  }
  if (o.src_mac) {
    spec.src_mac = *o.src_mac;
  } else {
    interface_index(o.interface);  // "interface X does not exist", not a failed MAC query
    const auto own = mac_address(o.interface);
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
  frames.packet.resize(o.packet_size);
  build_udp_frame(spec, frames.packet);
  return frames;
}

namespace {

// Paced and idle: sleep until the bucket's next token rather than spin (short waits spin), then
// kick what is queued.
void idle_until_token(Queue& q, const TokenBucket& bucket) {
  const auto wait = bucket.until_next();
  if (wait > std::chrono::microseconds(50)) {
    std::this_thread::sleep_for(
        std::min<std::chrono::duration<double>>(wait, std::chrono::milliseconds(10)));
  }
  q.flush();
}

// -F with -s beyond a frame: each packet is a chain of frames, copied in per packet (each
// fragment holds other bytes, so they cannot be written once).
void txpush_chains_loop(Queue& q, const std::stop_token& stop, const QueueContext& c,
                        const std::vector<std::uint8_t>& packet) {
  const XskOptions& o = c.options;
  TokenBucket bucket(c.rate, o.batch);
  const auto size = static_cast<std::uint32_t>(packet.size());
  const std::uint32_t per_packet = (size + o.frame_size - 1) / o.frame_size;
  const std::uint32_t most = std::max<std::uint32_t>(1, max_batch / per_packet);
  while (!stop.stop_requested()) {
    std::uint32_t n = std::min(o.batch, most);
    if (bucket.limited()) n = bucket.available(n);
    n = c.budget.claim(n);
    if (n == 0) {
      if (c.budget.exhausted()) break;
      idle_until_token(q, bucket);
      continue;
    }
    TxBatch batch = q.allocate(n * per_packet);
    std::uint32_t sent = 0;
    while (sent < n && batch.size() >= per_packet) {
      for (std::uint32_t k = 0; k < per_packet; ++k) {
        TxFrame f = batch[k];
        const std::uint32_t at = k * o.frame_size;
        const std::uint32_t length = std::min(o.frame_size, size - at);
        f.resize(length);
        std::memcpy(f.data().data(), packet.data() + at, length);
      }
      if (batch.send_packet(per_packet) == 0) break;  // tx full: the rest go back to the pool
      ++sent;
    }
    c.budget.refund(n - sent);
    bucket.spend(sent);
    if (sent == 0) q.wait(c.idle_timeout);
  }
  if (!stop.stop_requested()) q.drain(std::chrono::seconds(5));
}

}  // namespace

void txpush_loop(Queue& q, const std::stop_token& stop, const QueueContext& c,
                 const TxFrames& frames) {
  const XskOptions& o = c.options;
  if (frames.replay.empty() && frames.packet.size() > o.frame_size) {
    return txpush_chains_loop(q, stop, c, frames.packet);
  }
  TokenBucket bucket(c.rate, o.batch);
  const bool replaying = !frames.replay.empty();
  const auto length = static_cast<std::uint32_t>(frames.packet.size());
  if (!replaying) {  // written once into every frame: the loop then only sets lengths
    q.for_each_free_frame(
        [&](Frame& f) { std::memcpy(f.data().data(), frames.packet.data(), length); });
  }
  std::uint64_t replayed = 0;
  while (!stop.stop_requested()) {
    std::uint32_t n = o.batch;
    if (replaying)
      n = static_cast<std::uint32_t>(std::min<std::uint64_t>(n, frames.replay_total - replayed));
    if (bucket.limited()) n = bucket.available(n);
    n = c.budget.claim(n);
    if (n == 0) {
      if (c.budget.exhausted() || (replaying && replayed == frames.replay_total)) break;
      idle_until_token(q, bucket);
      continue;
    }
    TxBatch batch = q.allocate(n);
    for (TxFrame f : batch) {
      if (!replaying) {
        f.resize(length);
        continue;
      }
      const auto& frame = frames.replay[replayed++ % frames.replay.size()];
      f.resize(static_cast<std::uint32_t>(frame.size()));
      std::memcpy(f.data().data(), frame.data(), frame.size());
    }
    const std::uint32_t sent = batch.send();
    // Not allocated, or not taken by the tx ring: neither is counted.
    c.budget.refund(n - sent);
    if (replaying) replayed -= batch.size();
    bucket.spend(sent);
    if (sent == 0) q.wait(c.idle_timeout);
  }
  // All sent (-C or the capture's end): the summary counts what the kernel completed.
  if (!stop.stop_requested()) q.drain(std::chrono::seconds(5));
}

Subcommand add_txpush_subcommand(CLI::App& parent) {
  auto options = std::make_shared<XskOptions>();
  CLI::App* app =
      add_xsk_subcommand(parent, *options, Benchmark::txpush,
                         "send UDP frames on each queue as fast as possible (or --rate)");
  return {app, [options] {
            // Before reading a capture of up to 1 GiB, or looking at the interface.
            require_privilege("txpush");
            if (options->pcap_file.empty()) {
              check_packet_fits_mtu(options->interface, options->packet_size, options->vlan);
            }
            const TxFrames frames = tx_frames(*options);
            return run_benchmark(
                *options, [&frames](Queue& q, const std::stop_token& stop, const QueueContext& c) {
                  txpush_loop(q, stop, c, frames);
                });
          }};
}

}  // namespace afxdp::tool
