#include "gen/gen.hpp"

#include "common/json.hpp"
#include "common/number_checks.hpp"
#include "common/packet.hpp"
#include "common/parse.hpp"
#include "common/require.hpp"
#include "common/skeleton.hpp"
#include "common/thousands.hpp"

#include <afxdp/error.hpp>
#include <afxdp/interface.hpp>
#include <afxdp/run.hpp>
#include <afxdp/unique_fd.hpp>

#include "gen_tx.skel.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/bpf.h>
#include <net/if.h>
#include <sys/ioctl.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <optional>
#include <stdexcept>

namespace afxdp::tool {
namespace {

using Clock = std::chrono::steady_clock;

// Frames per test run. Each run has a fixed cost besides its frames, mostly asleep in the
// kernel's set-up and tear-down: 0.3 to 25 ms on a virtual machine, depending on its load. So
// runs last about a quarter of a second (sized from the previous run's rate, or from --rate):
// long enough that the fixed cost is a few per cent, short enough to check the clock and signals.
constexpr std::uint64_t first_chunk = 65536;
constexpr std::uint64_t max_chunk = std::uint64_t{1} << 24;
constexpr double run_seconds = 0.25;

std::uint64_t frames_for_a_run(double frames_per_second) {
  return std::clamp<std::uint64_t>(static_cast<std::uint64_t>(frames_per_second * run_seconds), 1,
                                   max_chunk);
}

// With a rate, the program waits for each frame's slot with bottom halves disabled (the kernel
// enables them between batches). So a batch waits at most this long: batches are cut to fit,
// and at rates too low for one gap to fit, a run is one frame and user space sleeps between.
constexpr double max_batch_wait_seconds = 0.010;

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

double seconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }

using GenProgram = Skeleton<gen_tx, gen_tx__destroy>;

GenProgram load_program() {
  GenProgram skeleton(gen_tx__open());
  if (!skeleton) throw_errno(errno, "bpf: open the gen_tx program");
  skeleton->rodata->max_wait_ns = static_cast<std::uint64_t>(max_batch_wait_seconds * 1e9);
  if (const int error = gen_tx__load(skeleton.get()); error != 0) {
    throw_errno(-error, "bpf: load the gen_tx program");
  }
  return skeleton;
}

// One gen: what the test runs send, and what has been sent and reported.
struct GenRun {
  GenRun(const GenOptions& options, const GenProgram& program, std::vector<std::uint8_t>& bytes,
         unsigned ifindex)
      : o(options), skeleton(*program), frame(bytes), start(Clock::now()), last_report(start) {
    prog_fd = bpf_program__fd(skeleton.progs.gen_tx);
    context.data_end = static_cast<std::uint32_t>(frame.size());
    context.ingress_ifindex = ifindex;
    context.rx_queue_index = 0;
    if (o.duration > 0) {
      deadline = start + std::chrono::duration_cast<Clock::duration>(
                             std::chrono::duration<double>(o.duration));
    }
  }
  const GenOptions& o;
  gen_tx& skeleton;
  int prog_fd = -1;
  std::vector<std::uint8_t>& frame;
  xdp_md context{};
  Clock::time_point start;
  Clock::time_point deadline = Clock::time_point::max();
  std::uint64_t chunk =
      first_chunk;  // without a rate, runs are sized from the previous one's speed
  std::uint64_t sent = 0;
  std::uint64_t reported = 0;
  Clock::time_point last_report;
  Clock::duration longest_run{};
};

// How many frames the next test run sends.
std::uint64_t frames_for_next_run(const GenRun& run) {
  const GenOptions& o = run.o;
  const double gap = o.rate > 0 ? 1 / static_cast<double>(o.rate) : 0;
  const std::uint64_t planned = o.rate == 0 ? run.chunk
                                : gap > max_batch_wait_seconds
                                    ? 1
                                    : frames_for_a_run(static_cast<double>(o.rate));
  return o.count == 0 ? planned : std::min(planned, o.count - run.sent);
}

// One test run of `n` frames: the kernel transmits them before it returns.
void test_run(GenRun& run, std::uint64_t n) {
  const GenOptions& o = run.o;
  const auto run_start = Clock::now();
  bpf_test_run_opts opts{};
  opts.sz = sizeof opts;
  opts.data_in = run.frame.data();
  opts.data_size_in = static_cast<std::uint32_t>(run.frame.size());
  opts.ctx_in = &run.context;
  opts.ctx_size_in = sizeof run.context;
  opts.repeat = static_cast<int>(n);
  opts.flags = BPF_F_TEST_XDP_LIVE_FRAMES;
  opts.batch_size = o.batch_size;
  if (o.rate > 0) {
    const double gap = 1 / static_cast<double>(o.rate);
    opts.batch_size =
        std::clamp(static_cast<std::uint32_t>(max_batch_wait_seconds / gap), 1U, o.batch_size);
    // With a rate the program spaces the frames itself (bpf/gen_tx.bpf.c says why). The gap is
    // chosen so that this run ends when, at the rate, sent + n frames are due: time lost
    // between runs is made up over the next run (at most twice the rate), not in a burst.
    const double due = static_cast<double>(run.sent + n) / static_cast<double>(o.rate);
    const double left = due - seconds(run_start - run.start);
    const double nominal = 1e9 / static_cast<double>(o.rate);
    run.skeleton.bss->interval_ns = static_cast<std::uint64_t>(
        std::clamp(left * 1e9 / static_cast<double>(n), nominal / 2, nominal));
    run.skeleton.bss->next_ns = 0;
  }
  const bool failed = bpf_prog_test_run_opts(run.prog_fd, &opts) != 0;
  run.longest_run = std::max(run.longest_run, Clock::now() - run_start);
  if (failed) {
    const int error = errno;
    throw_errno(error, "BPF_PROG_TEST_RUN (XDP live frames) on " + o.interface +
                           (error == EINVAL ? " (needs Linux 5.18 or later)" : ""));
  }
  run.sent += n;
  if (o.rate == 0) {
    const double took = seconds(Clock::now() - run_start);
    if (took > 0)
      run.chunk = std::max(first_chunk, frames_for_a_run(static_cast<double>(n) / took));
  }
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
void require_peer_takes_frames(const GenOptions& o, const PeerCheck& check, std::uint64_t sent) {
  if (tx_packets(check.ifindex) - check.tx_before >= std::min<std::uint64_t>(64, sent / 2 + 1)) {
    return;
  }
  const std::string what =
      "veth " + o.interface + " transmitted none of " + std::to_string(sent) + " frames: its peer";
  // Without the peer's name (not in this namespace) the advice names no interface either.
  if (!check.peer) {
    throw std::runtime_error(what +
                             " needs a native XDP program attached (e.g. afxdp "
                             "rxq-info -a PASS on it) or GRO enabled on it");
  }
  const std::string& who = *check.peer;
  throw std::runtime_error(what + " " + who +
                           " needs a native XDP program attached (e.g. afxdp rxq-info -i " + who +
                           " -a PASS) or GRO enabled (ethtool -K " + who + " gro on)");
}

// A line per second: the rate since the last one and the total.
void report_progress(GenRun& run, Clock::time_point now) {
  const GenOptions& o = run.o;
  if (o.quiet || now - run.last_report < std::chrono::seconds(1)) return;
  const double pps = static_cast<double>(run.sent - run.reported) / seconds(now - run.last_report);
  if (o.json) {
    std::printf("{\"interface\":%s,\"pps\":%.0f,\"total\":%llu}\n",
                json_string(o.interface).c_str(), pps, static_cast<unsigned long long>(run.sent));
  } else {
    std::printf("%s: %s pps, %s total\n", o.interface.c_str(),
                thousands(static_cast<std::uint64_t>(pps)).c_str(), thousands(run.sent).c_str());
  }
  std::fflush(stdout);
  run.reported = run.sent;
  run.last_report = now;
}

// With a rate: how long until the frames sent so far are due (at most until the deadline).
std::chrono::nanoseconds pause_until_due(const GenRun& run, Clock::time_point now) {
  if (run.o.rate == 0) return std::chrono::nanoseconds::zero();
  const auto due =
      run.start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(
                      static_cast<double>(run.sent) / static_cast<double>(run.o.rate)));
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::min(due, run.deadline) - now);
}

// Test runs until -C, -d or SIGINT/SIGTERM.
void send_until_done(GenRun& run, const PeerCheck& peer_check) {
  const GenOptions& o = run.o;
  // Blocked: a signal during a test run would end it with EINTR and lose the count it sent.
  const SignalStop stop(SignalStop::Delivery::blocked);
  bool unjudged = peer_check.veth;
  while (o.count == 0 || run.sent < o.count) {
    test_run(run, frames_for_next_run(run));
    // Judged over the first half second (or the whole of a shorter run), not one test run: the
    // peer's NAPI is briefly gone while a program is attached to it (a benchmark starting just
    // after us), and every frame of a run in that moment is lost.
    if (unjudged &&
        (Clock::now() - run.start >= peer_grace || (o.count != 0 && run.sent >= o.count))) {
      require_peer_takes_frames(o, peer_check, run.sent);
      unjudged = false;
    }
    const auto now = Clock::now();
    report_progress(run, now);
    if (now >= run.deadline) break;
    if (stop.wait_for(pause_until_due(run, now))) break;
  }
}

void print_summary(const GenRun& run) {
  const GenOptions& o = run.o;
  const double elapsed = seconds(Clock::now() - run.start);
  const double pps = elapsed > 0 ? static_cast<double>(run.sent) / elapsed : 0;
  if (o.json) {
    std::printf(
        "{\"summary\":true,\"interface\":%s,\"size\":%zu,\"sent\":%llu,\"duration_s\":%.3f,"
        "\"pps\":%.0f,\"longest_run_ms\":%.3f}\n",
        json_string(o.interface).c_str(), o.size, static_cast<unsigned long long>(run.sent),
        elapsed, pps, std::chrono::duration<double, std::milli>(run.longest_run).count());
  } else {
    std::printf("%s: sent %s frames of %zu bytes in %.3f s: %s pps\n", o.interface.c_str(),
                thousands(run.sent).c_str(), o.size, elapsed,
                thousands(static_cast<std::uint64_t>(pps)).c_str());
  }
  std::fflush(stdout);
}

}  // namespace

CLI::App* add_gen_options(CLI::App& parent, GenOptions& o) {
  CLI::App* app = parent.add_subcommand(
      "gen", "send UDP frames out of an interface through the kernel's XDP live-frames test run");
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

  const GenProgram program = load_program();
  GenRun run(o, program, frame, ifindex);
  const PeerCheck peer_check{ifindex, peer, interface_driver(o.interface) == "veth",
                             tx_packets(ifindex)};
  send_until_done(run, peer_check);
  print_summary(run);
  return 0;
}

}  // namespace afxdp::tool
