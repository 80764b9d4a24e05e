// `afxdp demo --json` end to end, as a user runs it (the README's main job).
#include "system_test.hpp"

#include "child.hpp"
#include "demo.hpp"

#include <sstream>

namespace {

// Runs the demo with `args` and checks every cell it printed: measured, a rate above zero, and
// with `offered` also a traffic source that sent (txpush and the ceiling have none to show).
// Returns the number of cells.
int run_and_check_cells(const std::vector<std::string>& args, bool offered) {
  afxdp::tool::Child demo(args, AFXDP_TOOL_PATH);
  const int code = demo.wait(120000);
  EXPECT_EQ(code, 0) << demo.err();
  std::istringstream lines(demo.out());
  std::string line;
  int cells = 0;
  while (std::getline(lines, line)) {
    double mpps = 0, offered_mpps = 0;
    EXPECT_TRUE(afxdp::tool::json_number(line, "mpps", mpps)) << line;
    EXPECT_NE(line.find("\"measured\":true"), std::string::npos) << line;
    EXPECT_GT(mpps, 0.0) << line;
    if (offered) {
      EXPECT_TRUE(afxdp::tool::json_number(line, "offered_mpps", offered_mpps)) << line;
      EXPECT_GT(offered_mpps, 0.0) << line;
    }
    ++cells;
  }
  return cells;
}

}  // namespace

// `afxdp demo --quick --json` as a user runs it: every cell measured, every rate above zero.
TEST(DemoSystem, QuickRunMeasuresEveryCell) {
  AFXDP_REQUIRE_SYSTEM();
  EXPECT_EQ(run_and_check_cells({"demo", "--quick", "--json"}, false),
            static_cast<int>(afxdp::tool::demo_matrix({.quick = true}).size()));
}

// The one-core cells (the kernel's receive work as a NAPI thread on the application's CPU),
// which --quick leaves out: the traffic source keeps running while the two take turns, and
// every cell measures traffic.
TEST(DemoSystem, OneCoreCellsMeasureTraffic) {
  AFXDP_REQUIRE_SYSTEM();
  EXPECT_EQ(run_and_check_cells({"demo", "--json", "-d", "1", "--cores", "1", "--mode", "native",
                                 "--benchmark", "rxdrop", "--benchmark", "l2fwd"},
                                true),
            4);  // rxdrop and l2fwd, spin and poll()
}
