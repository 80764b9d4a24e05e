// txpush with and without poll() while its completions come from the other CPU: the peer's
// NAPI (where copy-mode frames are consumed and their skbs freed) runs on CPU 0, txpush on CPU 1.
// xdpsock's txpush with poll() stalls there after some 75,000 frames; ours must send every
// frame and see every completion. The 60 s bound catches a hang; it is not a speed assertion.
#include "system_test.hpp"
#include "tool_test.hpp"

#include <lab.hpp>

#include <string>
#include <thread>
#include <vector>

namespace {

using afxdp::test::json_number;
using afxdp::test::last_line_with;

constexpr int count = 200000;

void run_txpush(const std::vector<std::string>& wait_args) {
  afxdp::test::quiet_ipv6();
  afxdp::lab::VethPair veth(afxdp::lab::unique_prefix());
  // The peer (a) receives through its own NAPI, threaded and pinned to CPU 0.
  afxdp::lab::set_gro(veth.a(), true);
  afxdp::lab::set_threaded_napi(veth.a(), true);
  afxdp::lab::pin_napi_threads(veth.a(), 0);

  std::vector<std::string> args{"txpush", "-i", veth.b(), "-C", std::to_string(count),
                                "--json", "-Q"};
  if (std::thread::hardware_concurrency() >= 2) {
    args.insert(args.end(), {"--cpu", "1"});
  }
  args.insert(args.end(), wait_args.begin(), wait_args.end());
  const afxdp::test::ToolResult result = afxdp::test::run_tool(args, 60000);
  ASSERT_EQ(result.exit_code, 0) << "txpush did not finish within 60 s: " << result.err;
  const std::string summary = last_line_with(result.out, "\"summary\"");
  // tx_packets counts completions: every frame was sent and came back to us.
  EXPECT_EQ(json_number(summary, "tx_packets"), count) << summary;
}

TEST(PerfTxpush, WithPollEveryFrameCompletes) {
  AFXDP_REQUIRE_SYSTEM();
  run_txpush({"-p"});
}

TEST(PerfTxpush, WithoutPollEveryFrameCompletes) {
  AFXDP_REQUIRE_SYSTEM();
  run_txpush({});
}

TEST(PerfTxpush, SkbModeWithPollEveryFrameCompletes) {
  AFXDP_REQUIRE_SYSTEM();
  run_txpush({"-p", "-S"});
}

}  // namespace
