// Each probe answers on this kernel, once: a refusal names the facility; the answer is printed
// (and recorded in the XML report) so a run's log tells what this kernel allows.
#include "probes.hpp"
#include "system_test.hpp"

#include <cstdio>

namespace afxdp::test {
namespace {

void expect_answer(const char* name, const Facility& (*probe)(), const char* facility_words) {
  const Facility& first = (*probe)();
  EXPECT_EQ(&first, &(*probe)()) << name << ": probed again";
  if (!first.available) {
    EXPECT_NE(first.why.find(facility_words), std::string::npos) << first.why;
  }
  std::printf("%s: %s%s%s\n", name, first.available ? "available" : "refused",
              first.why.empty() ? "" : ": ", first.why.c_str());
  ::testing::Test::RecordProperty(name, first.available ? "available" : first.why);
}

TEST(Probes, EachAnswersOnceAndARefusalNamesTheFacility) {
  AFXDP_REQUIRE_SYSTEM();
  expect_answer("live_frames", live_frames, "XDP live frames");
  expect_answer("xdp_adjust_meta", xdp_adjust_meta, "bpf_xdp_adjust_meta");
  expect_answer("xdp_adjust_tail", xdp_adjust_tail, "bpf_xdp_adjust_tail");
  expect_answer("multi_buffer", multi_buffer, "multi-buffer");
  expect_answer("busy_poll", busy_poll, "busy polling");
}

}  // namespace
}  // namespace afxdp::test
