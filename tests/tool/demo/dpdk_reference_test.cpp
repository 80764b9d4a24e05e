// testpmd beside ours (dpdk_reference.hpp): reading its statistics, its command line, which
// cells it plays and finding it.
#include "demo/dpdk_reference.hpp"
#include "demo/demo.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <string>
#include <vector>

using afxdp::tool::DemoBenchmark;
using afxdp::tool::DemoCell;
using afxdp::tool::DemoMode;
using afxdp::tool::DemoOptions;
using afxdp::tool::DemoTool;

namespace {

// testpmd 22.11.11's whole stdout, rxonly on a veth end (dpdk-testpmd -l 0,1 --main-lcore 0
// --no-pci --no-huge --no-shconf --no-telemetry -m 256 --vdev net_af_xdp0,iface=fb,start_queue=0,
// queue_count=1,force_copy=1,busy_budget=0 -- --forward-mode=rxonly --nb-cores=1
// --total-num-mbufs=16384 --stats-period=1), xdpsock -t sending from the peer, stopped by SIGTERM
// 3.3 s after its first statistics block.
const std::string captured_rxonly =
    R"(Set rxonly packet forwarding mode
Configuring Port 0 (socket 0)
Port 0: D6:3D:4F:B7:C7:1E
Checking link statuses...
Done
No commandline core given, start packet forwarding
rxonly packet forwarding - ports=1 - cores=1 - streams=1 - NUMA support enabled, MP allocation mode: native
Logical Core 1 (socket 0) forwards packets on 1 streams:
  RX P=0/Q=0 (socket 0) -> TX P=0/Q=0 (socket 0) peer=02:00:00:00:00:00

  rxonly packet forwarding packets/burst=32
  nb forwarding cores=1 - nb forwarding ports=1
  port 0: RX queue number: 1 Tx queue number: 1
    Rx offloads=0x0 Tx offloads=0x0
    RX queue: 0
      RX desc=0 - RX free threshold=0
      RX threshold registers: pthresh=0 hthresh=0  wthresh=0
      RX Offloads=0x0
    TX queue: 0
      TX desc=0 - TX free threshold=0
      TX threshold registers: pthresh=0 hthresh=0  wthresh=0
      TX offloads=0x0 - TX RS bit threshold=0
)"
    "\x1b[2J\x1b[1;1H"
    R"(
Port statistics ====================================
  ######################## NIC statistics for port 0  ########################
  RX-packets: 544        RX-missed: 0          RX-bytes:  32640
  RX-errors: 0
  RX-nombuf:  0         
  TX-packets: 0          TX-errors: 0          TX-bytes:  0

  Throughput (since last show)
  Rx-pps:            0          Rx-bps:            0
  Tx-pps:            0          Tx-bps:            0
  ############################################################################
)"
    "\x1b[2J\x1b[1;1H"
    R"(
Port statistics ====================================
  ######################## NIC statistics for port 0  ########################
  RX-packets: 39520      RX-missed: 17600      RX-bytes:  2371200
  RX-errors: 0
  RX-nombuf:  0         
  TX-packets: 0          TX-errors: 0          TX-bytes:  0

  Throughput (since last show)
  Rx-pps:        38514          Rx-bps:     18486920
  Tx-pps:            0          Tx-bps:            0
  ############################################################################
)"
    "\x1b[2J\x1b[1;1H"
    R"(
Port statistics ====================================
  ######################## NIC statistics for port 0  ########################
  RX-packets: 150675     RX-missed: 101077     RX-bytes:  9040500
  RX-errors: 0
  RX-nombuf:  0         
  TX-packets: 0          TX-errors: 0          TX-bytes:  0

  Throughput (since last show)
  Rx-pps:        55248          Rx-bps:     26519056
  Tx-pps:            0          Tx-bps:            0
  ############################################################################
Telling cores to stop...
Waiting for lcores to finish...

  ---------------------- Forward statistics for port 0  ----------------------
  RX-packets: 215123         RX-dropped: 145261        RX-total: 360384
  TX-packets: 0              TX-dropped: 0             TX-total: 0
  ----------------------------------------------------------------------------

  +++++++++++++++ Accumulated forward statistics for all ports+++++++++++++++
  RX-packets: 215123         RX-dropped: 145261        RX-total: 360384
  TX-packets: 0              TX-dropped: 0             TX-total: 0
  ++++++++++++++++++++++++++++++++++++++++++++++++++++++++++++++++++++++++++++

Done.

Primary: Sending 'stop_req' request to secondary...

Stopping port 0...
Stopping ports...
Done

Shutting down port 0...
Closing ports...
Port 0 is closed
Done

Bye...
)";

}  // namespace

// Each statistics block's count, in order; the totals at exit are not a block.
TEST(TestpmdBlockCounts, EachBlocksCountInOrder) {
  std::size_t from = 0;
  EXPECT_EQ(afxdp::tool::testpmd_block_counts(captured_rxonly, "RX", from),
            (std::vector<double>{544, 39520, 150675}));
  EXPECT_EQ(from, captured_rxonly.rfind("Tx-pps:") + 7);
  from = 0;
  EXPECT_EQ(afxdp::tool::testpmd_block_counts(captured_rxonly, "TX", from),
            (std::vector<double>{0, 0, 0}));
}

// Read as it arrives: a block counts once it is complete (its Tx-pps line), and once only.
TEST(TestpmdBlockCounts, ABlockCountsOnceWhenComplete) {
  const std::size_t second = captured_rxonly.find("Tx-pps:", captured_rxonly.find("39520"));
  std::size_t from = 0;
  const std::string half = captured_rxonly.substr(0, second);
  EXPECT_EQ(afxdp::tool::testpmd_block_counts(half, "RX", from), (std::vector<double>{544}));
  EXPECT_EQ(afxdp::tool::testpmd_block_counts(half, "RX", from), (std::vector<double>{}));
  EXPECT_EQ(afxdp::tool::testpmd_block_counts(captured_rxonly, "RX", from),
            (std::vector<double>{39520, 150675}));
  EXPECT_EQ(afxdp::tool::testpmd_block_counts(captured_rxonly, "RX", from),
            (std::vector<double>{}));
}

// Nothing printed, an error, or a block without a number: no counts.
TEST(TestpmdBlockCounts, NoBlockNoCount) {
  std::size_t from = 0;
  EXPECT_TRUE(afxdp::tool::testpmd_block_counts("", "RX", from).empty());
  EXPECT_TRUE(
      afxdp::tool::testpmd_block_counts("EAL: Error - exiting with code: 1\n", "RX", from).empty());
  from = 0;
  EXPECT_TRUE(afxdp::tool::testpmd_block_counts(
                  "NIC statistics for port 0\n RX-packets: x\n Tx-pps: 0\n", "RX", from)
                  .empty());
}

// testpmd's command line: EAL's arguments, then its own.
TEST(TestpmdArgs, OneCellInTestpmdsArguments) {
  DemoCell cell;
  cell.benchmark = DemoBenchmark::rxdrop;
  cell.mode = DemoMode::native;
  const std::vector<std::string> rx =
      afxdp::tool::testpmd_args(cell, "demob", {2, 3}, "02:00:00:00:00:02");
  const auto has = [](const std::vector<std::string>& args, const std::string& arg) {
    return std::find(args.begin(), args.end(), arg) != args.end();
  };
  // The main lcore on the source's CPU, the forwarding one on the application's.
  const auto list = std::find(rx.begin(), rx.end(), "-l");
  ASSERT_NE(list, rx.end());
  EXPECT_EQ(*(list + 1), "2,3");
  const auto main_lcore = std::find(rx.begin(), rx.end(), "--main-lcore");
  ASSERT_NE(main_lcore, rx.end());
  EXPECT_EQ(*(main_lcore + 1), "2");
  EXPECT_TRUE(has(rx, "--no-huge"));
  EXPECT_TRUE(has(rx, "--no-shconf"));
  EXPECT_TRUE(has(rx, "afxdp-demo")) << "--file-prefix: a runtime directory of ours to remove";
  EXPECT_TRUE(
      has(rx, "net_af_xdp0,iface=demob,start_queue=0,queue_count=1,force_copy=1,busy_budget=0"));
  EXPECT_TRUE(has(rx, "--forward-mode=rxonly"));
  EXPECT_TRUE(has(rx, "--stats-period=1"));
  EXPECT_FALSE(has(rx, "--eth-peer=0,02:00:00:00:00:02"));
  // EAL's arguments, then "--", then testpmd's.
  const auto split = std::find(rx.begin(), rx.end(), "--");
  ASSERT_NE(split, rx.end());
  EXPECT_LT(split - rx.begin(),
            std::find(rx.begin(), rx.end(), "--forward-mode=rxonly") - rx.begin());

  cell.benchmark = DemoBenchmark::txpush;
  cell.busy_poll = true;
  const std::vector<std::string> tx =
      afxdp::tool::testpmd_args(cell, "demob", {0, 1}, "02:00:00:00:00:02");
  EXPECT_TRUE(has(tx, "--forward-mode=txonly"));
  EXPECT_TRUE(has(tx, "--eth-peer=0,02:00:00:00:00:02"));
  EXPECT_TRUE(
      has(tx, "net_af_xdp0,iface=demob,start_queue=0,queue_count=1,force_copy=1,busy_budget=64"));
  cell.benchmark = DemoBenchmark::l2fwd;
  EXPECT_TRUE(has(afxdp::tool::testpmd_args(cell, "demob", {0, 1}, "x"), "--forward-mode=macswap"));
}

// testpmd follows ours (and xdpsock's) in the one-queue native cells without poll() only.
TEST(DemoMatrix, TestpmdFollowsTheCellsItCanPlay) {
  DemoOptions options;
  options.waits = {"spin", "poll", "busy-poll"};
  options.queues = {1, 2};
  options.reference = "/bin/true";
  options.reference_dpdk = "/bin/true";
  const auto cells = afxdp::tool::demo_matrix(options);
  int twins = 0;
  for (std::size_t i = 0; i < cells.size(); ++i) {
    if (cells[i].tool != DemoTool::dpdk) continue;
    ++twins;
    ASSERT_GE(i, 2U);
    EXPECT_EQ(cells[i - 1].tool, DemoTool::xdpsock);
    EXPECT_EQ(cells[i - 2].tool, DemoTool::afxdp);
    for (const DemoCell* other : {&cells[i - 1], &cells[i - 2]}) {
      EXPECT_EQ(other->benchmark, cells[i].benchmark);
      EXPECT_EQ(other->poll, cells[i].poll);
      EXPECT_EQ(other->busy_poll, cells[i].busy_poll);
      EXPECT_EQ(other->cores, cells[i].cores);
    }
    EXPECT_EQ(cells[i].mode, DemoMode::native);
    EXPECT_EQ(cells[i].queues, 1);
    EXPECT_FALSE(cells[i].poll);
  }
  // rxdrop, txpush, l2fwd x spin, busy-poll x 1 and 2 cores.
  EXPECT_EQ(twins, 12);
  options.reference_dpdk.clear();
  for (const DemoCell& cell : afxdp::tool::demo_matrix(options))
    EXPECT_NE(cell.tool, DemoTool::dpdk);
}

TEST(ResolveTestpmd, APathOrANameInPath) {
  std::string why;
  EXPECT_EQ(afxdp::tool::resolve_testpmd("/bin/sh", why), "/bin/sh");
  EXPECT_EQ(why, "");
  EXPECT_EQ(afxdp::tool::resolve_testpmd("/nonexistent/dpdk-testpmd", why), "");
  EXPECT_EQ(why, "/nonexistent/dpdk-testpmd does not exist");
  EXPECT_EQ(afxdp::tool::resolve_testpmd("/proc/version", why), "");
  EXPECT_EQ(why, "/proc/version is not an executable file");
  EXPECT_EQ(afxdp::tool::resolve_testpmd("/tmp", why), "");
  EXPECT_EQ(why, "/tmp is not an executable file");
  const std::string sh = afxdp::tool::resolve_testpmd("sh", why);
  EXPECT_EQ(why, "");
  EXPECT_EQ(sh.substr(sh.size() - 3), "/sh");
  EXPECT_EQ(afxdp::tool::resolve_testpmd("no-such-testpmd-x", why), "");
  EXPECT_EQ(why, "no-such-testpmd-x is not installed (not found in PATH)");
}

// Without testpmd in PATH, --reference-dpdk is one line naming the package, while parsing.
TEST(DemoOptions, ReferenceDpdkWithoutTestpmdIsOneLine) {
  const char* old = std::getenv("PATH");
  const std::string saved = old != nullptr ? old : "";
  ::setenv("PATH", "/nonexistent", 1);
  CLI::App app{"test"};
  afxdp::tool::add_demo_subcommand(app);
  std::string what = "accepted";
  try {
    app.parse(std::vector<std::string>{"--reference-dpdk", "demo"});  // CLI11 reads it last first
  } catch (const CLI::ParseError& e) {
    what = e.what();
  }
  ::setenv("PATH", saved.c_str(), 1);
  EXPECT_EQ(what,
            "--reference-dpdk: dpdk-testpmd is not installed (Debian: apt-get install dpdk-dev)");
}

// A path instead of the default: taken when it is an executable file, one line when it is not.
TEST(DemoOptions, ReferenceDpdkTakesAPath) {
  const auto parse = [](const std::string& option) {
    CLI::App app{"test"};
    afxdp::tool::add_demo_subcommand(app);
    try {
      app.parse(std::vector<std::string>{option, "demo"});  // CLI11 reads it last first
    } catch (const CLI::ParseError& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_EQ(parse("--reference-dpdk=/bin/sh"), "accepted");
  EXPECT_EQ(parse("--reference-dpdk=/nonexistent/dpdk-testpmd"),
            "--reference-dpdk: /nonexistent/dpdk-testpmd does not exist");
}
