// What a Queue asks of testing::Loopback instead of the kernel: the same calls a socket's fd
// would take, made directly (no indirect call), on the control path only.
#pragma once

#include <afxdp/statistics.hpp>

#include <cstdint>

namespace afxdp::detail {

class LoopbackKernel;

// sendto(): in copy mode the kernel consumes the tx ring only when kicked. (Only the test
// double's allocation can throw inside; see the definition.)
// NOLINTNEXTLINE(bugprone-exception-escape)
void loopback_kick_tx(LoopbackKernel& kernel, std::uint32_t queue) noexcept;
// recvfrom(): counted, nothing else (the loopback receives when a test injects).
void loopback_wake_rx(LoopbackKernel& kernel, std::uint32_t queue) noexcept;
XdpStatistics loopback_statistics(const LoopbackKernel& kernel, std::uint32_t queue);

}  // namespace afxdp::detail
