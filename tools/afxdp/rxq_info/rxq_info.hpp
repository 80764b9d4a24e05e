// `afxdp rxq-info -i IF`: how many frames each CPU and each (rx queue, CPU) sees per second under
// one XDP verdict, and how many "issues" (a frame from another device; a queue number beyond the
// table). The successor of the kernel's samples/bpf xdp_rxq_info, with its output shape.
#pragma once

#include "subcommands.hpp"

#include <afxdp/xsk/xsk_program.hpp>

#include <optional>
#include <string>
#include <string_view>

namespace afxdp::tool {

enum class Touch { none, read, swapmac };

struct RxqInfoOptions {
  std::string interface;
  bool skb_mode = false;
  std::string action = "PASS";  // ABORTED, DROP, PASS, TX, REDIRECT (any case); PASS as the
                                // kernel's sample: DROP on a host's own link is asked for
  bool no_touch = false;
  bool read = false;
  bool swapmac = false;
  double interval = 2;  // seconds between reports
  double duration = 0;  // seconds; 0: until SIGINT/SIGTERM
  bool json = false;
  std::string redirect_to;  // the REDIRECT target
};

// The configuration the options describe, checked without a kernel: throws
// std::invalid_argument for an unknown action or a REDIRECT without its target (or the reverse).
struct RxqInfoPlan {
  XdpAction action = XdpAction::pass;
  Touch touch = Touch::none;  // TX always swaps MACs
};
RxqInfoPlan plan_rxq_info(const RxqInfoOptions& options);
const char* touch_name(Touch touch);  // "no_touch", "read", "swapmac"

CLI::App* add_rxq_info_options(CLI::App& parent, RxqInfoOptions& options);
Subcommand add_rxq_info_subcommand(CLI::App& parent);
int run_rxq_info(const RxqInfoOptions& options);

}  // namespace afxdp::tool
