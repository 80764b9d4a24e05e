// gen's second engine, for kernels that refuse the live-frames test run: AF_XDP transmit through
// the library's own tx path (afxdp::Queue on a send-only Port: no XDP program; copy mode on
// veth, zero-copy where the driver has it), as `afxdp txpush` sends. The frame is written once
// into every UMEM frame; the loop then only sets lengths and hands descriptors to the tx ring.
#pragma once

#include "gen/gen.hpp"
#include "gen/pace.hpp"

#include <afxdp/signal_stop.hpp>

#include <cstdint>
#include <memory>
#include <span>

namespace afxdp::tool {

class XskSource {
 public:
  // Opens a send-only Port on options.interface, queue options.queue (throws as Port::open).
  XskSource(const GenOptions& options, std::span<const std::uint8_t> frame, unsigned ifindex);
  XskSource(XskSource&&) noexcept;
  XskSource& operator=(XskSource&&) = delete;
  ~XskSource();
  // Hands n frames to the tx ring, paced at the rate (frames leave when they are due, at most
  // --batch-size at once), and kicks the kernel; returns how many went, n unless a stop signal
  // came first. Throws std::runtime_error naming the queue when the link is gone or no frame
  // went out for 5 s.
  std::uint64_t send(std::uint64_t n, const Pace& pace, const SignalStop& stop);
  // Frames in the next call: about a quarter of a second's worth (at --rate, or at the rate of
  // the last call).
  [[nodiscard]] std::uint64_t next_run(const Pace& pace) const;
  // Waits until every frame sent is completed and returns how many frames the interface dropped
  // instead of transmitting since the start (its tx_dropped: every sender's on IF).
  std::uint64_t finish();

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace afxdp::tool
