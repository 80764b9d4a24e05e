// scripts/soak remounts /sys and changes sysctls only in namespaces of its own: AFXDP_SOAK_INSIDE
// set by hand (or inherited) in its parent's namespaces is refused before anything is touched.
#include "system_test.hpp"

#include <common/child.hpp>

#include <net/if.h>

#include <string>

namespace {

TEST(SoakGuard, RefusesTheVariableInItsParentsNamespace) {
  AFXDP_REQUIRE_SYSTEM();
  // This test process is in a private namespace (system_main), so nothing outside is at risk.
  const std::string script = AFXDP_SOURCE_DIR "/scripts/soak";
  afxdp::tool::Child soak({"AFXDP_SOAK_INSIDE=1", script, "1", "/bin/false", "1"}, "/usr/bin/env");
  const int code = soak.wait(30000);
  EXPECT_NE(code, 0);
  EXPECT_NE(soak.err().find("not a private network"), std::string::npos) << soak.err();
  // The script's veth pair would show that it went ahead in our namespace.
  EXPECT_EQ(::if_nametoindex("soaka"), 0U);
}

}  // namespace
