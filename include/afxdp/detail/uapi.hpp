// Constants that Debian 12's kernel headers (Linux 6.1) lack, with the values of the kernel's
// uapi. Each feature that uses one is probed at run time and refused with a clear message.
#pragma once

#include <linux/if_xdp.h>
#include <sys/socket.h>

namespace afxdp::uapi {

// <linux/if_xdp.h>, Linux 6.6: multi-buffer (scatter-gather) sockets and descriptors.
inline constexpr unsigned xdp_use_sg = 1U << 4;
inline constexpr unsigned xdp_pkt_contd = 1U << 0;
// <linux/if_xdp.h>, Linux 6.17: how many descriptors one copy-mode sendto() may turn into skbs.
inline constexpr int xdp_max_tx_skb_budget = 9;

// <asm-generic/socket.h>, Linux 5.11: busy-poll socket options.
inline constexpr int so_prefer_busy_poll = 69;
inline constexpr int so_busy_poll_budget = 70;

}  // namespace afxdp::uapi
