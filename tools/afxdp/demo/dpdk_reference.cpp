#include "demo/dpdk_reference.hpp"

#include "demo/child.hpp"
#include "demo/demo_matrix.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdlib>
#include <sstream>
#include <sys/stat.h>
#include <unistd.h>

namespace afxdp::tool {
namespace {

bool executable_file(const std::string& path) {
  struct stat info {};
  return ::stat(path.c_str(), &info) == 0 && S_ISREG(info.st_mode) &&
         ::access(path.c_str(), X_OK) == 0;
}

// The last line of `text` with something on it ("" when none).
std::string last_line(const std::string& text) {
  std::istringstream lines(text);
  std::string line, found;
  while (std::getline(lines, line)) {
    if (line.find_first_not_of(" \t\r") != std::string::npos) found = line;
  }
  const auto start = found.find_first_not_of(" \t");
  return start == std::string::npos ? found : found.substr(start);
}

// EAL makes its runtime directory, /var/run/dpdk/<prefix>, even with --no-shconf, and leaves it
// (empty) at exit: ours is named, so that it can be removed after.
constexpr const char* testpmd_prefix = "afxdp-demo";
const std::string runtime_root = "/var/run/dpdk";

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
    const std::string candidate = (dir.empty() ? "." : dir) + "/" + program;
    if (executable_file(candidate)) return candidate;
  }
  why = program + " is not installed" +
        (program == default_testpmd ? " (Debian: apt-get install dpdk)" : " (not found in PATH)");
  return {};
}

bool has_dpdk_twin(const DemoCell& cell) {
  return cell.benchmark != demo_ceiling && cell.queues == 1 && cell.mode == "native" && !cell.poll;
}

std::vector<std::string> testpmd_args(const DemoCell& cell, const std::string& interface,
                                      DemoCpus cpus, const std::string& peer_mac) {
  // busy_budget=0 turns the driver's preferred busy polling (on by default) off.
  const std::string vdev =
      "net_af_xdp0,iface=" + interface +
      ",start_queue=0,queue_count=1,force_copy=1,busy_budget=" + (cell.busy_poll ? "64" : "0");
  const char* mode = cell.benchmark == "rxdrop"   ? "rxonly"
                     : cell.benchmark == "txpush" ? "txonly"
                                                  : "macswap";
  // lcore ids are CPU numbers here (-l): the main one on the source's CPU, forwarding on the app's.
  const std::string source = std::to_string(cpus.source);
  std::vector<std::string> args{"-l", source + "," + std::to_string(cpus.app), "--main-lcore",
                                source};
  args.insert(args.end(), {"--no-pci", "--no-huge", "--no-shconf", "--no-telemetry",
                           "--file-prefix", testpmd_prefix, "-m", "256", "--vdev", vdev, "--"});
  args.insert(args.end(), {std::string("--forward-mode=") + mode, "--nb-cores=1",
                           "--total-num-mbufs=16384", "--stats-period=1"});
  if (cell.benchmark == "txpush") args.push_back("--eth-peer=0," + peer_mac);
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

bool testpmd_packets(const std::string& out, const std::string& direction, double& packets) {
  const std::string key = direction + "-packets:";
  double first = 0, total = 0;
  if (!number_after(out, out.find("NIC statistics for port"), key, first) ||
      !number_after(out, out.find("Accumulated forward statistics"), key, total) || total < first) {
    return false;
  }
  packets = total - first;
  return true;
}

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
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  bool forwarding = false;
  while (!forwarding && std::chrono::steady_clock::now() < give_up && !app.exited(5)) {
    forwarding = app.out().find("Tx-pps:") != std::string::npos;  // the first block's last line
  }
  const auto start = std::chrono::steady_clock::now();
  if (!forwarding) {
    const int code = app.wait(1000);
    const std::string why =
        last_line(app.err()).empty() ? last_line(app.out()) : last_line(app.err());
    cell.error = "testpmd: " + (why.empty() ? "exit code " + std::to_string(code) : why);
    return;
  }
  running();
  const auto stop = start + std::chrono::milliseconds(static_cast<long>(seconds * 1000));
  while (std::chrono::steady_clock::now() < stop) {
    if (app.exited(5)) break;
  }
  const bool died = app.exited(0);
  app.terminate();
  const double elapsed =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const int code = app.wait(15000);
  // 22.11.11 exits 0 after its clean-up; releases that re-raise the signal end by SIGTERM.
  if (died || (code != 0 && code != 128 + SIGTERM)) {
    const std::string why = last_line(app.err());
    cell.error = "testpmd: " + (why.empty() ? "exit code " + std::to_string(code) : why);
    return;
  }
  double packets = 0;
  if (!testpmd_packets(app.out(), cell.benchmark == "rxdrop" ? "RX" : "TX", packets)) {
    cell.error = "testpmd: no statistics in its output";
    return;
  }
  cell.mpps = packets / elapsed / 1e6;
  cell.measured = true;
}

}  // namespace afxdp::tool
