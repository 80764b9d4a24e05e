// conformance_loopback_test: the cases that need no XDP program of the kernel's, on
// testing::Loopback, as an ordinary unit test (docs/conformance.md, the Loopback column).
#include "harness.hpp"

namespace afxdp::conformance {

INSTANTIATE_TEST_SUITE_P(, Conformance, ::testing::Values(loopback_mode()), ModeName());

}  // namespace afxdp::conformance

// AFXDP_REQUIRE_BACKEND names the system tests' privilege check, which this binary (no veth
// mode, no system_main) never reaches.
namespace afxdp::test {
const std::string& skip_reason() {
  static const std::string reason = "this unit binary runs the Loopback only";
  return reason;
}
}  // namespace afxdp::test
