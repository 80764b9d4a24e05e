// What the kernel counts for one socket (XDP_STATISTICS), as one struct with operator- so that
// a per-interval report is `print(now - before)`.
#pragma once

#include <cstdint>

namespace afxdp {

struct XdpStatistics {
  std::uint64_t rx_dropped = 0;                // dropped for other reasons
  std::uint64_t rx_invalid_descs = 0;          // bad descriptor on the fill ring
  std::uint64_t tx_invalid_descs = 0;          // bad descriptor on the tx ring
  std::uint64_t rx_ring_full = 0;              // rx ring had no room
  std::uint64_t rx_fill_ring_empty_descs = 0;  // kernel found the fill ring empty
  std::uint64_t tx_ring_empty_descs = 0;       // kernel found the tx ring empty

  friend XdpStatistics operator-(const XdpStatistics& a, const XdpStatistics& b) noexcept {
    return {a.rx_dropped - b.rx_dropped,
            a.rx_invalid_descs - b.rx_invalid_descs,
            a.tx_invalid_descs - b.tx_invalid_descs,
            a.rx_ring_full - b.rx_ring_full,
            a.rx_fill_ring_empty_descs - b.rx_fill_ring_empty_descs,
            a.tx_ring_empty_descs - b.tx_ring_empty_descs};
  }
  friend bool operator==(const XdpStatistics&, const XdpStatistics&) = default;
};

}  // namespace afxdp
