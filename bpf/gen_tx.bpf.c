// SPDX-License-Identifier: GPL-2.0
// Policy: send every frame back out of the interface it "arrived" on. `afxdp gen` runs this
// program through BPF_PROG_TEST_RUN with BPF_F_TEST_XDP_LIVE_FRAMES and ingress_ifindex set to
// the interface to transmit on: the kernel turns XDP_TX there into a redirect to that device,
// so each repetition of the test frame leaves through its ndo_xdp_xmit.
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

SEC("xdp")
int gen_tx(struct xdp_md *ctx)
{
  (void)ctx;
  return XDP_TX;
}

char LICENSE[] SEC("license") = "GPL";
