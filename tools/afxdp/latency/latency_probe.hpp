// What `afxdp latency` sends and reads back: a probe of 20 bytes at the start of the UDP payload
// (a magic word, the run's id, the sequence number, the CLOCK_MONOTONIC time it left), and the
// bookkeeping that matches each echo to the probe it answers. An echo counts once, and only when
// run and sequence name a probe sent and not answered yet; the rest are strays or duplicates.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <ctime>
#include <optional>
#include <span>
#include <vector>

namespace afxdp::tool {

inline constexpr std::uint32_t probe_magic = 0x544C5841;  // "AXLT" in memory on little endian
inline constexpr std::size_t probe_bytes = 20;

struct Probe {
  std::uint32_t run = 0;
  std::uint32_t sequence = 0;
  std::uint64_t sent_ns = 0;
};

inline std::uint64_t monotonic_ns() noexcept {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<std::uint64_t>(ts.tv_sec) * 1'000'000'000U +
         static_cast<std::uint64_t>(ts.tv_nsec);
}

// `payload` holds at least probe_bytes. Host byte order: only this program reads it back.
inline void write_probe(std::byte* payload, const Probe& probe) noexcept {
  std::memcpy(payload, &probe_magic, 4);
  std::memcpy(payload + 4, &probe.run, 4);
  std::memcpy(payload + 8, &probe.sequence, 4);
  std::memcpy(payload + 12, &probe.sent_ns, 8);
}

inline std::optional<Probe> read_probe(std::span<const std::byte> payload) noexcept {
  std::uint32_t magic = 0;
  if (payload.size() < probe_bytes) return std::nullopt;
  std::memcpy(&magic, payload.data(), 4);
  if (magic != probe_magic) return std::nullopt;
  Probe probe;
  std::memcpy(&probe.run, payload.data() + 4, 4);
  std::memcpy(&probe.sequence, payload.data() + 8, 4);
  std::memcpy(&probe.sent_ns, payload.data() + 12, 8);
  return probe;
}

// One run's probes: which were sent, which answered, and the round trips measured.
class ProbeBook {
 public:
  ProbeBook(std::uint32_t run, std::uint32_t count) : run_(run), state_(count, unsent) {
    round_trips_ns_.reserve(count);
  }

  [[nodiscard]] std::uint32_t run() const noexcept { return run_; }
  [[nodiscard]] std::uint32_t count() const noexcept {
    return static_cast<std::uint32_t>(state_.size());
  }
  [[nodiscard]] std::uint32_t sent() const noexcept { return sent_; }
  [[nodiscard]] std::uint64_t received() const noexcept { return round_trips_ns_.size(); }
  [[nodiscard]] std::uint64_t outstanding() const noexcept {
    return sent_ - round_trips_ns_.size();
  }
  [[nodiscard]] std::uint64_t duplicates() const noexcept { return duplicates_; }
  [[nodiscard]] std::uint64_t strays() const noexcept { return strays_; }
  std::vector<std::uint64_t>& round_trips_ns() noexcept { return round_trips_ns_; }

  // The i-th probe after those sent, stamped now; mark_sent() once it is on its way.
  [[nodiscard]] Probe next(std::uint32_t i = 0) const noexcept {
    return {run_, sent_ + i, monotonic_ns()};
  }
  void mark_sent(std::uint32_t n) noexcept {
    for (std::uint32_t i = 0; i < n; ++i) state_[sent_ + i] = waiting;
    sent_ += n;
  }

  // An echo's payload (whatever arrived) at `now_ns`.
  void answer(std::span<const std::byte> payload, std::uint64_t now_ns) {
    const std::optional<Probe> probe = read_probe(payload);
    // A timestamp from the future is no echo of ours, whatever its sequence says.
    if (!probe || probe->run != run_ || probe->sequence >= state_.size() ||
        probe->sent_ns > now_ns) {
      ++strays_;
      return;
    }
    std::uint8_t& state = state_[probe->sequence];
    if (state == answered) {
      ++duplicates_;
      return;
    }
    if (state != waiting) {
      ++strays_;
      return;
    }
    state = answered;
    round_trips_ns_.push_back(now_ns - probe->sent_ns);
  }

 private:
  static constexpr std::uint8_t unsent = 0, waiting = 1, answered = 2;
  std::uint32_t run_;
  std::vector<std::uint8_t> state_;
  std::uint32_t sent_ = 0;
  std::vector<std::uint64_t> round_trips_ns_;
  std::uint64_t duplicates_ = 0;
  std::uint64_t strays_ = 0;
};

}  // namespace afxdp::tool
