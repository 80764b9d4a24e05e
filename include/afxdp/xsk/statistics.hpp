// What the kernel counts for one socket (XDP_STATISTICS), as one struct with operator- so that
// a per-interval report is `print(now - before)`.
//
// Each statistics struct lists its counters once (`counters`: name and member, in declaration
// order); its arithmetic walks that list, and so can a reader that prints every counter.
#pragma once

#include <array>
#include <cstdint>

namespace afxdp {

// One counter of a statistics struct: its name (the kernel's, where the kernel counts it) and
// where it lives.
template <class Stats>
struct Counter {
  const char* name;
  std::uint64_t Stats::*member;
};

namespace stats_detail {
// a op b for every counter in Stats::counters; the rest of `a` stays as it is.
template <class Stats, class Op>
constexpr Stats each_counter(Stats a, const Stats& b, Op op) noexcept {
  for (const Counter<Stats>& c : Stats::counters) a.*c.member = op(a.*c.member, b.*c.member);
  return a;
}
inline constexpr auto minus = [](std::uint64_t a, std::uint64_t b) { return a - b; };
inline constexpr auto plus = [](std::uint64_t a, std::uint64_t b) { return a + b; };
}  // namespace stats_detail

struct XdpStatistics {
  std::uint64_t rx_dropped = 0;                // dropped for other reasons
  std::uint64_t rx_invalid_descs = 0;          // bad descriptor on the fill ring
  std::uint64_t tx_invalid_descs = 0;          // bad descriptor on the tx ring
  std::uint64_t rx_ring_full = 0;              // rx ring had no room
  std::uint64_t rx_fill_ring_empty_descs = 0;  // kernel found the fill ring empty
  std::uint64_t tx_ring_empty_descs = 0;       // kernel found the tx ring empty

  static constexpr std::array<Counter<XdpStatistics>, 6> counters{{
      {"rx_dropped", &XdpStatistics::rx_dropped},
      {"rx_invalid_descs", &XdpStatistics::rx_invalid_descs},
      {"tx_invalid_descs", &XdpStatistics::tx_invalid_descs},
      {"rx_ring_full", &XdpStatistics::rx_ring_full},
      {"rx_fill_ring_empty_descs", &XdpStatistics::rx_fill_ring_empty_descs},
      {"tx_ring_empty_descs", &XdpStatistics::tx_ring_empty_descs},
  }};

  friend constexpr XdpStatistics operator-(const XdpStatistics& a,
                                           const XdpStatistics& b) noexcept {
    return stats_detail::each_counter(a, b, stats_detail::minus);
  }
  friend constexpr XdpStatistics operator+(const XdpStatistics& a,
                                           const XdpStatistics& b) noexcept {
    return stats_detail::each_counter(a, b, stats_detail::plus);
  }
  friend bool operator==(const XdpStatistics&, const XdpStatistics&) = default;
};
// A counter added to the struct and not to its list would be left out of the arithmetic.
static_assert(sizeof(XdpStatistics) == XdpStatistics::counters.size() * sizeof(std::uint64_t));

}  // namespace afxdp
