// The errors with which a kernel says it will not run XDP live frames at all (BPF_PROG_TEST_RUN
// with BPF_F_TEST_XDP_LIVE_FRAMES), as opposed to a failure of one run: not permitted (a BPF LSM
// policy, lockdown, a hardened build), not known (before Linux 5.18), not supported. gen falls
// back on them, and the tests' probe (tests/support/probes.cpp) skips on the same ones.
#pragma once

#include <cerrno>

namespace afxdp::tool {

inline constexpr int kernel_enotsupp = 524;  // ENOTSUPP: the kernel's own, not in <cerrno>

constexpr bool refuses_live_frames(int error) noexcept {
  return error == EPERM || error == EACCES || error == EINVAL || error == EOPNOTSUPP ||
         error == kernel_enotsupp;
}

}  // namespace afxdp::tool
