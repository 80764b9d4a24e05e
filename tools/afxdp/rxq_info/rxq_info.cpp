#include "rxq_info/rxq_info.hpp"

#include "common/json.hpp"
#include "common/number_checks.hpp"
#include "common/per_second.hpp"
#include "common/report_schedule.hpp"
#include "common/require.hpp"
#include "common/thousands.hpp"

#include <afxdp/error.hpp>
#include <afxdp/run.hpp>
#include <afxdp/xsk/interface.hpp>
#include <afxdp/xsk/xdp_link.hpp>

#include "rxq_info.skel.h"
#include "rxq_info_shared.h"
#include "skeleton.hpp"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <stdexcept>
#include <vector>

namespace afxdp::tool {
namespace {

using Clock = std::chrono::steady_clock;

// What the maps hold at one moment: per CPU, and per queue slot per CPU (last slot: overflow).
struct Snapshot {
  std::vector<rxq_info_counters> cpu;
  std::vector<std::vector<rxq_info_counters>> rxq;
};

rxq_info_counters operator-(const rxq_info_counters& a, const rxq_info_counters& b) {
  return {a.processed - b.processed, a.issue - b.issue};
}

rxq_info_counters& operator+=(rxq_info_counters& a, const rxq_info_counters& b) {
  a.processed += b.processed;
  a.issue += b.issue;
  return a;
}

Snapshot operator-(const Snapshot& a, const Snapshot& b) {
  Snapshot d = a;
  for (std::size_t c = 0; c < d.cpu.size(); ++c) d.cpu[c] = a.cpu[c] - b.cpu[c];
  for (std::size_t q = 0; q < d.rxq.size(); ++q) {
    for (std::size_t c = 0; c < d.rxq[q].size(); ++c) d.rxq[q][c] = a.rxq[q][c] - b.rxq[q][c];
  }
  return d;
}

// A per-CPU map entry comes back as one value per possible CPU.
std::vector<rxq_info_counters> read_percpu(int map_fd, std::uint32_t key, std::size_t cpus) {
  std::vector<rxq_info_counters> values(cpus);
  if (bpf_map_lookup_elem(map_fd, &key, values.data()) != 0) {
    throw_errno(errno, "bpf_map_lookup_elem(rxq-info statistics)");
  }
  return values;
}

Snapshot read_snapshot(const rxq_info& skeleton, std::uint32_t slots, std::size_t cpus) {
  Snapshot s;
  s.cpu = read_percpu(bpf_map__fd(skeleton.maps.cpu_stats), 0, cpus);
  for (std::uint32_t q = 0; q <= slots; ++q) {
    s.rxq.push_back(read_percpu(bpf_map__fd(skeleton.maps.rxq_stats), q, cpus));
  }
  return s;
}

rxq_info_counters sum(const std::vector<rxq_info_counters>& values) {
  rxq_info_counters total{};
  for (const auto& v : values) total += v;
  return total;
}

struct Report {
  std::string interface;
  unsigned ifindex = 0;
  RxqInfoPlan plan;
  std::uint32_t slots = 0;  // queue table size; slot `slots` is the overflow
};

void print_text(const Report& r, const Snapshot& d, double seconds) {
  std::printf("\nRunning XDP on dev:%s (ifindex:%u) action:%s options:%s\n", r.interface.c_str(),
              r.ifindex, xdp_action_name(r.plan.action), touch_name(r.plan.touch));
  std::printf("%-15s %-7s %-11s %-11s\n", "XDP stats", "CPU", "pps", "issue-pps");
  for (std::size_t c = 0; c < d.cpu.size(); ++c) {
    if (d.cpu[c].processed == 0 && d.cpu[c].issue == 0) continue;
    std::printf("%-15s %-7zu %-11s %-11s\n", "XDP-RX CPU", c,
                thousands(per_second(d.cpu[c].processed, seconds)).c_str(),
                thousands(per_second(d.cpu[c].issue, seconds)).c_str());
  }
  const rxq_info_counters total = sum(d.cpu);
  std::printf("%-15s %-7s %-11s %-11s\n", "XDP-RX CPU", "total",
              thousands(per_second(total.processed, seconds)).c_str(),
              thousands(per_second(total.issue, seconds)).c_str());

  std::printf("\n%-15s %-7s %-11s %-11s\n", "RXQ stats", "RXQ:CPU", "pps", "issue-pps");
  for (std::size_t q = 0; q < d.rxq.size(); ++q) {
    const rxq_info_counters queue = sum(d.rxq[q]);
    if (queue.processed == 0) continue;
    for (std::size_t c = 0; c < d.rxq[q].size(); ++c) {
      if (d.rxq[q][c].processed == 0) continue;
      std::printf("%-15s %3zu:%-3zu %-11s %-11s\n", "rx_queue_index", q, c,
                  thousands(per_second(d.rxq[q][c].processed, seconds)).c_str(),
                  thousands(per_second(d.rxq[q][c].issue, seconds)).c_str());
    }
    std::printf("%-15s %3zu:%-3s %-11s %-11s\n", "rx_queue_index", q, "sum",
                thousands(per_second(queue.processed, seconds)).c_str(),
                thousands(per_second(queue.issue, seconds)).c_str());
  }
  std::fflush(stdout);
}

// One JSON object: per-second rates over `seconds` (interval) or the counts themselves (summary).
void print_json(const Report& r, const Snapshot& d, double seconds, bool summary) {
  const char* count_key = summary ? "processed" : "pps";
  const char* issue_key = summary ? "issue" : "issue_pps";
  auto value = [&](std::uint64_t count) { return summary ? count : per_second(count, seconds); };
  std::string out = "{";
  if (summary) out += "\"summary\":true,";
  out += "\"interface\":" + json_string(r.interface) + ",\"ifindex\":" + std::to_string(r.ifindex) +
         ",\"action\":\"" + xdp_action_name(r.plan.action) + "\",\"options\":\"" +
         touch_name(r.plan.touch) + "\"," + (summary ? "\"duration_s\":" : "\"interval_s\":") +
         std::to_string(seconds) + ",\"cpus\":[";
  bool first = true;
  for (std::size_t c = 0; c < d.cpu.size(); ++c) {
    if (d.cpu[c].processed == 0 && d.cpu[c].issue == 0) continue;
    out += std::string(first ? "" : ",") + "{\"cpu\":" + std::to_string(c) + ",\"" + count_key +
           "\":" + std::to_string(value(d.cpu[c].processed)) + ",\"" + issue_key +
           "\":" + std::to_string(value(d.cpu[c].issue)) + "}";
    first = false;
  }
  const rxq_info_counters total = sum(d.cpu);
  out += "],\"total\":{\"" + std::string(count_key) +
         "\":" + std::to_string(value(total.processed)) + ",\"" + issue_key +
         "\":" + std::to_string(value(total.issue)) + "},\"queues\":[";
  first = true;
  for (std::size_t q = 0; q < d.rxq.size(); ++q) {
    const rxq_info_counters queue = sum(d.rxq[q]);
    if (queue.processed == 0) continue;
    out += std::string(first ? "" : ",") + "{\"queue\":" + std::to_string(q) +
           ",\"overflow\":" + (q == r.slots ? "true" : "false") + ",\"" + count_key +
           "\":" + std::to_string(value(queue.processed)) + ",\"" + issue_key +
           "\":" + std::to_string(value(queue.issue)) + ",\"cpus\":[";
    bool first_cpu = true;
    for (std::size_t c = 0; c < d.rxq[q].size(); ++c) {
      if (d.rxq[q][c].processed == 0) continue;
      out += std::string(first_cpu ? "" : ",") + "{\"cpu\":" + std::to_string(c) + ",\"" +
             count_key + "\":" + std::to_string(value(d.rxq[q][c].processed)) + ",\"" + issue_key +
             "\":" + std::to_string(value(d.rxq[q][c].issue)) + "}";
      first_cpu = false;
    }
    out += "]}";
    first = false;
  }
  out += "]}";
  std::printf("%s\n", out.c_str());
  std::fflush(stdout);
}

double seconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }

void print_summary(const Report& r, const Snapshot& total, double elapsed, bool json) {
  if (json) {
    print_json(r, total, elapsed, true);
    return;
  }
  const rxq_info_counters all = sum(total.cpu);
  std::printf("\nSummary: dev:%s action:%s options:%s processed %s issue %s in %.3f s\n",
              r.interface.c_str(), xdp_action_name(r.plan.action), touch_name(r.plan.touch),
              thousands(all.processed).c_str(), thousands(all.issue).c_str(), elapsed);
  std::fflush(stdout);
}

// A report every interval until -d or SIGINT/SIGTERM, then the summary.
void report_until_stopped(const RxqInfoOptions& o, const Report& report, const rxq_info& skeleton,
                          std::size_t cpus) {
  // Blocked, collected by the wait that doubles as the loop's sleep.
  const SignalStop stop(SignalStop::Delivery::blocked);
  const auto start = Clock::now();
  const auto interval =
      std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(o.interval));
  const auto end = o.duration > 0 ? start + std::chrono::duration_cast<Clock::duration>(
                                                std::chrono::duration<double>(o.duration))
                                  : Clock::time_point::max();
  // The maps were created empty with the program: counting starts at zero, at attach time, so
  // frames that arrive before this loop starts are still counted.
  Snapshot previous;
  previous.cpu.assign(cpus, rxq_info_counters{});
  previous.rxq.assign(report.slots + 1, previous.cpu);
  auto previous_time = start;
  auto next = start + interval;
  while (!stop.wait_for(std::min(next, end) - Clock::now())) {
    const auto now = Clock::now();
    if (now >= end) break;
    if (now < next) continue;
    const Snapshot current = read_snapshot(skeleton, report.slots, cpus);
    const double elapsed = seconds(now - previous_time);
    if (o.json) {
      print_json(report, current - previous, elapsed, false);
    } else {
      print_text(report, current - previous, elapsed);
    }
    previous = current;
    previous_time = now;
    next = next_report_time(next, Clock::now(), interval);
  }
  print_summary(report, read_snapshot(skeleton, report.slots, cpus), seconds(Clock::now() - start),
                o.json);
}

}  // namespace

const char* touch_name(Touch touch) {
  if (touch == Touch::none) return "no_touch";
  if (touch == Touch::read) return "read";
  return "swapmac";
}

RxqInfoPlan plan_rxq_info(const RxqInfoOptions& o) {
  RxqInfoPlan plan;
  const auto action = parse_xdp_action(o.action);
  if (!action) {
    throw std::invalid_argument("action: unknown \"" + o.action +
                                "\" (ABORTED, DROP, PASS, TX or REDIRECT)");
  }
  plan.action = *action;
  if (plan.action == XdpAction::redirect && o.redirect_to.empty()) {
    throw std::invalid_argument("action REDIRECT needs --redirect-to IF2");
  }
  if (plan.action != XdpAction::redirect && !o.redirect_to.empty()) {
    throw std::invalid_argument("--redirect-to: only with -a REDIRECT");
  }
  if (int{o.no_touch} + int{o.read} + int{o.swapmac} > 1) {
    throw std::invalid_argument("options: --no-touch, --read and --swapmac exclude each other");
  }
  if (o.read) plan.touch = Touch::read;
  // A frame sent back where it came from needs its addresses swapped to be taken by the peer.
  if (o.swapmac || plan.action == XdpAction::tx) plan.touch = Touch::swapmac;
  return plan;
}

CLI::App* add_rxq_info_options(CLI::App& parent, RxqInfoOptions& o) {
  CLI::App* app = parent.add_subcommand(
      "rxq-info", "count frames per CPU and per rx queue under one XDP verdict");
  app->add_option("-i,--interface", o.interface, "interface to attach to")->required();
  app->add_flag("-S,--skb-mode", o.skb_mode, "attach in generic (skb) mode instead of native");
  app->add_option("-a,--action", o.action, "ABORTED, DROP, PASS, TX or REDIRECT (default PASS)")
      ->check(CLI::Validator(
          [](std::string& text) {
            return parse_xdp_action(text)
                       ? std::string{}
                       : "unknown action \"" + text + "\" (ABORTED, DROP, PASS, TX or REDIRECT)";
          },
          "ACTION"));
  app->add_flag("--no-touch", o.no_touch, "do not touch the frame data (default)");
  app->add_flag("--read", o.read, "read the Ethernet header of every frame");
  app->add_flag("--swapmac", o.swapmac, "swap the Ethernet addresses of every frame");
  app->add_option("-s,--interval", o.interval, "seconds between reports")
      ->capture_default_str()
      ->check(seconds_within(report_interval));
  app->add_option("-d,--duration", o.duration, "seconds to run (0: until Ctrl-C)")
      ->capture_default_str()
      ->check(seconds_within(run_duration));
  app->add_flag("--json", o.json, "one JSON object per interval and a final summary");
  app->add_option("--redirect-to", o.redirect_to, "REDIRECT's target interface");
  return app;
}

Subcommand add_rxq_info_subcommand(CLI::App& parent) {
  return subcommand_of(parent, add_rxq_info_options, run_rxq_info);
}

int run_rxq_info(const RxqInfoOptions& o) {
  const RxqInfoPlan plan = plan_rxq_info(o);
  require_privilege("rxq-info");
  Report report{o.interface, interface_index(o.interface), plan, 0};
  const unsigned redirect_ifindex = o.redirect_to.empty() ? 0 : interface_index(o.redirect_to);
  report.slots = interface_rx_queues(o.interface);
  if (report.slots == 0) report.slots = 64;  // the driver does not say: the usual maximum
  const int possible = libbpf_num_possible_cpus();
  if (possible <= 0) throw_errno(-possible, "libbpf_num_possible_cpus");
  const auto cpus = static_cast<std::size_t>(possible);

  Skeleton<rxq_info, rxq_info__destroy> skeleton(rxq_info__open());
  if (!skeleton) throw_errno(errno, "bpf: open the rxq_info program");
  skeleton->rodata->action = static_cast<std::uint32_t>(plan.action);
  skeleton->rodata->options = plan.touch == Touch::read      ? RXQ_INFO_READ
                              : plan.touch == Touch::swapmac ? RXQ_INFO_SWAPMAC
                                                             : 0U;
  skeleton->rodata->expected_ifindex = report.ifindex;
  skeleton->rodata->queue_slots = report.slots;
  if (bpf_map__set_max_entries(skeleton->maps.rxq_stats, report.slots + 1) != 0) {
    throw_errno(errno, "bpf: size the per-queue statistics");
  }
  if (rxq_info__load(skeleton.get()) != 0) {
    throw_errno(errno, "bpf: load the rxq_info program");
  }
  if (redirect_ifindex != 0) {
    const std::uint32_t key = 0;
    if (bpf_map_update_elem(bpf_map__fd(skeleton->maps.redirect_port), &key, &redirect_ifindex,
                            BPF_ANY) != 0) {
      throw_errno(errno, "devmap insert of " + o.redirect_to);
    }
  }

  // The link is the attachment: it goes (on any exit) with this scope.
  const XdpLink link(o.interface, bpf_program__fd(skeleton->progs.rxq_info),
                     {.mode = o.skb_mode ? AttachMode::skb : AttachMode::native});

  report_until_stopped(o, report, *skeleton, cpus);
  return 0;
}

}  // namespace afxdp::tool
