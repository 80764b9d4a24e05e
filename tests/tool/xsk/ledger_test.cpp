// The frame ledger at the end of each benchmark (no error, every frame in one of four places),
// and the counters reconciled: every frame sent into rxdrop is either counted or counted as
// dropped, by us, by XDP_STATISTICS or by the veth pair.
#include "system_test.hpp"
#include "tool_test.hpp"

#include <afxdp/xsk/interface.hpp>
#include <afxdp/xsk/xsk_program.hpp>
#include <lab.hpp>

#include <csignal>
#include <cstdio>
#include <thread>

namespace {

using afxdp::test::Child;
using afxdp::test::interface_counter;
using afxdp::test::json_number;
using afxdp::test::json_true;
using afxdp::test::last_line_with;
using afxdp::test::start_tool;
using afxdp::test::wait_until_running;

// Every frame of the run's UMEMs is in exactly one place, and no hand-over went wrong.
void expect_ledger_balanced(const std::string& summary, const char* who) {
  SCOPED_TRACE(who);
  ASSERT_NE(summary, "");
  if (!json_true(summary, "ledger")) {
    GTEST_SKIP() << "the afxdp binary was built without AFXDP_FRAME_LEDGER: no ledger to check";
  }
  EXPECT_EQ(json_number(summary, "ledger_errors"), 0) << summary;
  const double frames = json_number(summary, "frames");
  EXPECT_GT(frames, 0) << summary;
  EXPECT_EQ(json_number(summary, "frames_free") + json_number(summary, "frames_fill") +
                json_number(summary, "frames_application") + json_number(summary, "frames_tx"),
            frames)
      << summary;
  EXPECT_EQ(json_number(summary, "frames_application"), 0) << summary;
}

void ledger_with_traffic(const char* receiver) {
  afxdp::test::quiet_ipv6();
  afxdp::lab::VethPair veth(afxdp::lab::unique_prefix());
  Child rx =
      start_tool({receiver, "-i", veth.b(), "-C", "20000", "-d", "60", "--json", "-n", "0.2"});
  wait_until_running(rx);
  Child tx =
      start_tool({"txpush", "-i", veth.a(), "-C", "20000", "--rate", "50000", "--json", "-Q"});
  ASSERT_EQ(tx.wait(60000), 0) << tx.err();
  ASSERT_EQ(rx.wait(60000), 0) << rx.err();
  const std::string rx_summary = last_line_with(rx.out(), "\"summary\":true");
  EXPECT_EQ(json_number(rx_summary, "rx_packets"), 20000) << rx_summary;
  expect_ledger_balanced(rx_summary, receiver);
  expect_ledger_balanced(last_line_with(tx.out(), "\"summary\":true"), "txpush");
}

TEST(ReliabilityLedger, RxdropAndTxpushAccountForEveryFrame) {
  AFXDP_REQUIRE_SYSTEM();
  ledger_with_traffic("rxdrop");
}

TEST(ReliabilityLedger, L2fwdAndTxpushAccountForEveryFrame) {
  AFXDP_REQUIRE_SYSTEM();
  ledger_with_traffic("l2fwd");
}

// Overflow on purpose: tiny rings, the receiver frozen during the burst. Afterwards
//   sent = rx_packets (ours) + rx_ring_full + rx_dropped (XDP_STATISTICS) + tx_dropped (sender
//   veth)
// and rx_fill_ring_empty_descs is already inside rx_dropped (the kernel counts a fill-ring miss
// in both), so adding it would count those frames twice. With every ring the same size and no
// more frames than that, the rx ring cannot fill up: the overflow shows as fill-ring misses.
TEST(ReliabilityReconcile, EveryFrameSentIsCountedOrCountedAsDropped) {
  AFXDP_REQUIRE_SYSTEM();
  afxdp::test::quiet_ipv6();
  afxdp::lab::VethPair veth(afxdp::lab::unique_prefix());
  Child rx = start_tool({"rxdrop", "-i", veth.b(), "--ring-size", "64", "--frames", "64", "-b",
                         "16", "-x", "--json", "-n", "0.1", "--cpu", "0"});
  wait_until_running(rx);
  const std::uint64_t a_tx_dropped0 = interface_counter(veth.a(), "tx_dropped");
  const std::uint64_t b_rx_dropped0 = interface_counter(veth.b(), "rx_dropped");
  const std::uint64_t a_tx0 = interface_counter(veth.a(), "tx_packets");

  afxdp::lab::PacketSocket sender(veth.a());
  const auto dst = afxdp::mac_address(veth.b());
  const auto src = afxdp::mac_address(veth.a());
  std::uint64_t sent = 0;
  // The receiver is frozen while the burst goes in, so the overflow happens whatever the speed
  // of the machine (an idle one keeps up with the sender otherwise): its 64 lent frames fill up
  // and the kernel must drop the rest, and count it.
  rx.signal(SIGSTOP);
  for (std::uint32_t i = 0; i < 200000; ++i) {
    const auto frame = afxdp::lab::test_frame(i, 64, dst, src);
    if (sender.send(frame.data(), frame.size())) ++sent;
  }
  rx.signal(SIGCONT);
  // Let the counts settle: two intervals in a row without a change.
  double last = -1;
  int unchanged = 0;
  std::string line;
  while (unchanged < 2 && rx.read_line(line, 5000)) {
    if (line.find("\"socket\"") == std::string::npos) continue;
    const double now = json_number(line, "rx_packets");
    unchanged = now == last ? unchanged + 1 : 0;
    last = now;
  }
  rx.signal(SIGTERM);
  ASSERT_EQ(rx.wait(10000), 0) << rx.err();
  const std::string s = last_line_with(rx.out(), "\"summary\":true");
  ASSERT_NE(s, "");
  const auto received = static_cast<std::uint64_t>(json_number(s, "rx_packets"));
  const auto ring_full = static_cast<std::uint64_t>(json_number(s, "rx_ring_full"));
  const auto xsk_dropped = static_cast<std::uint64_t>(json_number(s, "rx_dropped"));
  const auto fill_empty = static_cast<std::uint64_t>(json_number(s, "rx_fill_ring_empty_descs"));
  const std::uint64_t a_tx_dropped = interface_counter(veth.a(), "tx_dropped") - a_tx_dropped0;
  const std::uint64_t b_rx_dropped = interface_counter(veth.b(), "rx_dropped") - b_rx_dropped0;
  const std::uint64_t a_tx = interface_counter(veth.a(), "tx_packets") - a_tx0;
  std::printf(
      "sent %llu: received %llu, rx_ring_full %llu, rx_dropped %llu, "
      "rx_fill_ring_empty_descs %llu; veth a tx_packets %llu tx_dropped %llu, "
      "b rx_dropped %llu\n",
      static_cast<unsigned long long>(sent), static_cast<unsigned long long>(received),
      static_cast<unsigned long long>(ring_full), static_cast<unsigned long long>(xsk_dropped),
      static_cast<unsigned long long>(fill_empty), static_cast<unsigned long long>(a_tx),
      static_cast<unsigned long long>(a_tx_dropped), static_cast<unsigned long long>(b_rx_dropped));
  // The overflow happened (else this test shows nothing).
  EXPECT_GT(ring_full + xsk_dropped + a_tx_dropped, 0U);
  EXPECT_EQ(sent, received + ring_full + xsk_dropped + a_tx_dropped);
  // The receiving veth counts each failed redirect into the socket as its own rx_dropped: the
  // same frames again, so never add it to the sum above.
  EXPECT_EQ(b_rx_dropped, ring_full + xsk_dropped);
  EXPECT_EQ(afxdp::attached_xdp_program(afxdp::interface_index(veth.b())), 0U);
}

}  // namespace
