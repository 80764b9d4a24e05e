#include "demo/demo_latency_run.hpp"

#include "common/busy_poll_refusal.hpp"
#include "common/child.hpp"

#include <lab.hpp>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <thread>
#include <unistd.h>

namespace afxdp::tool {
namespace {

std::string text(double value) {
  std::ostringstream out;
  out << value;
  return out.str();
}

// utime + stime of a process, seconds (0 once it is gone).
double cpu_seconds_of(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string content;
  std::getline(stat, content);
  const auto close = content.rfind(')');  // the command name may hold spaces
  if (close == std::string::npos) return 0;
  std::istringstream fields(content.substr(close + 2));
  std::string field;
  double ticks = 0;
  for (int i = 3; i <= 15 && fields >> field; ++i) {
    if (i >= 14) ticks += std::stod(field);
  }
  return ticks / static_cast<double>(::sysconf(_SC_CLK_TCK));
}

// The reflector's command line for an AF_XDP row (run on `interface`).
std::unique_ptr<Child> start_xsk_reflector(const LatencyRow& row, const LatencyRun& run,
                                           const std::string& interface) {
  const std::vector<std::string> pin{"env", "LC_ALL=C", "taskset", "-c",
                                     std::to_string(run.cpus.app)};
  if (row.reflector == LatencyReflector::xdpsock) {
    std::vector<std::string> args{"-l", "-i", interface, "-q", "0", "-N", "-c"};
    if (row.wait == LatencyWait::poll) args.push_back("-p");
    return std::make_unique<Child>(args, run.xdpsock, pin);
  }
  std::vector<std::string> args{"l2fwd", "-i", interface, "-Q", "-N", "-c"};
  if (row.wait == LatencyWait::poll) args.push_back("-p");
  if (row.wait == LatencyWait::busy_poll) args.push_back("-B");
  if (row.spin_us > 0) args.insert(args.end(), {"--spin-before-sleep", text(row.spin_us)});
  return std::make_unique<Child>(args, run.tool, pin);
}

// udp-echo in a network namespace of its own (a datagram to an own address never crosses the
// veth), with the pair's b end moved into it; the namespace, and with it the pair, goes when
// udp-echo ends.
std::unique_ptr<Child> start_udp_reflector(const LatencyRun& run, const lab::VethPair& veth) {
  auto echo = std::make_unique<Child>(
      std::vector<std::string>{"udp-echo", "--listen", "0.0.0.0:7", "--per-source-rate",
                               "1000000"},  // its probes are one source: no limit below theirs
      run.tool,
      std::vector<std::string>{"taskset", "-c", std::to_string(run.cpus.app), "unshare", "-n"});
  // unshare runs udp-echo in its own process: wait until the namespace is there.
  const std::string own = "/proc/self/ns/net";
  const std::string theirs = "/proc/" + std::to_string(echo->pid()) + "/ns/net";
  for (int i = 0; i < 100; ++i) {
    char a[64] = {}, b[64] = {};
    if (::readlink(own.c_str(), a, sizeof a - 1) > 0 &&
        ::readlink(theirs.c_str(), b, sizeof b - 1) > 0 && std::string(a) != b) {
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  const std::string pid = std::to_string(echo->pid());
  lab::run({"ip", "link", "set", veth.b(), "netns", pid});
  lab::run({"nsenter", "-t", pid, "-n", "ip", "addr", "add", "10.9.0.2/24", "dev", veth.b()});
  lab::run({"nsenter", "-t", pid, "-n", "ip", "link", "set", veth.b(), "up"});
  lab::run({"ip", "addr", "add", "10.9.0.1/24", "dev", veth.a()});
  return echo;
}

void measure_row(LatencyRow& row, const LatencyRun& run) {
  lab::VethPair veth("lat");
  const bool udp = row.reflector == LatencyReflector::udp;
  std::unique_ptr<Child> reflector =
      udp ? start_udp_reflector(run, veth) : start_xsk_reflector(row, run, veth.b());
  std::this_thread::sleep_for(std::chrono::milliseconds(500));  // attached and bound
  if (reflector->exited(0)) {
    row.error =
        demo_name(row.reflector) + std::string(" ended at once: ") + reflector->first_error_line();
    return;
  }
  const auto count = static_cast<long long>(demo_latency_rate * run.seconds);
  std::vector<std::string> args{"latency",
                                "--cpu",
                                std::to_string(run.cpus.source),
                                "--rate",
                                text(demo_latency_rate),
                                "-C",
                                std::to_string(count),
                                "--json",
                                "--wait",
                                latency_wait_name(row.wait)};
  if (udp) {
    args.insert(args.end(), {"--udp", "10.9.0.2:7"});
  } else {
    args.insert(args.end(), {"-i", veth.a()});
  }
  if (row.spin_us > 0) args.insert(args.end(), {"--spin-before-sleep", text(row.spin_us)});
  const double cpu_before = cpu_seconds_of(reflector->pid());
  Child latency(args, run.tool);
  const int code = latency.wait(static_cast<int>(run.seconds * 1000) + 20000);
  row.cpu_reflector = cpu_seconds_of(reflector->pid()) - cpu_before;
  reflector->terminate();
  reflector->wait(5000);
  // Lost probes exit 1 after the JSON line: the row shows the loss.
  std::istringstream lines(latency.out());
  std::string line;
  while (std::getline(lines, line)) {
    if (line.find("\"latency\":true") != std::string::npos && read_latency_line(line, row)) {
      row.measured = true;
    }
  }
  if (!row.measured) {
    row.error = latency.first_error_line();
    if (row.error.empty()) row.error = "exit code " + std::to_string(code);
  }
}

}  // namespace

std::vector<LatencyRow> run_demo_latency(const LatencyRun& run,
                                         const std::function<void(const LatencyRow&)>& each) {
  std::vector<LatencyRow> rows = demo_latency_rows(!run.xdpsock.empty());
  // Asked once: a kernel that refuses busy polling skips that row, naming the refusal.
  const bool wants_busy_poll = std::any_of(rows.begin(), rows.end(), [](const LatencyRow& row) {
    return row.wait == LatencyWait::busy_poll;
  });
  const std::string busy_poll_refused = wants_busy_poll ? busy_poll_refusal() : std::string();
  for (LatencyRow& row : rows) {
    if (run.stop != nullptr && run.stop->requested()) {
      row.error = "interrupted";
    } else if (row.wait == LatencyWait::busy_poll && !busy_poll_refused.empty()) {
      row.refused = true;
      row.error = "the kernel refuses " + busy_poll_refused;
    } else {
      try {
        measure_row(row, run);
      } catch (const std::exception& e) {
        row.measured = false;
        row.error = e.what();
      }
    }
    if (each) each(row);
  }
  return rows;
}

}  // namespace afxdp::tool
