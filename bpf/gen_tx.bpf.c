// SPDX-License-Identifier: GPL-2.0
// Policy: send every frame back out of the interface it "arrived" on. `afxdp gen` runs this
// program through BPF_PROG_TEST_RUN with BPF_F_TEST_XDP_LIVE_FRAMES and ingress_ifindex set to
// the interface to transmit on: the kernel turns XDP_TX there into a redirect to that device,
// so each repetition of the test frame leaves through its ndo_xdp_xmit.
//
// With a rate (--rate), the program also paces: each frame waits here until its time slot.
// User space cannot: a test run has a fixed cost of 0.3 to 25 ms (two RCU grace periods), so runs
// short enough to pace between them do not exist, and a run leaves as one burst that overflows a
// veth peer's 256-frame ring. Frames still leave in the test run's batches (--batch-size).
// The waiting runs with bottom halves disabled (the kernel enables them again between batches),
// so it is bounded: no single wait exceeds max_wait_ns, and gen makes batches no longer than that
// and, at rates too low for one gap to fit, runs of one frame with user space sleeping between.
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

// Nanoseconds between frames; 0: as fast as possible. Set by gen before each test run, so that
// each run also makes up for the time the previous ones lost between them.
__u64 interval_ns = 0;
// Frames a slow moment within a run (an interrupt, the peer's receive work on this CPU) may make
// up for at full speed. Time lost between runs is made up by a shorter interval instead.
const volatile __u64 max_credit = 16;
// The longest one frame may wait.
const volatile __u64 max_wait_ns = 10000000;

// When the next frame may leave; gen sets 0 before each run: its first frame leaves at once.
__u64 next_ns = 0;
// The end of the current wait.
__u64 until_ns = 0;

static long wait_until(__u64 index, void *unused) {
  (void)index;
  (void)unused;
  return bpf_ktime_get_ns() >= until_ns;  // 1 ends the loop
}

SEC("xdp")
int gen_tx(struct xdp_md *ctx) {
  (void)ctx;
  if (interval_ns != 0) {
    __u64 now = bpf_ktime_get_ns();
    if (next_ns == 0) {
      next_ns = now;
    } else if (now < next_ns) {
      until_ns = next_ns - now < max_wait_ns ? next_ns : now + max_wait_ns;
      // bpf_loop's bound is 2^23 iterations of a clock read, well above max_wait_ns.
      bpf_loop(1 << 23, wait_until, NULL, 0);
    } else if (now - next_ns > max_credit * interval_ns) {
      next_ns = now - max_credit * interval_ns;
    }
    next_ns += interval_ns;
  }
  return XDP_TX;
}

char LICENSE[] SEC("license") = "GPL";
