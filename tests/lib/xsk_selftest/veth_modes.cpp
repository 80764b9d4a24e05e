// conformance_test: every case in the kernel runner's four modes on veth.
#include "harness.hpp"

namespace afxdp::conformance {

INSTANTIATE_TEST_SUITE_P(, Conformance, ::testing::ValuesIn(all_modes()), ModeName());

}  // namespace afxdp::conformance
