// The options that the benchmark subcommands (rxdrop, txpush, l2fwd) share, named as xdpsock
// names them, in one struct with one function that adds them to a sub-app.
//
// Parsing is pure: add_xsk_options binds the command line to the struct, and finish_xsk_options
// turns the texts (queue lists, MAC and IPv4 addresses) into values and checks every rule that
// needs no kernel (the one look outside: --pcap's file must open). Checks that need the kernel
// (does the interface exist, how many queues does it have) happen when the command runs, before
// anything is set up.
#pragma once

#include "common/parse.hpp"

#include <afxdp/port.hpp>
#include <afxdp/steering/match.hpp>

#include <CLI/CLI.hpp>

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace afxdp::tool {

enum class Benchmark { rxdrop, txpush, l2fwd };

const char* benchmark_name(Benchmark benchmark);
// The benchmark a name names (its subcommand's name), or nothing: benchmark_name's inverse.
std::optional<Benchmark> benchmark_named(std::string_view name);

struct XskOptions {
  Benchmark benchmark = Benchmark::rxdrop;
  std::string interface;                  // -i
  std::string queue_text = "0";           // -q "0", "0,1", "0-3"
  bool native = false;                    // -N (the default)
  bool skb = false;                       // -S
  bool zero_copy = false;                 // -z
  bool copy = false;                      // -c
  bool use_poll = false;                  // -p
  bool busy_poll = false;                 // -B
  bool no_need_wakeup = false;            // -m
  std::uint32_t frame_size = 4096;        // -f
  bool unaligned = false;                 // -u
  std::uint32_t batch = 64;               // -b
  std::uint32_t packet_size = 64;         // -s (txpush): bytes from the Ethernet header on
  std::uint64_t count = 0;                // -C: 0 is no limit
  double duration = 0;                    // -d seconds: 0 is until interrupted
  double interval = 1;                    // -n seconds
  bool extra_stats = false;               // -x
  bool app_stats = false;                 // -a
  bool quiet = false;                     // -Q
  bool shared_umem = false;               // -M
  std::string dst_mac_text;               // -G: default broadcast
  std::string src_mac_text;               // -H: default the interface's own
  bool vlan = false;                      // -V
  std::uint32_t vlan_id = 1;              // -J
  std::uint32_t vlan_priority = 0;        // -K
  std::string src_ip_text = "192.0.2.1";  // --src-ip (TEST-NET-1)
  std::string dst_ip_text = "192.0.2.2";  // --dst-ip
  std::uint32_t src_port = 1024;          // --src-port
  std::uint32_t dst_port = 9;             // --dst-port (discard)
  double rate = 0;                        // --rate packets per second, 0: as fast as possible
  std::string cpu_text;                   // --cpu "0,1" or "0-1"
  bool json = false;                      // --json
  bool force = false;                     // --force
  std::uint32_t frames = 4096;            // --frames per queue
  std::uint32_t ring_size = 2048;         // --ring-size: every ring
  std::string pcap_file;                  // --pcap (txpush): send this capture's frames instead
  std::uint64_t loop = 1;                 // --loop (with --pcap): times through it, 0: no end
  bool drop_privileges = false;           // --drop-privileges: no privilege once set up
  std::string user;                       // --user (implies --drop-privileges)
  std::string group;                      // --group (implies --drop-privileges)
  bool frags = false;                     // -F: multi-buffer (XDP_USE_SG), packets over frames
  std::vector<std::string> steer_texts;   // --steer (rxdrop, l2fwd), one rule each
  double spin_before_sleep_us = 0;        // --spin-before-sleep (l2fwd)

  // Filled in by finish_xsk_options.
  std::vector<std::uint32_t> queues;
  std::vector<std::uint32_t> cpus;
  std::vector<Match> steer;
  std::optional<Mac> dst_mac;
  std::optional<Mac> src_mac;
  std::uint32_t src_ip = 0;  // host byte order
  std::uint32_t dst_ip = 0;
  // The library's verdict on port_config(*this) (xsk_run.hpp), which the tool's own rules build
  // on; the run opens the Port with it as it is (Port::open checks it no more).
  std::optional<ValidatedPortConfig> port;
};

// Adds the options of `benchmark` to `app`, bound to `options`, each with its default in --help.
void add_xsk_options(CLI::App& app, XskOptions& options, Benchmark benchmark);

// --drop-privileges, --user or --group: the run gives up its privileges once set up.
inline bool drops_privileges(const XskOptions& o) {
  return o.drop_privileges || !o.user.empty() || !o.group.empty();
}

// Converts the texts and checks every rule that needs no kernel. Throws std::invalid_argument
// naming the option and the rule.
void finish_xsk_options(XskOptions& options);

// Adds the benchmark `name` to `parent` and returns the sub-app; options live in `options`, and
// a parse-complete callback runs finish_xsk_options (its errors become CLI11 parse errors).
CLI::App* add_xsk_subcommand(CLI::App& parent, XskOptions& options, Benchmark benchmark,
                             const char* description);

}  // namespace afxdp::tool
