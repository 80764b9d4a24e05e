#include "demo/demo_latency.hpp"

#include "common/json.hpp"
#include "demo/demo_matrix.hpp"

#include <cstdio>

namespace afxdp::tool {

const char* demo_name(LatencyReflector reflector) {
  constexpr const char* names[] = {"afxdp", "udp", "xdpsock"};
  return names[static_cast<int>(reflector)];
}

namespace {
LatencyRow row(LatencyReflector reflector, LatencyWait wait, double spin_us = 0) {
  LatencyRow r;
  r.reflector = reflector;
  r.wait = wait;
  r.spin_us = spin_us;
  return r;
}
}  // namespace

std::vector<LatencyRow> demo_latency_rows(bool xdpsock) {
  const auto ours = LatencyReflector::afxdp;
  std::vector<LatencyRow> rows{row(ours, LatencyWait::spin), row(ours, LatencyWait::poll),
                               row(ours, LatencyWait::poll, demo_latency_spin_us),
                               row(ours, LatencyWait::busy_poll),
                               row(LatencyReflector::udp, LatencyWait::poll)};
  if (xdpsock) {
    rows.push_back(row(LatencyReflector::xdpsock, LatencyWait::spin));
    rows.push_back(row(LatencyReflector::xdpsock, LatencyWait::poll));
  }
  return rows;
}

std::string latency_row_name(const LatencyRow& row) {
  const std::string wait = row.wait == LatencyWait::poll ? "poll()" : latency_wait_name(row.wait);
  if (row.reflector == LatencyReflector::udp) return "kernel UDP socket, " + wait;
  std::string name = demo_name(row.reflector) + std::string(" l2fwd, ") + wait;
  if (row.spin_us > 0) {
    char spin[48];
    std::snprintf(spin, sizeof spin, " after a %g us spin", row.spin_us);
    name += spin;
  }
  return name;
}

bool read_latency_line(const std::string& line, LatencyRow& row) {
  double sent = 0, lost = 0;
  if (!json_number(line, "p50_us", row.p50_us) || !json_number(line, "p99_us", row.p99_us) ||
      !json_number(line, "p99_9_us", row.p99_9_us) || !json_number(line, "max_us", row.max_us) ||
      !json_number(line, "sent", sent) || !json_number(line, "lost", lost) ||
      !json_number(line, "cpu_seconds", row.cpu_ours)) {
    return false;
  }
  row.sent = static_cast<std::uint64_t>(sent);
  row.lost = static_cast<std::uint64_t>(lost);
  return true;
}

std::string demo_latency_table(const std::vector<LatencyRow>& rows, double seconds) {
  char line[256];
  std::snprintf(line, sizeof line,
                "\nLatency: round trips at %g probes/s, %g s per row, microseconds; CPU seconds "
                "of each end over the row\n",
                demo_latency_rate, seconds);
  std::string text = line;
  std::snprintf(line, sizeof line, "%-42s %8s %8s %8s %8s %14s %14s\n", "reflector, wait", "p50",
                "p99", "p99.9", "max", "lost", "CPU ours/refl");
  text += line;
  for (const LatencyRow& row : rows) {
    if (!row.measured) {
      std::snprintf(line, sizeof line, "%-42s %s: %s\n", latency_row_name(row).c_str(),
                    row.refused ? "skipped" : "not measured", row.error.c_str());
    } else {
      const std::string lost = std::to_string(row.lost) + "/" + std::to_string(row.sent);
      std::snprintf(line, sizeof line, "%-42s %8.1f %8.1f %8.1f %8.1f %14s %8.2f/%.2f\n",
                    latency_row_name(row).c_str(), row.p50_us, row.p99_us, row.p99_9_us, row.max_us,
                    lost.c_str(), row.cpu_ours, row.cpu_reflector);
    }
    text += line;
  }
  return text;
}

std::string latency_row_json(const LatencyRow& r) {
  char line[512];
  std::snprintf(line, sizeof line,
                "{\"latency\":true,\"reflector\":\"%s\",\"wait\":\"%s\",\"spin_us\":%g,"
                "\"measured\":%s,\"refused\":%s,\"p50_us\":%.3f,\"p99_us\":%.3f,\"p99_9_us\":%.3f,"
                "\"max_us\":%.3f,\"sent\":%llu,\"lost\":%llu,\"cpu_seconds\":%.3f,"
                "\"reflector_cpu_seconds\":%.3f,\"error\":",
                demo_name(r.reflector), latency_wait_name(r.wait), r.spin_us,
                r.measured ? "true" : "false", r.refused ? "true" : "false", r.p50_us, r.p99_us,
                r.p99_9_us, r.max_us, static_cast<unsigned long long>(r.sent),
                static_cast<unsigned long long>(r.lost), r.cpu_ours, r.cpu_reflector);
  return std::string(line) + json_string(r.error) + "}\n";
}

}  // namespace afxdp::tool
