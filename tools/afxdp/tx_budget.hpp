// Linux 6.17+ (XDP_MAX_TX_SKB_BUDGET): how many tx descriptors one copy-mode sendto() turns into
// skbs. The default, and the fixed number before 6.17, is 32, so a sender that queues more than
// 32 frames per wake-up pays a syscall per 32; txpush and l2fwd raise it to half the tx ring, the
// most the kernel accepts. Older kernels refuse the option and keep 32: nothing else changes.
#pragma once

#include <afxdp/detail/uapi.hpp>
#include <afxdp/socket.hpp>

#include <sys/socket.h>

namespace afxdp::tool {

// True when the kernel took the larger budget.
inline bool raise_tx_budget(Socket& socket) noexcept {
  const int budget = static_cast<int>(socket.tx().size() / 2);
  return budget >= 32 && ::setsockopt(socket.fd(), SOL_XDP, uapi::xdp_max_tx_skb_budget, &budget,
                                      sizeof budget) == 0;
}

}  // namespace afxdp::tool
