#include "gen/gen.hpp"

#include "common/json.hpp"
#include "common/number_checks.hpp"
#include "common/packet.hpp"
#include "common/parse.hpp"
#include "common/require.hpp"
#include "common/thousands.hpp"
#include "gen/live_source.hpp"
#include "gen/xsk_source.hpp"

#include <afxdp/cpu.hpp>
#include <afxdp/port.hpp>
#include <afxdp/signal_stop.hpp>
#include <afxdp/xsk/interface.hpp>

#include <net/if.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>
#include <optional>
#include <span>
#include <stdexcept>
#include <variant>

namespace afxdp::tool {
namespace {

using Clock = std::chrono::steady_clock;

// How long gen sends before it judges whether a veth peer takes its frames at all.
constexpr std::chrono::milliseconds peer_grace{500};

// CLI11 validators over the same parsers the benchmarks use (one way to read an address).
CLI::Validator address_validator(const char* name, void (*parse)(const std::string&)) {
  return CLI::Validator(
      [parse](std::string& text) {
        try {
          parse(text);
          return std::string{};
        } catch (const std::invalid_argument& e) {
          return std::string(e.what());
        }
      },
      name);
}

CLI::Validator mac_validator() {
  return address_validator("MAC", [](const std::string& text) { parse_mac(text, "MAC"); });
}

CLI::Validator ipv4_validator() {
  return address_validator("IPV4", [](const std::string& text) { parse_ipv4(text, "IPv4"); });
}

// The other end of a veth pair in this namespace: IF's link names its peer, and the peer's link
// names IF back (a VLAN's lower device would not). nullopt when not found. Read through
// rtnetlink: /sys/class/net shows the namespace of whoever mounted sysfs, not necessarily ours.
std::optional<std::string> veth_peer(unsigned ifindex) {
  const unsigned link = interface_link(ifindex).link;
  if (link == 0 || link == ifindex) return std::nullopt;
  char name[IF_NAMESIZE] = {};
  if (::if_indextoname(link, name) == nullptr) return std::nullopt;
  if (interface_link(link).link != ifindex) return std::nullopt;
  return std::string(name);
}

std::uint64_t tx_packets(unsigned ifindex) { return interface_link(ifindex).tx_packets; }

// The engine that sends: one of two, chosen once (a call per run of thousands of frames).
using Source = std::variant<LiveSource, XskSource>;

// One gen: the engine, what has been sent and what reported.
struct GenRun {
  GenRun(const GenOptions& options, Source engine)
      : o(options), source(std::move(engine)), last_report(Clock::now()) {
    pace.rate = o.rate;
    pace.start = last_report;
    if (o.duration > 0) {
      deadline = pace.start + std::chrono::duration_cast<Clock::duration>(
                                  std::chrono::duration<double>(o.duration));
    }
  }
  const GenOptions& o;
  Source source;
  Pace pace;  // pace.sent: the frames sent so far
  Clock::time_point deadline = Clock::time_point::max();
  std::uint64_t reported = 0;
  Clock::time_point last_report;
  std::uint64_t dropped = 0;  // xsk: frames the interface dropped and gen sent again
  // auto: the first run is one frame, which tells whether the kernel runs live frames at all.
  bool probing = false;
};

GenEngine engine_of(const Source& source) {
  return std::holds_alternative<LiveSource>(source) ? GenEngine::live : GenEngine::xsk;
}

// How many frames the next run sends.
std::uint64_t frames_for_next_run(const GenRun& run) {
  const GenOptions& o = run.o;
  const std::uint64_t planned =
      run.probing
          ? 1
          : std::visit([&](const auto& source) { return source.next_run(run.pace); }, run.source);
  return o.count == 0 ? planned : std::min(planned, o.count - run.pace.sent);
}

// Whether a veth peer takes our frames, judged once.
struct PeerCheck {
  unsigned ifindex = 0;
  std::optional<std::string> peer;
  bool veth = false;
  std::uint64_t tx_before = 0;  // IF's tx_packets before the first run
};

// veth hands XDP-transmitted frames to its peer's NAPI, which exists only while the peer has a
// native XDP program (or GRO) on; otherwise it drops them all without counting them anywhere.
// Those it takes are counted in our tx_packets before the test run returns. The kernel's own
// frames on a fresh link (IPv6 router solicitations, MLD reports: a handful) count there too, so
// "none" means fewer than 64 (or half of a short run). Not "fewer than half" of a long run: a
// peer whose NAPI shares a busy CPU takes only a ring's worth (256) of a burst and drops the rest.
bool peer_takes_frames(const PeerCheck& check, std::uint64_t sent) {
  return tx_packets(check.ifindex) - check.tx_before >= std::min<std::uint64_t>(64, sent / 2 + 1);
}

// Why the peer took none, with what would make it take them.
std::string peer_refusal(const GenOptions& o, const PeerCheck& check, std::uint64_t sent) {
  const std::string what =
      "veth " + o.interface + " transmitted none of " + std::to_string(sent) + " frames: its peer";
  // Without the peer's name (not in this namespace) the advice names no interface either.
  if (!check.peer) {
    return what +
           " needs a native XDP program attached (e.g. afxdp rxq-info -a PASS on it) or GRO "
           "enabled on it";
  }
  const std::string& who = *check.peer;
  return what + " " + who + " needs a native XDP program attached (e.g. afxdp rxq-info -i " + who +
         " -a PASS) or GRO enabled (ethtool -K " + who + " gro on)";
}

// A line per second: the rate since the last one and the total.
void report_progress(GenRun& run, Clock::time_point now) {
  const GenOptions& o = run.o;
  if (o.quiet || now - run.last_report < std::chrono::seconds(1)) return;
  const std::uint64_t sent = run.pace.sent;
  const double pps = static_cast<double>(sent - run.reported) / seconds(now - run.last_report);
  if (o.json) {
    std::printf("{\"interface\":%s,\"pps\":%.0f,\"total\":%llu}\n",
                json_string(o.interface).c_str(), pps, static_cast<unsigned long long>(sent));
  } else {
    std::printf("%s: %s pps, %s total\n", o.interface.c_str(),
                thousands(static_cast<std::uint64_t>(pps)).c_str(), thousands(sent).c_str());
  }
  std::fflush(stdout);
  run.reported = sent;
  run.last_report = now;
}

// With a rate: how long until the frames sent so far are due (at most until the deadline).
std::chrono::nanoseconds pause_until_due(const GenRun& run, Clock::time_point now) {
  if (run.o.rate == 0) return std::chrono::nanoseconds::zero();
  const auto due = run.pace.due(run.pace.sent);
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::min(due, run.deadline) - now);
}

// auto, when live frames cannot serve: the one line on stderr that says why.
void say_fallback(const std::string& why) {
  std::fprintf(stderr, "afxdp gen: %s: sending through AF_XDP instead (--engine xsk)\n",
               why.c_str());
}

// Then AF_XDP transmit, its clock started now (the socket's set-up is no time the frames were
// due in).
void fall_back(GenRun& run, const std::string& why, std::span<const std::uint8_t> frame,
               unsigned ifindex) {
  say_fallback(why);
  run.probing = false;
  run.source.emplace<XskSource>(run.o, frame, ifindex);
  run.pace.start = run.last_report = Clock::now();
  run.reported = run.pace.sent;
}

// One run of n frames through the engine; auto's first run falls back when refused.
void send_run(GenRun& run, std::uint64_t n, std::span<const std::uint8_t> frame, unsigned ifindex,
              const SignalStop& stop) {
  if (auto* live = std::get_if<LiveSource>(&run.source)) {
    try {
      run.pace.sent += live->send(n, run.pace, stop);
    } catch (const LiveRefused& refusal) {
      if (!run.probing) throw std::runtime_error(refusal.what());
      fall_back(run, refusal.what(), frame, ifindex);  // nothing was sent: the loop asks again
      return;
    }
    run.probing = false;
  } else {
    run.pace.sent += std::get<XskSource>(run.source).send(n, run.pace, stop);
  }
}

// Runs until -C, -d or SIGINT/SIGTERM.
void send_until_done(GenRun& run, const PeerCheck& peer_check, std::span<const std::uint8_t> frame,
                     unsigned ifindex, const SignalStop& stop) {
  const GenOptions& o = run.o;
  // Only the live engine's frames can vanish without a trace at a veth peer without NAPI; an
  // AF_XDP socket's go through the peer's ordinary receive path.
  bool unjudged = peer_check.veth;
  while (o.count == 0 || run.pace.sent < o.count) {
    send_run(run, frames_for_next_run(run), frame, ifindex, stop);
    // Judged over the first half second (or the whole of a shorter run), not one test run: the
    // peer's NAPI is briefly gone while a program is attached to it (a benchmark starting just
    // after us), and every frame of a run in that moment is lost.
    if (unjudged && engine_of(run.source) == GenEngine::live &&
        (Clock::now() - run.pace.start >= peer_grace ||
         (o.count != 0 && run.pace.sent >= o.count))) {
      unjudged = false;
      if (!peer_takes_frames(peer_check, run.pace.sent)) {
        const std::string why = peer_refusal(o, peer_check, run.pace.sent);
        if (o.engine != GenEngine::automatic) throw std::runtime_error(why);
        run.pace.sent = 0;  // none arrived: every frame goes again, through the socket
        fall_back(run, why, frame, ifindex);
        continue;
      }
    }
    const auto now = Clock::now();
    report_progress(run, now);
    if (now >= run.deadline) break;
    if (stop.wait_for(pause_until_due(run, now))) break;
  }
}

// The AF_XDP engine: waits for every frame sent to complete. When -C was reached, the frames the
// interface dropped instead of transmitting (its tx_dropped) are sent again, paced as the rest,
// so that -C N puts N frames on the wire; a run ended by -d or a signal sends nothing more.
void finish_xsk(GenRun& run, const SignalStop& stop) {
  auto* xsk = std::get_if<XskSource>(&run.source);
  if (xsk == nullptr) return;
  const bool counted = run.o.count != 0 && run.pace.sent >= run.o.count;
  constexpr int rounds = 8;
  for (int i = 0; i < rounds; ++i) {
    const std::uint64_t dropped = xsk->finish() - run.dropped;
    if (dropped == 0 || !counted || stop.requested()) return;
    run.dropped += dropped;
    xsk->send(dropped, Pace{.rate = run.o.rate, .start = Clock::now(), .sent = 0}, stop);
  }
  throw std::runtime_error(run.o.interface + ": dropped " + std::to_string(run.dropped) +
                           " frames on transmit, and kept dropping those sent again");
}

void print_summary(const GenRun& run) {
  const GenOptions& o = run.o;
  const double elapsed = seconds(Clock::now() - run.pace.start);
  const std::uint64_t sent = run.pace.sent;
  const double pps = elapsed > 0 ? static_cast<double>(sent) / elapsed : 0;
  const auto* live = std::get_if<LiveSource>(&run.source);
  const double longest_ms =
      live == nullptr ? 0 : std::chrono::duration<double, std::milli>(live->longest_run()).count();
  const char* engine = engine_name(engine_of(run.source));
  if (o.json) {
    std::printf(
        "{\"summary\":true,\"interface\":%s,\"engine\":\"%s\",\"size\":%zu,\"sent\":%llu,"
        "\"duration_s\":%.3f,\"pps\":%.0f,\"longest_run_ms\":%.3f}\n",
        json_string(o.interface).c_str(), engine, o.size, static_cast<unsigned long long>(sent),
        elapsed, pps, longest_ms);
  } else {
    std::printf("%s: sent %s frames of %zu bytes in %.3f s: %s pps (engine %s)\n",
                o.interface.c_str(), thousands(sent).c_str(), o.size, elapsed,
                thousands(static_cast<std::uint64_t>(pps)).c_str(), engine);
  }
  std::fflush(stdout);
}

// The engine --engine asks for: auto and live start with live frames (auto probing with its
// first frame); xsk, or live refused at load under auto, with AF_XDP.
Source open_source(const GenOptions& o, std::span<const std::uint8_t> frame, unsigned ifindex,
                   bool& probing) {
  probing = false;
  if (o.engine == GenEngine::xsk) return Source(std::in_place_type<XskSource>, o, frame, ifindex);
  try {
    probing = o.engine == GenEngine::automatic;
    return Source(std::in_place_type<LiveSource>, o, frame, ifindex);
  } catch (const LiveRefused& refusal) {
    if (o.engine == GenEngine::live) throw std::runtime_error(refusal.what());
    say_fallback(refusal.what());
    probing = false;
    return Source(std::in_place_type<XskSource>, o, frame, ifindex);
  }
}

}  // namespace

const char* engine_name(GenEngine engine) noexcept {
  if (engine == GenEngine::live) return "live";
  if (engine == GenEngine::xsk) return "xsk";
  return "auto";
}

CLI::App* add_gen_options(CLI::App& parent, GenOptions& o) {
  CLI::App* app = parent.add_subcommand(
      "gen",
      "send UDP frames out of an interface (the kernel's XDP live-frames test run, or AF_XDP)");
  app->add_option("-i,--interface", o.interface, "interface to send on")->required();
  app->add_option("-s,--size", o.size, "frame size in bytes, without FCS")
      ->check(CLI::Range(gen_min_size, gen_max_size));
  app->add_option("-C,--count", o.count, "frames to send (0: until -d or Ctrl-C)")
      ->check(not_negative_integer());
  app->add_option("--rate", o.rate,
                  "frames per second, paced frame by frame (0: as fast as possible)")
      ->check(not_negative_integer());
  app->add_option("-G,--dst-mac", o.dst_mac,
                  "destination MAC (default: the veth peer's, else ff:ff:ff:ff:ff:ff)")
      ->check(mac_validator());
  app->add_option("-H,--src-mac", o.src_mac, "source MAC (default: the interface's)")
      ->check(mac_validator());
  app->add_option("--src-ip", o.src_ip, "source IPv4 address")->check(ipv4_validator());
  app->add_option("--dst-ip", o.dst_ip, "destination IPv4 address")->check(ipv4_validator());
  app->add_option("--src-port", o.src_port, "UDP source port");
  app->add_option("--dst-port", o.dst_port, "UDP destination port");
  app->add_option("--cpu", o.cpu, "pin to this CPU (the kernel runs the frames on it)")
      ->check(non_negative_number());
  app->add_option("-d,--duration", o.duration, "seconds to run (0: until -C or Ctrl-C)")
      ->check(seconds_within(run_duration));
  app->add_option("--batch-size", o.batch_size, "frames per kernel batch")
      ->check(CLI::Range(1, 256));
  app->add_option("-q,--queue", o.queue,
                  "xsk: the queue to send on (a veth peer receives on the same one); live: "
                  "ignored, the sending CPU picks it");
  app->add_option("--engine", o.engine,
                  "auto: live frames, or AF_XDP transmit where the kernel refuses them; live: "
                  "only the kernel's XDP live-frames test run; xsk: only AF_XDP transmit "
                  "(default: $AFXDP_GEN_ENGINE, else auto)")
      ->transform(CLI::CheckedTransformer(
          std::map<std::string, GenEngine>{
              {"auto", GenEngine::automatic}, {"live", GenEngine::live}, {"xsk", GenEngine::xsk}},
          CLI::ignore_case))
      ->envname("AFXDP_GEN_ENGINE");  // CI forces xsk: a kernel with live frames hides no bug
  app->add_flag("--json", o.json, "one JSON object per second and a final summary");
  app->add_flag("-Q,--quiet", o.quiet, "print only the final summary");
  return app;
}

Subcommand add_gen_subcommand(CLI::App& parent) {
  return subcommand_of(parent, add_gen_options, run_gen);
}

int run_gen(const GenOptions& o) {
  require_privilege("gen");
  const unsigned ifindex = interface_index(o.interface);
  check_queues(o.interface, std::span<const std::uint32_t>(&o.queue, 1));
  if (o.size < gen_min_size || o.size > gen_max_size) {
    throw std::invalid_argument("size: must be " + std::to_string(gen_min_size) + ".." +
                                std::to_string(gen_max_size));
  }
  if (const unsigned mtu = interface_mtu(o.interface); o.size > mtu + 14) {
    throw std::invalid_argument("size: " + std::to_string(o.size) + " exceeds " + o.interface +
                                "'s MTU " + std::to_string(mtu) + " + 14");
  }

  UdpFrameSpec spec;
  spec.size = static_cast<std::uint32_t>(o.size);
  const std::optional<std::string> peer = veth_peer(ifindex);
  spec.src_mac = o.src_mac.empty() ? mac_address(o.interface) : parse_mac(o.src_mac, "-H");
  spec.dst_mac.fill(0xff);  // broadcast, unless the user or the veth peer says otherwise
  if (!o.dst_mac.empty()) {
    spec.dst_mac = parse_mac(o.dst_mac, "-G");
  } else if (peer) {
    spec.dst_mac = mac_address(*peer);
  }
  spec.src_ip = parse_ipv4(o.src_ip, "--src-ip");
  spec.dst_ip = parse_ipv4(o.dst_ip, "--dst-ip");
  spec.src_port = o.src_port;
  spec.dst_port = o.dst_port;
  std::vector<std::uint8_t> frame(spec.size);
  build_udp_frame(spec, frame);

  if (o.cpu >= 0 && !pin_to_cpu(static_cast<unsigned>(o.cpu))) {
    throw std::invalid_argument("cpu: " + std::to_string(o.cpu) + " is not available");
  }

  const PeerCheck peer_check{ifindex, peer, interface_driver(o.interface) == "veth",
                             tx_packets(ifindex)};
  bool probing = false;
  Source source = open_source(o, frame, ifindex, probing);
  GenRun run(o, std::move(source));
  run.probing = probing;
  // Blocked: a signal during a test run would end it with EINTR and lose the count it sent.
  const SignalStop stop(SignalStop::Delivery::blocked);
  send_until_done(run, peer_check, frame, ifindex, stop);
  finish_xsk(run, stop);
  print_summary(run);
  return 0;
}

}  // namespace afxdp::tool
