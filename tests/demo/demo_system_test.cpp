// `afxdp demo --quick --json` end to end, as a user runs it (the README's main job).
#include "system_test.hpp"

#include "child.hpp"
#include "demo.hpp"

#include <sstream>

// `afxdp demo --quick --json` as a user runs it: every cell measured, every rate above zero.
TEST(DemoSystem, QuickRunMeasuresEveryCell) {
  AFXDP_REQUIRE_SYSTEM();
  afxdp::tool::Child demo({"demo", "--quick", "--json"}, AFXDP_TOOL_PATH);
  const int code = demo.wait(120000);
  EXPECT_EQ(code, 0) << demo.err();
  std::istringstream lines(demo.out());
  std::string line;
  int cells = 0;
  while (std::getline(lines, line)) {
    double mpps = 0;
    ASSERT_TRUE(afxdp::tool::json_number(line, "mpps", mpps)) << line;
    EXPECT_NE(line.find("\"measured\":true"), std::string::npos) << line;
    EXPECT_GT(mpps, 0.0) << line;
    ++cells;
  }
  EXPECT_EQ(cells, static_cast<int>(afxdp::tool::demo_matrix({.quick = true}).size()));
}
