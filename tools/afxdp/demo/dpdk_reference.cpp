#include "demo/dpdk_reference.hpp"

#include "common/child.hpp"
#include "demo/demo_matrix.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdlib>
#include <sstream>
#include <string_view>
#include <sys/stat.h>
#include <unistd.h>

namespace afxdp::tool {
namespace {

bool executable_file(const std::string& path) {
  struct stat info {};
  return ::stat(path.c_str(), &info) == 0 && S_ISREG(info.st_mode) &&
         ::access(path.c_str(), X_OK) == 0;
}

// EAL makes its runtime directory, /var/run/dpdk/<prefix>, even with --no-shconf, and leaves it
// (empty) at exit: ours is named, so that it can be removed after.
constexpr const char* testpmd_prefix = "afxdp-demo";
const std::string runtime_root = "/var/run/dpdk";
// A statistics block's first line, and its last.
constexpr const char* block_start = "NIC statistics for port";
constexpr const char* block_end = "Tx-pps:";

}  // namespace

std::string resolve_testpmd(const std::string& program, std::string& why) {
  why.clear();
  if (program.find('/') != std::string::npos) {
    if (::access(program.c_str(), F_OK) != 0) {
      why = program + " does not exist";
    } else if (!executable_file(program)) {
      why = program + " is not an executable file";
    }
    return why.empty() ? program : std::string();
  }
  const char* path = std::getenv("PATH");
  std::istringstream dirs(path != nullptr ? path : "/usr/local/bin:/usr/bin:/bin");
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    std::string candidate = (dir.empty() ? "." : dir) + "/" + program;
    if (executable_file(candidate)) return candidate;
  }
  why =
      program + " is not installed" +
      (program == default_testpmd ? " (Debian: apt-get install dpdk-dev)" : " (not found in PATH)");
  return {};
}

bool has_dpdk_twin(const DemoCell& cell) {
  return cell.benchmark != DemoBenchmark::xdp_drop && cell.queues == 1 &&
         cell.mode == DemoMode::native && !cell.poll;
}

std::vector<std::string> testpmd_args(const DemoCell& cell, const std::string& interface,
                                      DemoCpus cpus, const std::string& peer_mac) {
  // busy_budget=0 turns the driver's preferred busy polling (on by default) off.
  const std::string vdev =
      "net_af_xdp0,iface=" + interface +
      ",start_queue=0,queue_count=1,force_copy=1,busy_budget=" + (cell.busy_poll ? "64" : "0");
  const char* mode = cell.benchmark == DemoBenchmark::rxdrop   ? "rxonly"
                     : cell.benchmark == DemoBenchmark::txpush ? "txonly"
                                                               : "macswap";
  // lcore ids are CPU numbers here (-l): the main one on the source's CPU, forwarding on the app's.
  const std::string source = std::to_string(cpus.source);
  std::vector<std::string> args{"-l", source + "," + std::to_string(cpus.app), "--main-lcore",
                                source};
  args.insert(args.end(), {"--no-pci", "--no-huge", "--no-shconf", "--no-telemetry",
                           "--file-prefix", testpmd_prefix, "-m", "256", "--vdev", vdev, "--"});
  args.insert(args.end(), {std::string("--forward-mode=") + mode, "--nb-cores=1",
                           "--total-num-mbufs=16384", "--stats-period=1"});
  if (cell.benchmark == DemoBenchmark::txpush) args.push_back("--eth-peer=0," + peer_mac);
  return args;
}

namespace {

// The number after `key` at or after `from` in `out`; false when there is none.
bool number_after(const std::string& out, std::size_t from, const std::string& key, double& value) {
  if (from == std::string::npos) return false;
  const std::size_t at = out.find(key, from);
  if (at == std::string::npos) return false;
  const std::string rest = out.substr(at + key.size(), 32);
  char* end = nullptr;
  value = std::strtod(rest.c_str(), &end);
  return end != rest.c_str() && std::isfinite(value) && value >= 0;
}

}  // namespace

std::vector<double> testpmd_block_counts(const std::string& out, const std::string& direction,
                                         std::size_t& from) {
  const std::string key = direction + "-packets:";
  std::vector<double> counts;
  for (std::size_t end = out.find(block_end, from); end != std::string::npos;
       end = out.find(block_end, from)) {
    const std::size_t block = out.rfind(block_start, end);
    double packets = 0;
    if (block != std::string::npos && block >= from && number_after(out, block, key, packets)) {
      counts.push_back(packets);
    }
    from = end + std::string_view(block_end).size();
  }
  return counts;
}

namespace {

// testpmd's blocks as they arrived here: the time and the port's count in each.
struct TestpmdBlocks {
  std::string direction;
  std::size_t scanned = 0;
  std::vector<std::chrono::steady_clock::time_point> at{};
  std::vector<double> packets{};

  void read(const std::string& out) {
    const auto now = std::chrono::steady_clock::now();
    for (const double count : testpmd_block_counts(out, direction, scanned)) {
      at.push_back(now);
      packets.push_back(count);
    }
  }
  // Seconds from the first block to the last.
  [[nodiscard]] double seconds() const {
    return at.size() < 2 ? 0 : std::chrono::duration<double>(at.back() - at.front()).count();
  }
};

// Waits (reading its output) until `done` holds or `app` exits or the deadline passes.
template <typename Done>
void forward_until(Child& app, TestpmdBlocks& blocks,
                   std::chrono::steady_clock::time_point deadline, const Done& done) {
  while (!done() && std::chrono::steady_clock::now() < deadline && !app.exited(5)) {
    blocks.read(app.out());
  }
  blocks.read(app.out());
}

std::string testpmd_error(Child& app, int code) {
  const std::string why = app.last_error_line();
  return "testpmd: " + (why.empty() ? "exit code " + std::to_string(code) : why);
}

}  // namespace

void run_testpmd(DemoCell& cell, const std::string& program, const std::string& interface,
                 double seconds, DemoCpus cpus, const std::string& peer_mac,
                 const std::function<void()>& running) {
  const bool had_root = ::access(runtime_root.c_str(), F_OK) == 0;
  // rmdir takes empty directories only: whatever another DPDK program keeps there stays.
  struct RemoveRuntimeDir {
    bool had_root;
    ~RemoveRuntimeDir() {
      ::rmdir((runtime_root + "/" + testpmd_prefix).c_str());
      if (!had_root) ::rmdir(runtime_root.c_str());
    }
  } remove_runtime_dir{had_root};
  // Not ours: started with SIGTERM deliverable, as its handler expects (Child's default holds it).
  Child app(testpmd_args(cell, interface, cpus, peer_mac), program, {"env"},
            Child::OnTimeout::terminate, Child::Signals::open);
  TestpmdBlocks blocks{.direction = cell.benchmark == DemoBenchmark::rxdrop ? "RX" : "TX"};
  const auto now = [] { return std::chrono::steady_clock::now(); };
  forward_until(app, blocks, now() + std::chrono::seconds(30), [&] { return !blocks.at.empty(); });
  if (blocks.at.empty()) {
    cell.error = testpmd_error(app, app.wait(1000));
    return;
  }
  running();
  // Its blocks come every one or two seconds: the last one may come up to two after `seconds`.
  const auto enough =
      blocks.at.front() + std::chrono::milliseconds(static_cast<long>(seconds * 1000));
  forward_until(app, blocks, enough + std::chrono::seconds(3),
                [&] { return blocks.at.back() >= enough; });
  const bool died = app.exited(0);
  app.terminate();
  const int code = app.wait(15000);
  // 22.11.11 exits 0 after its clean-up; releases that re-raise the signal end by SIGTERM.
  if (died || (code != 0 && code != 128 + SIGTERM)) {
    cell.error = testpmd_error(app, code);
    return;
  }
  if (blocks.at.back() < enough) {
    cell.error = "testpmd: no statistics block at the end of the cell's time";
    return;
  }
  cell.mpps = (blocks.packets.back() - blocks.packets.front()) / blocks.seconds() / 1e6;
  cell.measured = true;
}

}  // namespace afxdp::tool
