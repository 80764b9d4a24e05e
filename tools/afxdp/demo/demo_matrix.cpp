#include "demo/demo_matrix.hpp"

#include "demo/dpdk_reference.hpp"

#include <algorithm>
#include <cstdio>
#include <exception>
#include <map>
#include <sstream>
#include <stdexcept>
#include <utility>

namespace afxdp::tool {
namespace {

template <class T>
bool wanted(const std::vector<T>& chosen, const T& value) {
  return chosen.empty() || std::find(chosen.begin(), chosen.end(), value) != chosen.end();
}

}  // namespace

const char* demo_name(DemoBenchmark benchmark) {
  constexpr const char* names[] = {demo_ceiling, "rxdrop", "txpush", "l2fwd"};
  return names[static_cast<int>(benchmark)];
}

const char* demo_name(DemoMode mode) { return mode == DemoMode::skb ? "skb" : "native"; }

const char* demo_name(DemoTool tool) {
  constexpr const char* names[] = {"afxdp", "xdpsock", "dpdk"};
  return names[static_cast<int>(tool)];
}

std::string column_name(const DemoCell& cell) {
  return demo_name(cell.mode) + std::string(", ") + std::to_string(cell.cores) +
         (cell.cores == 1 ? " core" : " cores");
}

std::string row_name(const DemoCell& cell) {
  // Appended piece by piece: g++ 12 at -O3 warns of an overlapping memcpy (a false -Wrestrict)
  // in `"literal" + std::string&&`, once this function is inlined in this file.
  std::string name = demo_name(cell.benchmark);
  if (cell.poll) name += " poll()";
  if (cell.busy_poll) name += " busy-poll";
  if (cell.queues > 1) name.append(" ").append(std::to_string(cell.queues)).append("q");
  if (cell.tool != DemoTool::afxdp) name.append(" ").append(demo_name(cell.tool));
  return name;
}

DemoCpus demo_cpus(const std::vector<unsigned>& usable) {
  if (usable.size() >= 2) {
    const auto other = std::find_if(usable.begin() + 1, usable.end(),
                                    [&](unsigned cpu) { return cpu % 2 != usable[0] % 2; });
    return {usable[0], other != usable.end() ? *other : usable[1]};
  }
  throw std::runtime_error(
      "demo needs two CPUs (traffic source and application) but its CPU affinity allows " +
      (usable.empty() ? std::string("none that can be read")
                      : "only CPU " + std::to_string(usable[0])));
}

std::vector<DemoCell> demo_matrix(const DemoOptions& options) {
  const std::vector<std::string> waits =
      options.waits.empty() ? std::vector<std::string>{"spin", "poll"} : options.waits;
  const std::vector<int> queue_counts =
      options.queues.empty() ? std::vector<int>{1} : options.queues;
  std::vector<DemoCell> cells;
  for (const DemoBenchmark benchmark : {DemoBenchmark::xdp_drop, DemoBenchmark::rxdrop,
                                        DemoBenchmark::txpush, DemoBenchmark::l2fwd}) {
    if (!wanted(options.benchmarks, std::string(demo_name(benchmark)))) continue;
    for (const std::string& wait : waits) {
      if (benchmark == DemoBenchmark::xdp_drop && wait != "spin")
        continue;  // the kernel alone: nothing waits
      for (const DemoMode mode : {DemoMode::native, DemoMode::skb}) {
        if (!wanted(options.modes, std::string(demo_name(mode)))) continue;
        for (const int queues : queue_counts) {
          for (const int cores : {1, 2}) {
            if (options.quick && cores == 1 && options.cores.empty()) continue;
            if (!wanted(options.cores, cores)) continue;
            if (queues > 1 && cores == 1) continue;  // two queues need a thread on each CPU
            DemoCell cell;
            cell.benchmark = benchmark;
            cell.poll = wait == "poll";
            cell.busy_poll = wait == "busy-poll";
            cell.mode = mode;
            cell.cores = cores;
            cell.queues = queues;
            cells.push_back(cell);
            // The reference right after ours: the two see the machine in the same minute.
            if (!options.reference.empty() && benchmark != DemoBenchmark::xdp_drop && queues == 1) {
              cell.tool = DemoTool::xdpsock;
              cells.push_back(cell);
            }
            if (!options.reference_dpdk.empty() && has_dpdk_twin(cell)) {
              cell.tool = DemoTool::dpdk;
              cells.push_back(cell);
            }
          }
        }
      }
    }
  }
  return cells;
}

bool source_bound(const DemoCell& cell) {
  return cell.measured && cell.offered_mpps > 0 && cell.mpps >= 0.9 * cell.offered_mpps;
}

std::string demo_table(const std::vector<DemoCell>& cells) {
  std::vector<std::string> rows, columns;
  std::map<std::pair<std::string, std::string>, const DemoCell*> at;
  for (const DemoCell& cell : cells) {
    const std::string row = row_name(cell), column = column_name(cell);
    if (std::find(rows.begin(), rows.end(), row) == rows.end()) rows.push_back(row);
    if (std::find(columns.begin(), columns.end(), column) == columns.end())
      columns.push_back(column);
    at[{row, column}] = &cell;
  }
  int width = 16;  // the row names' column: as wide as the longest ("rxdrop poll() xdpsock")
  for (const auto& row : rows) width = std::max(width, static_cast<int>(row.size()));
  std::ostringstream table;
  bool bound = false;
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%-*s", width, "Mpps");
  table << buffer;
  for (const auto& column : columns) {
    std::snprintf(buffer, sizeof buffer, " %16s", column.c_str());
    table << buffer;
  }
  table << '\n';
  for (const auto& row : rows) {
    std::snprintf(buffer, sizeof buffer, "%-*s", width, row.c_str());
    table << buffer;
    for (const auto& column : columns) {
      const auto found = at.find({row, column});
      if (found == at.end()) {
        std::snprintf(buffer, sizeof buffer, " %16s", "");
      } else if (!found->second->measured) {
        std::snprintf(buffer, sizeof buffer, " %16s", "-");
      } else if (source_bound(*found->second)) {
        bound = true;
        char both[40];
        std::snprintf(both, sizeof both, "%.3f of %.3f", found->second->mpps,
                      found->second->offered_mpps);
        std::snprintf(buffer, sizeof buffer, " %16s", both);
      } else {
        std::snprintf(buffer, sizeof buffer, " %16.3f", found->second->mpps);
      }
      table << buffer;
    }
    table << '\n';
  }
  if (bound) {
    table << "X of Y: the traffic source offered only Y Mpps and the application took 90 % or "
             "more of it:\nthe cell measures the source; read it as \"at least X\".\n";
  }
  return table.str();
}

}  // namespace afxdp::tool
