// SPDX-License-Identifier: GPL-2.0
// Policy: a frame goes to the AF_XDP socket bound to the rx queue it arrived on; a queue without
// a socket gets the configured fallback action (bpf_redirect_map returns the low bits of its
// flags argument when the map has no entry for the key).
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct {
  __uint(type, BPF_MAP_TYPE_XSKMAP);
  __uint(max_entries, 64);  // resized to the interface's queue count before load
  __type(key, __u32);
  __type(value, __u32);
} xsks SEC(".maps");

const volatile __u32 fallback_action = XDP_PASS;

SEC("xdp")
int xsk_redirect(struct xdp_md *ctx) {
  return bpf_redirect_map(&xsks, ctx->rx_queue_index, fallback_action);
}

// The same policy for multi-buffer sockets: "xdp.frags" loads it with BPF_F_XDP_HAS_FRAGS, so
// the driver hands it packets larger than a page (MTU 9000) instead of refusing to attach it,
// and a socket bound with XDP_USE_SG receives them as descriptor chains. Only one of the two
// programs is loaded (XskProgramConfig::frags).
SEC("xdp.frags")
int xsk_redirect_frags(struct xdp_md *ctx) {
  return bpf_redirect_map(&xsks, ctx->rx_queue_index, fallback_action);
}

char LICENSE[] SEC("license") = "GPL";
