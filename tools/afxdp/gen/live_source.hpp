// gen's first engine: the kernel's live-frames test run (BPF_PROG_TEST_RUN with
// BPF_F_TEST_XDP_LIVE_FRAMES) of a program that returns XDP_TX with ingress_ifindex = IF, so the
// kernel transmits `repeat` copies of one frame out of IF through its ndo_xdp_xmit, without a
// socket, a UMEM or a copy per frame from user space. Some kernels refuse it (EPERM as root under
// a BPF LSM policy, lockdown or a hardened build; EINVAL before Linux 5.18): LiveRefused.
#pragma once

#include "gen/gen.hpp"
#include "gen/pace.hpp"

#include <afxdp/signal_stop.hpp>

#include <chrono>
#include <cstdint>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>

namespace afxdp::tool {

// The kernel refused the live-frames test run (or the program it runs): gen's auto engine falls
// back on it. what() names the call and the kernel's answer.
class LiveRefused : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class LiveSource {
 public:
  // Loads the program; throws LiveRefused when the kernel will not load it.
  LiveSource(const GenOptions& options, std::span<const std::uint8_t> frame, unsigned ifindex);
  LiveSource(LiveSource&&) noexcept;
  LiveSource& operator=(LiveSource&&) = delete;
  ~LiveSource();
  // One test run of n frames, paced (the program waits for each frame's slot); the kernel has
  // transmitted them when it returns n. Throws LiveRefused when the kernel refuses the run. A
  // stop signal waits for the run's end (the signals are blocked meanwhile: gen.cpp).
  std::uint64_t send(std::uint64_t n, const Pace& pace, const SignalStop& stop);
  // Frames in the next run: a quarter of a second's worth.
  [[nodiscard]] std::uint64_t next_run(const Pace& pace) const;
  [[nodiscard]] std::chrono::steady_clock::duration longest_run() const noexcept;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace afxdp::tool
