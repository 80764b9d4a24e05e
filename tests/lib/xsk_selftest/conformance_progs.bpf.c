// SPDX-License-Identifier: GPL-2.0
// The application programs the kernel's selftests attach for some cases (progs/xsk_xdp_progs.c
// there), written again for XskProgram::from_object. Each sends what it keeps to the socket at
// `xsks` index 0 (index by destination MAC for the shared-UMEM case).
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <bpf/bpf_helpers.h>

#include "conformance_meta.h"

struct {
  __uint(type, BPF_MAP_TYPE_XSKMAP);
  __uint(max_entries, 2);
  __type(key, __u32);
  __type(value, __u32);
} xsks SEC(".maps");

// For the bad-input case: a map of the wrong type.
struct {
  __uint(type, BPF_MAP_TYPE_ARRAY);
  __uint(max_entries, 1);
  __type(key, __u32);
  __type(value, __u32);
} not_an_xskmap SEC(".maps");

__u32 drop_seen = 0;
__u32 meta_count = 0;

// XDP_DROP_HALF: every other frame dropped, the first one kept.
SEC("xdp")
int drop_half(struct xdp_md *ctx)
{
  if (drop_seen++ % 2)
    return XDP_DROP;
  return bpf_redirect_map(&xsks, 0, XDP_DROP);
}

// XDP_METADATA_COPY: a counter in the metadata area in front of each frame.
SEC("xdp")
int populate_metadata(struct xdp_md *ctx)
{
  if (bpf_xdp_adjust_meta(ctx, -(int)sizeof(struct conformance_meta)))
    return XDP_DROP;
  void *data = (void *)(long)ctx->data;
  struct conformance_meta *meta = (void *)(long)ctx->data_meta;
  if ((void *)(meta + 1) > data)
    return XDP_DROP;
  meta->count = meta_count++;
  return bpf_redirect_map(&xsks, 0, XDP_DROP);
}

// XDP_SHARED_UMEM: the socket is chosen by the last byte of the destination MAC, halved.
SEC("xdp")
int steer_by_mac(struct xdp_md *ctx)
{
  void *data = (void *)(long)ctx->data;
  void *data_end = (void *)(long)ctx->data_end;
  struct ethhdr *eth = data;
  if ((void *)(eth + 1) > data_end)
    return XDP_DROP;
  return bpf_redirect_map(&xsks, eth->h_dest[5] / 2, XDP_DROP);
}

// XDP_ADJUST_TAIL_SHRINK / _GROW: every frame's tail moved by tail_adjust bytes (set before the
// traffic); a frame the helper refuses is dropped and counted.
__s32 tail_adjust = 0;
__u32 tail_refused = 0;

SEC("xdp")
int adjust_tail(struct xdp_md *ctx)
{
  if (bpf_xdp_adjust_tail(ctx, tail_adjust)) {
    tail_refused++;
    return XDP_DROP;
  }
  return bpf_redirect_map(&xsks, 0, XDP_DROP);
}

// The multi-buffer variants (XDP_METADATA_COPY_MULTI_BUFF, XDP_ADJUST_TAIL_*_MULTI_BUFF): the same
// programs loaded with frags support, so they see packets larger than one buffer.
SEC("xdp.frags")
int populate_metadata_frags(struct xdp_md *ctx)
{
  return populate_metadata(ctx);
}

SEC("xdp.frags")
int adjust_tail_frags(struct xdp_md *ctx)
{
  return adjust_tail(ctx);
}

// For the bad-input case: a program of the wrong type.
SEC("tc")
int not_xdp(struct __sk_buff *skb)
{
  return 0;
}

char LICENSE[] SEC("license") = "GPL";
