/* The structs and constants that rxq_info.bpf.c shares with `afxdp rxq-info` (C and C++). */
#ifndef AFXDP_BPF_RXQ_INFO_SHARED_H
#define AFXDP_BPF_RXQ_INFO_SHARED_H

#include <linux/types.h>

/* One counter pair, per CPU (map cpu_stats, one entry) and per rx queue per CPU (map rxq_stats,
 * one entry per queue plus an overflow slot for queue numbers beyond the table). */
struct rxq_info_counters {
  __u64 processed; /* frames the program ran on */
  __u64 issue;     /* cpu_stats: ingress_ifindex was not ours; rxq_stats: queue beyond the table */
};

/* Bits of the read-only `options`: how much the program touches each frame. */
#define RXQ_INFO_READ 0x1U    /* read the Ethernet header */
#define RXQ_INFO_SWAPMAC 0x2U /* swap the Ethernet destination and source addresses */

#endif
