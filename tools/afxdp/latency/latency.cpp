#include "latency/latency.hpp"

#include "common/number_checks.hpp"
#include "common/require.hpp"
#include "common/steer.hpp"
#include "latency/latency_loop.hpp"
#include "latency/latency_report.hpp"
#include "latency/udp_echo.hpp"
#include "subcommands.hpp"

#include <afxdp/run.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>

namespace afxdp::tool {
namespace {

std::string shown(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.10g", value);
  return text;
}

}  // namespace

const char* latency_wait_name(LatencyWait wait) {
  if (wait == LatencyWait::spin) return "spin";
  if (wait == LatencyWait::poll) return "poll";
  return "busy-poll";
}

CLI::App* add_latency_options(CLI::App& parent, LatencyOptions& o) {
  CLI::App* app = parent.add_subcommand(
      "latency", "round-trip times of probes sent through a reflector (AF_XDP, or --udp)");
  CLI::Option* interface = app->add_option("-i,--interface", o.interface,
                                           "send the probes from AF_XDP on this interface");
  CLI::Option* queue = app->add_option("-q,--queue", o.queue, "rx queue of the AF_XDP socket")
                           ->capture_default_str()
                           ->check(not_negative_integer());
  CLI::Option* udp = app->add_option(
      "--udp", o.udp_text, "send them from a UDP socket to ADDR:PORT instead (afxdp udp-echo)");
  app->add_option("--rate", o.rate, "probes per second (at most 1000000)")
      ->capture_default_str()
      ->check(positive_number());
  app->add_option("-C,--count", o.count, "probes to send (at most 10000000)")
      ->capture_default_str()
      ->check(not_negative_integer());
  app->add_option("-s,--size", o.size, "frame size in bytes, Ethernet header included (62 to 1514)")
      ->capture_default_str()
      ->check(not_negative_integer());
  app->add_option("--wait", o.wait_text, "when nothing arrived: spin, poll or busy-poll")
      ->capture_default_str();
  CLI::Option* spin =
      app->add_option("--spin-before-sleep", o.spin_us,
                      "re-check the rx ring this many microseconds before giving the CPU away "
                      "(--wait poll: poll(); spin: sched_yield()); PortConfig::spin_before_sleep")
          ->capture_default_str()
          ->check(non_negative_number());
  app->add_option(
         "--timeout", o.timeout,
         "seconds to wait for the first echo, and for the last after the last probe (at most 60)")
      ->capture_default_str()
      ->check(positive_number());
  CLI::Option* dst_mac = app->add_option("-G,--dst-mac", o.dst_mac_text,
                                         "destination MAC (default ff:ff:ff:ff:ff:ff)");
  CLI::Option* skb = app->add_flag("-S,--skb", o.skb, "skb (generic) XDP mode");
  app->add_option("--cpu", o.cpu_text, "pin to this CPU");
  app->add_flag("--json", o.json, "one JSON object instead of the text report");
  add_steer_option(*app, o.steer_texts);
  udp->excludes(interface);
  udp->excludes(queue);
  udp->excludes(dst_mac);
  udp->excludes(skb);
  udp->excludes(spin);
  finish_after_parsing(*app, [&o] { finish_latency_options(o); });
  return app;
}

void finish_latency_options(LatencyOptions& o) {
  require(!o.interface.empty() || !o.udp_text.empty(),
          "--interface or --udp: say where the probes go (-i IF for AF_XDP, --udp ADDR:PORT)");
  require(o.interface.empty() || o.udp_text.empty(), "--interface and --udp: choose one");
  require(o.queue <= max_queue,
          "--queue: " + std::to_string(o.queue) + " is above " + std::to_string(max_queue));
  require(
      std::isfinite(o.rate) && o.rate > 0 && o.rate <= latency_max_rate,
      "--rate: " + shown(o.rate) + " must be more than 0 and at most 1000000 probes per second");
  require(o.count >= 1 && o.count <= latency_max_count,
          "--count: " + std::to_string(o.count) + " must be 1 to 10000000 probes");
  require(o.size >= latency_min_size && o.size <= latency_max_size,
          "--size: " + std::to_string(o.size) + " must be 62 to 1514 bytes");
  require(std::isfinite(o.timeout) && o.timeout > 0 && o.timeout <= latency_max_timeout,
          "--timeout: " + shown(o.timeout) + " must be more than 0 and at most 60 seconds");
  if (o.wait_text == "spin") {
    o.wait = LatencyWait::spin;
  } else if (o.wait_text == "poll") {
    o.wait = LatencyWait::poll;
  } else if (o.wait_text == "busy-poll") {
    o.wait = LatencyWait::busy_poll;
  } else {
    throw std::invalid_argument("--wait: '" + o.wait_text + "' is not spin, poll or busy-poll");
  }
  require(std::isfinite(o.spin_us) && o.spin_us >= 0 && o.spin_us <= latency_max_spin_us,
          "--spin-before-sleep: " + shown(o.spin_us) + " must be 0 to 1000000 microseconds");
  require(o.spin_us == 0 || o.wait != LatencyWait::busy_poll,
          "--spin-before-sleep: not with --wait busy-poll (its recvfrom() polls the driver)");
  if (!o.udp_text.empty()) {
    o.udp = parse_endpoint(o.udp_text, "--udp");
    // poll() busy-polls a UDP socket only under the system-wide net.core.busy_poll.
    require(o.wait != LatencyWait::busy_poll, "--wait busy-poll: AF_XDP only, not with --udp");
  }
  if (!o.dst_mac_text.empty()) o.dst_mac = parse_mac(o.dst_mac_text, "destination MAC (-G)");
  if (!o.cpu_text.empty()) {
    const std::vector<std::uint32_t> cpus = parse_number_list(o.cpu_text, "--cpu", max_cpu);
    require(cpus.size() == 1, "--cpu: '" + o.cpu_text + "' names more than one CPU");
    o.cpu = cpus.front();
  }
  o.steer = parse_steer(o.steer_texts);
  require(o.steer.empty() || o.udp_text.empty(), "--steer: AF_XDP only, not with --udp");
}

Subcommand add_latency_subcommand(CLI::App& parent) {
  return subcommand_of(parent, add_latency_options, run_latency);
}

int run_latency(const LatencyOptions& o) {
  // From here SIGINT/SIGTERM end the sending; the echoes in flight are still awaited.
  const SignalStop signals;
  if (!o.udp) {
    require_privilege("latency");
    check_queues(o.interface, std::span(&o.queue, 1));
  }
  if (o.cpu) {
    const std::vector<unsigned> usable = usable_cpus();
    if (std::find(usable.begin(), usable.end(), *o.cpu) == usable.end() || !pin_to_cpu(*o.cpu)) {
      throw std::invalid_argument("--cpu: CPU " + std::to_string(*o.cpu) + " is not available");
    }
  }
  LatencyResult result = o.udp ? measure_udp(o, signals) : measure_xsk(o, signals);
  const std::string report = o.json ? latency_json(result) : latency_text(result);
  std::fputs(report.c_str(), stdout);
  std::fflush(stdout);
  if (result.lost() != 0) {
    throw std::runtime_error("lost " + std::to_string(result.lost()) + " of " +
                             std::to_string(result.sent) + " probes (no echo within " +
                             shown(o.timeout) +
                             " s): more than the reflector sustains? try a lower --rate");
  }
  return 0;
}

}  // namespace afxdp::tool
