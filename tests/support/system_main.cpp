#include "system_test.hpp"

#include <afxdp/xsk/privilege.hpp>
#include <lab.hpp>

#include <cstdio>
#include <cstring>
#include <map>
#include <set>

namespace afxdp::test {
namespace {
std::string reason;

// At the end of the run, one line per skipped test with its reason, grouped by reason:
// "afxdp-skipped: <test> -- <reason>". scripts/skips gathers these lines from ctest's log.
class SkipReport : public ::testing::EmptyTestEventListener {
  void OnTestEnd(const ::testing::TestInfo& test) override {
    const ::testing::TestResult& result = *test.result();
    if (!result.Skipped()) return;
    std::string why;
    for (int i = 0; i < result.total_part_count(); ++i) {
      const ::testing::TestPartResult& part = result.GetTestPartResult(i);
      if (part.skipped()) why += part.message();
    }
    for (char& c : why) {
      if (c == '\n') c = ' ';
    }
    if (why.empty()) why = "(no reason given)";
    skipped_[why].insert(std::string(test.test_suite_name()) + "." + test.name());
  }
  void OnTestProgramEnd(const ::testing::UnitTest&) override {
    for (const auto& [why, tests] : skipped_) {
      for (const std::string& name : tests)
        std::printf("afxdp-skipped: %s -- %s\n", name.c_str(), why.c_str());
    }
    std::fflush(stdout);
  }
  std::map<std::string, std::set<std::string>> skipped_;
};
}  // namespace
const std::string& skip_reason() { return reason; }
}  // namespace afxdp::test

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  ::testing::UnitTest::GetInstance()->listeners().Append(new afxdp::test::SkipReport);
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
