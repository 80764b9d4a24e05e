// Optional kernel facilities a test may need, probed once per process (the first call; later
// calls return the cached answer), and a named skip when the kernel refuses one
// (docs/testing.md, "Optional kernel facilities"). Public API:
//
//   struct afxdp::test::Facility { bool available; std::string why; };
//   const Facility& live_frames();      // BPF_PROG_TEST_RUN with BPF_F_TEST_XDP_LIVE_FRAMES
//   const Facility& xdp_adjust_meta();  // the helper in an XDP program
//   const Facility& xdp_adjust_tail();  // the helper in an XDP program
//   const Facility& multi_buffer();     // XDP_USE_SG sockets and xdp.frags programs (6.6+)
//   const Facility& busy_poll();        // SO_PREFER_BUSY_POLL, SO_BUSY_POLL, SO_BUSY_POLL_BUDGET
//   Facility hugepages(const HugepageReservation&);  // a reservation's outcome
//   AFXDP_REQUIRE_FACILITY(facility);  // GTEST_SKIP() << facility.why when refused
//
//   TEST(Gen, SendsAtTheRateAsked) {
//     AFXDP_REQUIRE_SYSTEM();
//     AFXDP_REQUIRE_FACILITY(afxdp::test::live_frames());
//     ...
//   }
//
// Only a refusal the probe saw is a skip: the kernel's answer to the very call (EPERM, EINVAL or
// EOPNOTSUPP from a live-frames run; a verifier log saying the helper is not for XDP programs;
// EINVAL or EOPNOTSUPP from a bind with XDP_USE_SG that binds without it; ENOPROTOOPT or EPERM
// from the busy-poll socket options).
// A probe that cannot decide (no trivial program loads at all, no `lo`) says `available` with
// `why` naming what went wrong, so the test runs and fails on its own error: a defect of ours is
// never hidden as a skip. Probes need root (call them after AFXDP_REQUIRE_SYSTEM()) and the live
// frames probe runs on the `lo` of the namespace of its first call: the test's private one.
// AFXDP_TEST_REFUSE=live_frames,xdp_adjust_meta,xdp_adjust_tail,multi_buffer,busy_poll (any of
// them) in the environment makes those probes answer "refused", to see the skips and their report
// on a kernel that allows everything.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <string_view>

namespace afxdp::test {

class HugepageReservation;

struct Facility {
  bool available = true;
  // Refused: the facility and the kernel's refusal, in words. Available: empty, or what kept the
  // probe from deciding.
  std::string why;
};

const Facility& live_frames();
const Facility& xdp_adjust_meta();
const Facility& xdp_adjust_tail();
const Facility& multi_buffer();
const Facility& busy_poll();
// Hugepages are reserved per test, not probed: this reports a reservation's failure() the same way.
Facility hugepages(const HugepageReservation& reservation);

// The probes' decisions, pure (the unit test checks them): `error` is the positive errno of the
// call, 0 for success; `log` the verifier's log of the failed load.
Facility live_frames_outcome(int error);
Facility helper_outcome(std::string_view helper, int error, std::string_view log);
// The binds on lo without and with XDP_USE_SG, and the load of a program flagged
// BPF_F_XDP_HAS_FRAGS (positive errnos, 0 for success).
Facility multi_buffer_outcome(int plain_bind, int multi_buffer_bind, int frags_load);
// tool::busy_poll_refusal()'s words: empty when allowed.
Facility busy_poll_outcome(std::string_view refusal);

}  // namespace afxdp::test

// Skips the test naming the facility and the kernel's refusal; does nothing when available.
#define AFXDP_REQUIRE_FACILITY(facility)                                 \
  do {                                                                   \
    const ::afxdp::test::Facility& afxdp_facility_ = facility;           \
    if (!afxdp_facility_.available) GTEST_SKIP() << afxdp_facility_.why; \
  } while (0)
