#include "demo/demo_versus.hpp"

namespace afxdp::tool {

double afxdp_over(const std::vector<DemoCell>& cells, const DemoCell& reference) {
  if (!reference.measured || reference.mpps <= 0) return 0;
  for (const DemoCell& ours : cells) {
    if (ours.tool == "afxdp" && ours.benchmark == reference.benchmark &&
        ours.poll == reference.poll && ours.busy_poll == reference.busy_poll &&
        ours.mode == reference.mode && ours.cores == reference.cores &&
        ours.queues == reference.queues) {
      return ours.measured ? ours.mpps / reference.mpps : 0;
    }
  }
  return 0;
}

std::string versus_name(const std::string& tool) {
  return "vs " + (tool == "dpdk" ? std::string("DPDK") : tool);
}

std::vector<DemoCell> with_versus_rows(const std::vector<DemoCell>& cells) {
  std::vector<DemoCell> rows;
  for (const DemoCell& cell : cells) {
    rows.push_back(cell);
    if (cell.tool == "afxdp") continue;
    DemoCell ratio = cell;
    ratio.tool = versus_name(cell.tool);
    ratio.mpps = afxdp_over(cells, cell);
    ratio.measured = ratio.mpps > 0;
    rows.push_back(ratio);
  }
  return rows;
}

}  // namespace afxdp::tool
