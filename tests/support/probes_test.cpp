// The probes' decisions: only the kernel's refusal of the very call is a skip, named; anything
// else leaves the facility available so the test runs and fails on its own error.
#include "probes.hpp"

#include <cerrno>

namespace afxdp::test {
namespace {

TEST(ProbeLiveFrames, RefusalsAreNamedSkips) {
  // The same errors on which gen falls back (gen/live_refusal.hpp), ENOTSUPP (524) among them.
  for (const int error : {EPERM, EACCES, EINVAL, EOPNOTSUPP, 524}) {
    const Facility f = live_frames_outcome(error);
    EXPECT_FALSE(f.available) << error;
    EXPECT_NE(f.why.find("BPF_PROG_TEST_RUN with XDP live frames: "), std::string::npos) << f.why;
  }
  EXPECT_EQ(live_frames_outcome(EPERM).why,
            "BPF_PROG_TEST_RUN with XDP live frames: Operation not permitted");
}

TEST(ProbeLiveFrames, SuccessAndOtherErrorsLeaveItAvailable) {
  EXPECT_TRUE(live_frames_outcome(0).available);
  EXPECT_EQ(live_frames_outcome(0).why, "");
  const Facility odd = live_frames_outcome(ENOMEM);
  EXPECT_TRUE(odd.available);
  EXPECT_NE(odd.why.find("not probed"), std::string::npos) << odd.why;
}

TEST(ProbeHelper, TheVerifiersRefusalIsANamedSkipQuotingIt) {
  const Facility f = helper_outcome(
      "bpf_xdp_adjust_meta", EINVAL,
      "0: R1=ctx() R10=fp0\n1: (85) call bpf_xdp_adjust_meta#54\n"
      "program of this type cannot use helper bpf_xdp_adjust_meta#54\nprocessed 2 insns\n");
  EXPECT_FALSE(f.available);
  EXPECT_EQ(f.why,
            "the kernel refuses bpf_xdp_adjust_meta in XDP programs (\"program of this type cannot "
            "use helper bpf_xdp_adjust_meta#54\")");
  // The older kernels' words, at the end of a log without a newline.
  const Facility old = helper_outcome("bpf_xdp_adjust_tail", EINVAL, "unknown func bpf_x#65");
  EXPECT_FALSE(old.available);
  EXPECT_NE(old.why.find("(\"unknown func bpf_x#65\")"), std::string::npos) << old.why;
}

TEST(ProbeHelper, LoadedOrAnotherFailureLeavesItAvailable) {
  EXPECT_TRUE(helper_outcome("bpf_xdp_adjust_meta", 0, "").available);
  const Facility denied = helper_outcome("bpf_xdp_adjust_meta", EPERM, "");
  EXPECT_TRUE(denied.available);  // no BPF at all: the test's own load fails, loudly
  EXPECT_NE(denied.why.find("not probed"), std::string::npos) << denied.why;
  const Facility other = helper_outcome("bpf_xdp_adjust_meta", EACCES, "R2 !read_ok\n");
  EXPECT_TRUE(other.available);
}

TEST(ProbeMultiBuffer, ARefusedFlagIsANamedSkip) {
  // Before 6.6 the bind flag is unknown (EINVAL); before 5.18 the program flag too.
  const Facility bind = multi_buffer_outcome(0, EINVAL, 0);
  EXPECT_FALSE(bind.available);
  EXPECT_EQ(bind.why, "multi-buffer AF_XDP sockets (XDP_USE_SG): bind: Invalid argument");
  EXPECT_FALSE(multi_buffer_outcome(0, EOPNOTSUPP, 0).available);
  const Facility program = multi_buffer_outcome(0, 0, EINVAL);
  EXPECT_FALSE(program.available);
  EXPECT_NE(program.why.find("BPF_F_XDP_HAS_FRAGS"), std::string::npos) << program.why;
}

TEST(ProbeMultiBuffer, BoundOrUndecidedLeavesItAvailable) {
  EXPECT_TRUE(multi_buffer_outcome(0, 0, 0).available);
  EXPECT_EQ(multi_buffer_outcome(0, 0, 0).why, "");
  // No AF_XDP bind at all (EPERM): not multi-buffer's refusal; the test fails on its own.
  const Facility plain = multi_buffer_outcome(EPERM, EPERM, 0);
  EXPECT_TRUE(plain.available);
  EXPECT_NE(plain.why.find("not probed"), std::string::npos) << plain.why;
  EXPECT_TRUE(multi_buffer_outcome(0, ENOMEM, 0).available);
  EXPECT_TRUE(multi_buffer_outcome(0, 0, EPERM).available);
}

TEST(ProbeBusyPoll, TheRefusalsWordsAreTheSkip) {
  EXPECT_TRUE(busy_poll_outcome("").available);
  const Facility f =
      busy_poll_outcome("busy polling (SO_PREFER_BUSY_POLL): Operation not permitted");
  EXPECT_FALSE(f.available);
  EXPECT_EQ(f.why, "busy polling (SO_PREFER_BUSY_POLL): Operation not permitted");
}

void require(const Facility& f, bool& reached) {
  AFXDP_REQUIRE_FACILITY(f);
  reached = true;
}

TEST(RequireFacility, AnAvailableFacilityDoesNotSkip) {
  bool reached = false;
  require(Facility{}, reached);
  EXPECT_TRUE(reached);
  EXPECT_FALSE(::testing::Test::IsSkipped());
}

}  // namespace
}  // namespace afxdp::test
