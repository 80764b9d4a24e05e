#include "system_test.hpp"

#include <afxdp/privilege.hpp>
#include <lab.hpp>

#include <cstring>

namespace afxdp::test {
namespace {
std::string reason;
}
const std::string& skip_reason() { return reason; }
}  // namespace afxdp::test

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  bool listing = false;
  for (int i = 1; i < argc; ++i) listing |= std::strcmp(argv[i], "--gtest_list_tests") == 0;
  if (!listing) {
    const std::string missing = afxdp::missing_privilege();
    if (!missing.empty()) {
      afxdp::test::reason = "system test needs " + missing;
    } else {
      try {
        afxdp::lab::enter_private_network();
      } catch (const std::exception& e) {
        afxdp::test::reason = std::string("cannot make a private network: ") + e.what();
      }
    }
  }
  return RUN_ALL_TESTS();
}
