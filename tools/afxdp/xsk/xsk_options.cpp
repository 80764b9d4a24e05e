#include "xsk/xsk_options.hpp"

#include "common/config_flags.hpp"
#include "common/number_checks.hpp"
#include "common/require.hpp"
#include "common/steer.hpp"
#include "subcommands.hpp"
#include "xsk/privileges.hpp"
#include "xsk/xsk_run.hpp"

#include <algorithm>
#include <arpa/inet.h>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <fstream>
#include <stdexcept>

namespace afxdp::tool {
namespace {

// -F: the most descriptors a packet may take (MAX_SKB_FRAGS + 1, afxdp::max_fragments).
constexpr std::uint32_t max_chain_frames = 18;

// --pcap's file must open before anything is set up: a run that cannot read it would otherwise
// attach, say that zero-copy fell back to copy, and only then fail. "-" is standard input.
CLI::Validator readable_file() {
  return CLI::Validator(
      [](std::string& path) -> std::string {
        if (path == "-" || std::ifstream(path).is_open()) return {};
        return "cannot open " + path + ": " + std::strerror(errno);
      },
      "", "READABLE_FILE");
}

// --user, --group: an empty value read as "not given" ran the whole run as root with every
// capability (issue 41).
CLI::Validator names_someone(const char* what) {
  return CLI::Validator(
      [what](std::string& value) -> std::string {
        if (value.empty()) return std::string("empty: name a ") + what + " or a number";
        return {};
      },
      "", "NAME");
}

// The command line's validators check the same: this is for options filled in by other means.
void require_seconds(double value, const char* what, Seconds bounds) {
  const std::string text = format_number(value);
  const std::string why = std::isfinite(value) ? seconds_rule(text, value, bounds)
                                               : "'" + text + "' is not a finite number";
  require(why.empty(), std::string(what) + ": " + why);
}

// Frame bytes the headers take: Ethernet (+ 802.1Q), IPv4, UDP.
std::uint32_t header_bytes(bool vlan) { return 14 + (vlan ? 4 : 0) + 20 + 8; }

}  // namespace

const char* benchmark_name(Benchmark benchmark) {
  if (benchmark == Benchmark::rxdrop) return "rxdrop";
  if (benchmark == Benchmark::txpush) return "txpush";
  return "l2fwd";
}

std::optional<Benchmark> benchmark_named(std::string_view name) {
  for (const Benchmark benchmark : {Benchmark::rxdrop, Benchmark::txpush, Benchmark::l2fwd}) {
    if (name == benchmark_name(benchmark)) return benchmark;
  }
  return std::nullopt;
}

namespace {

// Where and how the sockets run: interface, queues, XDP and bind modes, waiting, frames.
void add_socket_options(CLI::App& app, XskOptions& o) {
  app.add_option("-i,--interface", o.interface, "interface to run on")->required();
  app.add_option("-q,--queue", o.queue_text,
                 "rx queue(s): 3, a list 0,1 or a range 0-3; one socket and thread each (at most "
                 "64 queues, numbered 0 to 4095)")
      ->capture_default_str();
  auto* native = app.add_flag("-N,--native", o.native, "native (driver) XDP mode (the default)");
  auto* skb = app.add_flag("-S,--skb", o.skb, "skb (generic) XDP mode");
  native->excludes(skb);
  auto* zero_copy = app.add_flag("-z,--zero-copy", o.zero_copy,
                                 "zero-copy only (default: try zero-copy, fall back to copy)");
  auto* copy = app.add_flag("-c,--copy", o.copy, "copy mode");
  zero_copy->excludes(copy);
  zero_copy->excludes(skb);
  app.add_flag("-p,--poll", o.use_poll, "wait with poll() when there is nothing to do");
  app.add_flag("-B,--busy-poll", o.busy_poll, "busy polling (budget: the batch size)");
  app.add_flag("-m,--no-need-wakeup", o.no_need_wakeup, "don't use the need_wakeup flag");
  app.add_option("-f,--frame-size", o.frame_size, "UMEM frame size: 2048 or 4096")
      ->capture_default_str();
  app.add_flag("-u,--unaligned", o.unaligned, "unaligned chunks (needs hugepages)");
  app.add_option("-b,--batch", o.batch, "descriptors per ring operation")->capture_default_str();
}

// How long, what to report, memory, CPUs and privileges.
void add_run_options(CLI::App& app, XskOptions& o) {
  app.add_option("-C,--count", o.count, "stop after this many packets (0: no limit)")
      ->capture_default_str()
      ->check(not_negative_integer());
  app.add_option("-d,--duration", o.duration, "stop after this many seconds (0: run until Ctrl-C)")
      ->capture_default_str()
      ->check(seconds_within(run_duration));
  app.add_option("-n,--interval", o.interval, "statistics interval in seconds")
      ->capture_default_str()
      ->check(seconds_within(report_interval));
  app.add_flag("-x,--extra-stats", o.extra_stats, "add the kernel's XDP_STATISTICS rows");
  app.add_flag("-a,--app-stats", o.app_stats, "add syscalls and empty polls per second");
  app.add_flag("-Q,--quiet", o.quiet, "no per-interval statistics, only the summary");
  app.add_flag("-M,--shared-umem", o.shared_umem,
               "all queues on one UMEM (default: one UMEM per queue)");
  app.add_option("--frames", o.frames,
                 "UMEM frames per queue (frames x frame size x queues: at most 4 GiB)")
      ->capture_default_str();
  app.add_option("--ring-size", o.ring_size, "entries in every ring (a power of two)")
      ->capture_default_str();
  app.add_option(
      "--cpu", o.cpu_text,
      "CPUs to pin the queue threads to, in queue order, 0 to 8191 (default: thread i on CPU i)");
  app.add_flag("--json", o.json, "one JSON object per socket and interval, then a summary");
  app.add_flag("--force", o.force, "replace an XDP program already attached to the interface");
  app.add_flag("--drop-privileges", o.drop_privileges,
               "once set up, drop every capability, become --user (root: nobody) and set "
               "no_new_privs (the data path needs no privilege)");
  app.add_option("--user", o.user, "the user to run as after set-up (implies --drop-privileges)")
      ->check(names_someone("user"));
  app.add_option("--group", o.group,
                 "the group to run as after set-up (implies --drop-privileges; default the "
                 "user's)")
      ->check(names_someone("group"));
  app.add_flag("-F,--frags", o.frags,
               "multi-buffer (XDP_USE_SG, Linux 6.6+): packets larger than a frame, as chains");
}

// What txpush sends: the packet it builds, or a pcap file's frames, and how fast.
void add_txpush_options(CLI::App& app, XskOptions& o) {
  app.add_option("-s,--size", o.packet_size, "packet size in bytes, Ethernet header included")
      ->capture_default_str();
  app.add_option("-G,--dst-mac", o.dst_mac_text, "destination MAC (default ff:ff:ff:ff:ff:ff)");
  app.add_option("-H,--src-mac", o.src_mac_text, "source MAC (default: the interface's)");
  app.add_flag("-V,--vlan", o.vlan, "add an 802.1Q VLAN tag");
  app.add_option("-J,--vlan-id", o.vlan_id, "VLAN id (with -V)")->capture_default_str();
  app.add_option("-K,--vlan-priority", o.vlan_priority, "VLAN priority (with -V)")
      ->capture_default_str();
  app.add_option("--src-ip", o.src_ip_text, "IPv4 source address")->capture_default_str();
  app.add_option("--dst-ip", o.dst_ip_text, "IPv4 destination address")->capture_default_str();
  app.add_option("--src-port", o.src_port, "UDP source port")->capture_default_str();
  app.add_option("--dst-port", o.dst_port, "UDP destination port")->capture_default_str();
  app.add_option("--rate", o.rate,
                 "packets per second over all queues, 0 to 1e9 (0: as fast as possible)")
      ->capture_default_str()
      ->check(non_negative_number());
  CLI::Option* pcap = app.add_option("--pcap", o.pcap_file,
                                     "send the frames of this pcap file, in order, on each queue")
                          ->check(readable_file());
  app.add_option("--loop", o.loop, "times through the --pcap file (0: until stopped)")
      ->capture_default_str()
      ->check(not_negative_integer())
      ->needs(pcap);
}

// l2fwd's own option: a reflector's latency (afxdp latency), not a throughput setting.
void add_l2fwd_options(CLI::App& app, XskOptions& o) {
  app.add_option("--spin-before-sleep", o.spin_before_sleep_us,
                 "re-check the rx ring this many microseconds before giving the CPU away "
                 "(poll() with -p, else sched_yield()), 0 to 1000000")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 1e6));
}

}  // namespace

void add_xsk_options(CLI::App& app, XskOptions& o, Benchmark benchmark) {
  o.benchmark = benchmark;
  add_socket_options(app, o);
  add_run_options(app, o);
  if (benchmark == Benchmark::txpush) add_txpush_options(app, o);
  if (benchmark != Benchmark::txpush) add_steer_option(app, o.steer_texts);
  if (benchmark == Benchmark::l2fwd) add_l2fwd_options(app, o);
}

void finish_xsk_options(XskOptions& o) {
  o.queues = parse_number_list(o.queue_text, "queue (-q)", max_queue);
  require(o.queues.size() <= 64, "queue (-q): at most 64 queues");
  o.cpus = o.cpu_text.empty() ? std::vector<std::uint32_t>{}
                              : parse_number_list(o.cpu_text, "--cpu", max_cpu);
  o.steer = parse_steer(o.steer_texts);
  // Whom to become is settled now, before anything is opened: a user or group that does not
  // exist is a command line refused, not a failure after set-up.
  if (drops_privileges(o)) (void)resolve_run_as(o.user, o.group);

  require(o.native + o.skb <= 1, "-N and -S: choose one XDP mode");
  require(o.zero_copy + o.copy <= 1, "-z and -c: choose one of zero-copy and copy");
  require(!(o.zero_copy && o.skb), "-z: zero-copy needs native mode, not -S");
  // One UMEM per queue or one shared: either way the queues' frames are all in memory at once.
  require(std::uint64_t{o.frames} * o.frame_size * o.queues.size() <= (std::uint64_t{1} << 32),
          "frames (--frames " + std::to_string(o.frames) + ") * frame size (-f " +
              std::to_string(o.frame_size) + ") * queues (-q): at most 4 GiB of UMEM in all");
  require(o.frames >= o.batch, "frames (--frames): " + std::to_string(o.frames) +
                                   " must be at least the batch size (-b " +
                                   std::to_string(o.batch) + ")");
  // The library's rules (frame size, ring sizes, busy-poll budget), in the tool's flags: checked
  // once, here, and kept for Port::open.
  o.port = check_in_flags([&o] { return validated(port_config(o)); });
  require(o.ring_size >= 64 && o.ring_size <= 65536,
          "ring size (--ring-size): " + std::to_string(o.ring_size) + " must be 64 to 65536");
  require(o.batch >= 1, "batch size (-b): must be at least 1");
  require(o.batch <= o.ring_size, "batch size (-b): " + std::to_string(o.batch) +
                                      " is larger than a ring (" + std::to_string(o.ring_size) +
                                      " entries)");
  require_seconds(o.interval, "interval (-n)", report_interval);
  require_seconds(o.duration, "duration (-d)", run_duration);
  require(std::isfinite(o.rate) && o.rate >= 0 && o.rate <= 1e9,
          "rate (--rate): must be 0 to 1e9 packets per second");

  if (o.benchmark != Benchmark::txpush) return;
  const std::uint32_t headers = header_bytes(o.vlan);
  require(o.packet_size >= headers, "packet size (-s): " + std::to_string(o.packet_size) +
                                        " is smaller than the headers (" + std::to_string(headers) +
                                        " bytes)");
  require(o.frags || o.packet_size <= o.frame_size,
          "packet size (-s): " + std::to_string(o.packet_size) + " is larger than a frame (-f " +
              std::to_string(o.frame_size) + "); larger packets need -F");
  require(!o.frags || o.packet_size <= o.frame_size * max_chain_frames,
          "packet size (-s): " + std::to_string(o.packet_size) + " is larger than " +
              std::to_string(max_chain_frames) + " frames of " + std::to_string(o.frame_size) +
              " bytes (-f), the longest chain the kernel sends");
  // IPv4's total length is 16 bits: the Ethernet header (and tag) plus at most 65535 bytes.
  const std::uint32_t ipv4_most = headers - 28 + 65535;
  require(o.packet_size <= ipv4_most,
          "packet size (-s): " + std::to_string(o.packet_size) + " is larger than IPv4 allows (" +
              std::to_string(ipv4_most) + " bytes: an IPv4 total length of at most 65535)");
  require(o.vlan_id <= 4095, "VLAN id (-J): must be 0 to 4095");
  require(o.vlan_priority <= 7, "VLAN priority (-K): must be 0 to 7");
  require(o.src_port <= 65535, "UDP port (--src-port): must be 0 to 65535");
  require(o.dst_port <= 65535, "UDP port (--dst-port): must be 0 to 65535");
  if (!o.dst_mac_text.empty()) o.dst_mac = parse_mac(o.dst_mac_text, "destination MAC (-G)");
  if (!o.src_mac_text.empty()) o.src_mac = parse_mac(o.src_mac_text, "source MAC (-H)");
  o.src_ip = parse_ipv4(o.src_ip_text, "source IP (--src-ip)");
  o.dst_ip = parse_ipv4(o.dst_ip_text, "destination IP (--dst-ip)");
}

CLI::App* add_xsk_subcommand(CLI::App& parent, XskOptions& options, Benchmark benchmark,
                             const char* description) {
  CLI::App* app = parent.add_subcommand(benchmark_name(benchmark), description);
  add_xsk_options(*app, options, benchmark);
  finish_after_parsing(*app, [&options] { finish_xsk_options(options); });
  return app;
}

}  // namespace afxdp::tool
