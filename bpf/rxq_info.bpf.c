// SPDX-License-Identifier: GPL-2.0
// Policy: count every frame per CPU and per (rx queue, CPU), optionally read or rewrite its
// Ethernet header, then return the one configured verdict (REDIRECT: to the single devmap entry).
// Everything is configured through read-only data, so the verifier prunes what is unused.
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <bpf/bpf_helpers.h>

#include "rxq_info_shared.h"

const volatile __u32 action = XDP_DROP;
const volatile __u32 options = 0;
const volatile __u32 expected_ifindex = 0;
const volatile __u32 queue_slots = 64; /* rxq_stats has queue_slots + 1 entries */

struct {
  __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
  __uint(max_entries, 1);
  __type(key, __u32);
  __type(value, struct rxq_info_counters);
} cpu_stats SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
  __uint(max_entries, 65); /* resized to queue_slots + 1 before load */
  __type(key, __u32);
  __type(value, struct rxq_info_counters);
} rxq_stats SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_DEVMAP);
  __uint(max_entries, 1);
  __type(key, __u32);
  __type(value, __u32);
} redirect_port SEC(".maps");

static __always_inline void swap_mac(struct ethhdr *eth) {
  __u8 tmp[ETH_ALEN];
  __builtin_memcpy(tmp, eth->h_dest, ETH_ALEN);
  __builtin_memcpy(eth->h_dest, eth->h_source, ETH_ALEN);
  __builtin_memcpy(eth->h_source, tmp, ETH_ALEN);
}

SEC("xdp")
int rxq_info(struct xdp_md *ctx) {
  __u32 key = 0;
  struct rxq_info_counters *cpu = bpf_map_lookup_elem(&cpu_stats, &key);
  if (!cpu) return XDP_ABORTED;
  cpu->processed++;
  /* A frame from another device means the program sits where we did not put it. */
  if (ctx->ingress_ifindex != expected_ifindex) cpu->issue++;

  __u32 queue = ctx->rx_queue_index;
  const int overflow = queue >= queue_slots;
  if (overflow) queue = queue_slots;
  struct rxq_info_counters *rxq = bpf_map_lookup_elem(&rxq_stats, &queue);
  if (!rxq) return XDP_ABORTED;
  rxq->processed++;
  if (overflow) rxq->issue++;

  if (options & (RXQ_INFO_READ | RXQ_INFO_SWAPMAC)) {
    void *data = (void *)(long)ctx->data;
    void *data_end = (void *)(long)ctx->data_end;
    struct ethhdr *eth = data;
    if ((void *)(eth + 1) > data_end) {
      cpu->issue++; /* shorter than an Ethernet header: nothing to touch */
    } else if (options & RXQ_INFO_SWAPMAC) {
      swap_mac(eth);
    } else {
      /* A volatile load the compiler must keep: the point is the cache miss on the data. */
      volatile __u16 proto = *(const volatile __u16 *)(data + 2 * ETH_ALEN);
      (void)proto;
    }
  }

  if (action == XDP_REDIRECT) return bpf_redirect_map(&redirect_port, 0, XDP_ABORTED);
  return action;
}

char LICENSE[] SEC("license") = "GPL";
