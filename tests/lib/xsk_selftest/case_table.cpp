// The declarations docs/conformance.md is checked against: each kernel case's verdict (read by
// check_doc_table.py) and the skips a case may have (checked as each case ends, by the
// Conformance fixture's TearDown below).
#include "harness.hpp"

#include "probes.hpp"

#include <sys/utsname.h>

#include <sstream>
#include <string_view>

namespace afxdp::conformance {

std::string kernel_release() {
  utsname name{};
  return ::uname(&name) == 0 ? std::string(name.release) : std::string("(uname failed)");
}

std::string measured(const std::string& what) {
  return std::string(" (measured on Linux ") + measured_kernel + ": " + what + "; running " +
         kernel_release() + "; docs/conformance.md)";
}

// One row per kernel case, in the kernel's order. check_doc_table.py reads the name and verdict
// of each row below (its first two fields): keep them together.
const std::vector<CaseVerdict>& case_verdicts() {
  static const std::vector<CaseVerdict> table = {
      {"SEND_RECEIVE", Verdict::strict, ""},
      {"SEND_RECEIVE_2K_FRAME", Verdict::strict, ""},
      {"SEND_RECEIVE_SINGLE_PKT", Verdict::strict, ""},
      {"POLL_RX", Verdict::strict, ""},
      {"POLL_TX", Verdict::strict, ""},
      {"POLL_RXQ_FULL", Verdict::strict, ""},
      {"POLL_TXQ_FULL", Verdict::strict, ""},
      {"ALIGNED_INV_DESC", Verdict::variant,
       "copy mode completes the invalid descriptors too; pinned, the kernel's case counts only "
       "valid ones as outstanding"},
      {"ALIGNED_INV_DESC_2K_FRAME_SIZE", Verdict::variant, "as ALIGNED_INV_DESC"},
      {"UMEM_HEADROOM", Verdict::strict, ""},
      {"BIDIRECTIONAL", Verdict::strict, ""},
      {"STAT_RX_DROPPED", Verdict::strict, ""},
      {"STAT_TX_INVALID", Verdict::variant, "as ALIGNED_INV_DESC"},
      {"STAT_RX_FULL", Verdict::strict, ""},
      {"STAT_FILL_EMPTY", Verdict::strict, ""},
      {"XDP_PROG_CLEANUP", Verdict::strict, ""},
      {"XDP_DROP_HALF", Verdict::strict, ""},
      {"XDP_SHARED_UMEM", Verdict::strict, ""},
      {"XDP_METADATA_COPY", Verdict::strict, ""},
      {"XDP_METADATA_COPY_MULTI_BUFF", Verdict::strict, ""},
      {"ALIGNED_INV_DESC_MULTI_BUFF", Verdict::variant,
       "the packet after a chain dropped at XDP_PKT_CONTD is lost; every descriptor completed"},
      {"TOO_MANY_FRAGS", Verdict::variant, "as ALIGNED_INV_DESC_MULTI_BUFF"},
      {"XDP_ADJUST_TAIL_SHRINK", Verdict::strict, ""},
      {"TX_QUEUE_CONSUMER", Verdict::strict, ""},
      {"XDP_ADJUST_TAIL_SHRINK_MULTI_BUFF", Verdict::strict, ""},
      {"XDP_ADJUST_TAIL_GROW", Verdict::partial, "strict in skb mode, n/a on veth's native XDP"},
      {"XDP_ADJUST_TAIL_GROW_MULTI_BUFF", Verdict::not_applicable, "no frag_size on veth"},
      {"SEND_RECEIVE_9K_PACKETS", Verdict::strict, ""},
      {"SEND_RECEIVE_UNALIGNED", Verdict::strict, ""},
      {"UNALIGNED_INV_DESC", Verdict::variant, "as ALIGNED_INV_DESC"},
      {"UNALIGNED_INV_DESC_4001_FRAME_SIZE", Verdict::variant,
       "as ALIGNED_INV_DESC; the odd address completes one lower"},
      {"SEND_RECEIVE_UNALIGNED_9K_PACKETS", Verdict::strict, ""},
      {"UNALIGNED_INV_DESC_MULTI_BUFF", Verdict::variant, "as ALIGNED_INV_DESC_MULTI_BUFF"},
      {"HW_SW_MIN_RING_SIZE", Verdict::not_applicable, "veth has no ethtool ring sizes"},
      {"HW_SW_MAX_RING_SIZE", Verdict::not_applicable, "veth has no ethtool ring sizes"},
      {"TEARDOWN", Verdict::strict, ""},
  };
  return table;
}

const std::vector<ExpectedSkip>& expected_skips() {
  static const std::vector<ExpectedSkip> table = {
      // Not applicable on veth (docs/conformance.md's table says why).
      {"Conformance.XDP_ADJUST_TAIL_GROW", "native native_busy_poll", SkipCause::not_applicable,
       "not applicable on veth's native XDP: bpf_xdp_adjust_tail(4) refused with -EINVAL only"},
      {"Conformance.XDP_ADJUST_TAIL_GROW_MULTI_BUFF", "", SkipCause::not_applicable,
       "bpf_xdp_adjust_tail returned -EOPNOTSUPP"},
      // Their program calls a helper the kernel may refuse.
      {"Conformance.XDP_METADATA_COPY", "", SkipCause::xdp_adjust_meta},
      {"Conformance.XDP_METADATA_COPY_MULTI_BUFF", "", SkipCause::xdp_adjust_meta},
      {"Conformance.XDP_METADATA_COPY_through_Port", "", SkipCause::xdp_adjust_meta},
      {"Conformance.XDP_METADATA_COPY_MULTI_BUFF_jumbo_through_Port", "",
       SkipCause::xdp_adjust_meta},
      {"Conformance.XDP_ADJUST_TAIL_SHRINK", "", SkipCause::xdp_adjust_tail},
      {"Conformance.XDP_ADJUST_TAIL_GROW", "", SkipCause::xdp_adjust_tail},
      {"Conformance.XDP_ADJUST_TAIL_SHRINK_MULTI_BUFF", "", SkipCause::xdp_adjust_tail},
      {"Conformance.XDP_ADJUST_TAIL_SHRINK_MULTI_BUFF_through_Port", "",
       SkipCause::xdp_adjust_tail},
      // Multi-buffer sockets (XDP_USE_SG), which a kernel before 6.6 refuses.
      {"Conformance.SEND_RECEIVE_9K_PACKETS", "", SkipCause::multi_buffer},
      {"Conformance.TOO_MANY_FRAGS", "", SkipCause::multi_buffer},
      {"Conformance.ALIGNED_INV_DESC_MULTI_BUFF", "", SkipCause::multi_buffer},
      {"Conformance.UNALIGNED_INV_DESC_MULTI_BUFF", "", SkipCause::multi_buffer},
      {"Conformance.SEND_RECEIVE_UNALIGNED_9K_PACKETS", "", SkipCause::multi_buffer},
      {"Conformance.XDP_METADATA_COPY_MULTI_BUFF", "", SkipCause::multi_buffer},
      {"Conformance.XDP_ADJUST_TAIL_SHRINK_MULTI_BUFF", "", SkipCause::multi_buffer},
      {"Conformance.XDP_ADJUST_TAIL_GROW_MULTI_BUFF", "", SkipCause::multi_buffer},
      {"Conformance.XDP_METADATA_COPY_MULTI_BUFF_jumbo_through_Port", "", SkipCause::multi_buffer},
      {"Conformance.XDP_ADJUST_TAIL_SHRINK_MULTI_BUFF_through_Port", "", SkipCause::multi_buffer},
      {"Conformance.SEND_RECEIVE_9K_PACKETS_through_Port", "", SkipCause::multi_buffer},
      {"Conformance.SEND_RECEIVE_UNALIGNED_9K_PACKETS_through_Port", "", SkipCause::multi_buffer},
      // Every case in the busy-poll modes (Conformance::SetUp).
      {"*", "skb_busy_poll native_busy_poll", SkipCause::busy_poll},
  };
  return table;
}

namespace {

bool names_mode(const char* modes, const std::string& mode) {
  if (*modes == '\0') return true;
  std::istringstream words(modes);
  for (std::string word; words >> word;) {
    if (word == mode) return true;
  }
  return false;
}

}  // namespace

std::vector<std::string> unexpected_skips(const std::vector<SkippedTest>& skipped,
                                          const std::function<bool(SkipCause)>& refused) {
  std::vector<std::string> faults;
  for (const SkippedTest& test : skipped) {
    const auto slash = test.name.find('/');
    const std::string name = test.name.substr(0, slash);
    const std::string mode = slash == std::string::npos ? "" : test.name.substr(slash + 1);
    bool allowed = false;
    for (const ExpectedSkip& entry : expected_skips()) {
      const bool every_test = std::string_view(entry.test) == "*";
      if ((!every_test && name != entry.test) || !names_mode(entry.modes, mode)) continue;
      if (entry.cause == SkipCause::not_applicable) {
        allowed = allowed || test.why.find(entry.reason) != std::string::npos;
      } else if (refused(entry.cause)) {
        allowed = true;
      }
    }
    if (!allowed) faults.push_back(test.name + " skipped: " + test.why);
  }
  return faults;
}

namespace {

// The expected-skip check: a skip passes only where an entry names the test and
// mode and its facility was refused; "*" names every test, in its modes only.
TEST(ExpectedSkips, ARefusedFacilityAllowsItsCasesOnly) {
  const auto refusing = [](SkipCause refused) {
    return [refused](SkipCause cause) { return cause == refused; };
  };
  const std::vector<SkippedTest> busy{{"Conformance.SEND_RECEIVE/skb_busy_poll", "busy polling"},
                                      {"Conformance.TEARDOWN/native_busy_poll", "busy polling"}};
  EXPECT_TRUE(unexpected_skips(busy, refusing(SkipCause::busy_poll)).empty());
  EXPECT_EQ(unexpected_skips(busy, refusing(SkipCause::multi_buffer)).size(), 2U);
  EXPECT_EQ(unexpected_skips({{"Conformance.SEND_RECEIVE/skb", "busy polling"}},
                             refusing(SkipCause::busy_poll))
                .size(),
            1U);
  const std::vector<SkippedTest> frags{{"Conformance.TOO_MANY_FRAGS/native", "XDP_USE_SG"}};
  EXPECT_TRUE(unexpected_skips(frags, refusing(SkipCause::multi_buffer)).empty());
  EXPECT_EQ(unexpected_skips(frags, refusing(SkipCause::busy_poll)),
            std::vector<std::string>{"Conformance.TOO_MANY_FRAGS/native skipped: XDP_USE_SG"});
  EXPECT_EQ(unexpected_skips({{"Conformance.SEND_RECEIVE/native", "XDP_USE_SG"}},
                             refusing(SkipCause::multi_buffer))
                .size(),
            1U);
}

// A case not applicable on veth may skip for its own reason only, in the modes named.
TEST(ExpectedSkips, NotApplicableOnlyForItsOwnReason) {
  const auto nothing_refused = [](SkipCause) { return false; };
  const std::string grow = "Conformance.XDP_ADJUST_TAIL_GROW/";
  const std::string einval =
      "not applicable on veth's native XDP: bpf_xdp_adjust_tail(4) refused with -EINVAL only "
      "(-EINVAL 26, -EOPNOTSUPP 0, other 0 of 64 frames)";
  EXPECT_TRUE(unexpected_skips({{grow + "native", einval}}, nothing_refused).empty());
  EXPECT_TRUE(unexpected_skips({{grow + "native_busy_poll", einval}}, nothing_refused).empty());
  EXPECT_EQ(unexpected_skips({{grow + "skb", einval}}, nothing_refused).size(), 1U);
  EXPECT_EQ(unexpected_skips({{grow + "native", "bpf_xdp_adjust_tail returned -EOPNOTSUPP"}},
                             nothing_refused)
                .size(),
            1U);
  EXPECT_EQ(unexpected_skips({{grow + "native", "some other reason"}}, nothing_refused).size(), 1U);
  const std::string grow_mb = "Conformance.XDP_ADJUST_TAIL_GROW_MULTI_BUFF/skb";
  EXPECT_TRUE(unexpected_skips({{grow_mb, "bpf_xdp_adjust_tail returned -EOPNOTSUPP (resizing"}},
                               nothing_refused)
                  .empty());
  EXPECT_EQ(unexpected_skips({{grow_mb, "no hugepages"}}, nothing_refused).size(), 1U);
}

}  // namespace

void Conformance::SetUp() {
  if (!GetParam().busy_poll || !afxdp::test::skip_reason().empty()) return;
  AFXDP_REQUIRE_FACILITY(afxdp::test::busy_poll());
}

void Conformance::TearDown() {
  if (!IsSkipped()) return;
  const ::testing::TestInfo& info = *::testing::UnitTest::GetInstance()->current_test_info();
  const ::testing::TestResult& result = *info.result();
  std::string why;
  for (int k = 0; k < result.total_part_count(); ++k) {
    if (result.GetTestPartResult(k).skipped()) why += result.GetTestPartResult(k).message();
  }
  const std::string& no_privilege = afxdp::test::skip_reason();
  if (!no_privilege.empty() && why.find(no_privilege) != std::string::npos) return;
  const auto refused = [](SkipCause cause) {
    switch (cause) {
      case SkipCause::xdp_adjust_meta:
        return !afxdp::test::xdp_adjust_meta().available;
      case SkipCause::xdp_adjust_tail:
        return !afxdp::test::xdp_adjust_tail().available;
      case SkipCause::multi_buffer:
        return !afxdp::test::multi_buffer().available;
      case SkipCause::busy_poll:
        return !afxdp::test::busy_poll().available;
      case SkipCause::not_applicable:
        break;
    }
    return false;
  };
  const SkippedTest skipped{std::string(info.test_suite_name()) + "." + info.name(), why};
  for (const std::string& fault : unexpected_skips({skipped}, refused)) {
    ADD_FAILURE() << "unexpected skip (not allowed by expected_skips() in "
                     "tests/lib/xsk_selftest/case_table.cpp, given what the probes refused "
                     "here): "
                  << fault;
  }
}

}  // namespace afxdp::conformance
