// next_report_time (tools/afxdp/common/report_schedule.hpp): lines keep their cadence, and a stall
// never turns into a burst of catch-up lines.
#include "common/report_schedule.hpp"

#include <gtest/gtest.h>

using afxdp::tool::next_report_time;
using std::chrono::milliseconds;

namespace {

const std::chrono::steady_clock::time_point t0{};

}  // namespace

// Printed a little late: the next line is still due one interval after the last was due, so the
// loop's own lateness does not add up over a long run.
TEST(ReportSchedule, KeepsTheCadenceWhenALineIsLate) {
  EXPECT_EQ(next_report_time(t0 + milliseconds(100), t0 + milliseconds(130), milliseconds(100)),
            t0 + milliseconds(200));
}

// Stopped for a second (SIGSTOP) with 100 ms lines: the next line is one interval from now, not
// ten lines due at once.
TEST(ReportSchedule, AStallRestartsTheCadenceFromNow) {
  EXPECT_EQ(next_report_time(t0 + milliseconds(100), t0 + milliseconds(1100), milliseconds(100)),
            t0 + milliseconds(1200));
}

// Exactly one interval late is already a missed line.
TEST(ReportSchedule, OneWholeIntervalLateIsAStall) {
  EXPECT_EQ(next_report_time(t0 + milliseconds(100), t0 + milliseconds(200), milliseconds(100)),
            t0 + milliseconds(300));
  EXPECT_EQ(next_report_time(t0 + milliseconds(100), t0 + milliseconds(199), milliseconds(100)),
            t0 + milliseconds(200));
}
