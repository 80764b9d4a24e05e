// SPDX-License-Identifier: GPL-2.0
// The application programs the kernel's selftests attach for some cases (progs/xsk_xdp_progs.c
// there), written again for XskProgram::from_object. Each sends what it keeps to the socket at
// `xsks` index 0 (index by destination MAC for the shared-UMEM case).
#include <linux/bpf.h>
#include <linux/errno.h>
#include <linux/if_ether.h>
#include <bpf/bpf_endian.h>
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
// traffic). As the kernel's program: a refusal with -EOPNOTSUPP (resizing not supported here)
// passes the frame on unchanged, any other refusal drops the frame (the kernel's test then fails).
// Each refusal is counted by its errno, so the test can tell a mode where every refusal has one
// cause from one with several. A grown frame gets its new length, big-endian, in its last 4 bytes,
// so the receiver sees that the program wrote the bytes it added.
__s32 tail_adjust = 0;
__u32 tail_unsupported = 0;  // refusals with -EOPNOTSUPP
__u32 tail_invalid = 0;      // refusals with -EINVAL
__u32 tail_other = 0;        // refusals with any other error
__s32 tail_other_error = 0;  // the last of those
__u32 tail_refused = 0;      // tail_invalid + tail_other: the frames dropped

// Inlined into both sections' programs: a call across sections does not relocate.
static __always_inline int adjust_tail_body(struct xdp_md *ctx)
{
  __u32 before = bpf_xdp_get_buff_len(ctx);
  long err = bpf_xdp_adjust_tail(ctx, tail_adjust);
  if (err == -EOPNOTSUPP) {
    tail_unsupported++;
    return bpf_redirect_map(&xsks, 0, XDP_DROP);
  }
  if (err == -EINVAL) {
    tail_invalid++;
    tail_refused++;
    return XDP_DROP;
  }
  if (err) {
    tail_other++;
    tail_refused++;
    tail_other_error = (__s32)err;
    return XDP_DROP;
  }
  __u32 after = bpf_xdp_get_buff_len(ctx);
  if (after > before && after >= sizeof(__u32)) {
    __u32 word = bpf_htonl(after);
    if (bpf_xdp_store_bytes(ctx, after - sizeof(word), &word, sizeof(word)))
      return XDP_DROP;
  }
  return bpf_redirect_map(&xsks, 0, XDP_DROP);
}

SEC("xdp")
int adjust_tail(struct xdp_md *ctx)
{
  return adjust_tail_body(ctx);
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
  return adjust_tail_body(ctx);
}

// For the bad-input case: a program of the wrong type.
SEC("tc")
int not_xdp(struct __sk_buff *skb)
{
  return 0;
}

char LICENSE[] SEC("license") = "GPL";
