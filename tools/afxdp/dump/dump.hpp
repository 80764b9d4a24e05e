// `afxdp dump -i IF [-q Q]... -w FILE.pcap [-C N] [-S]`: capture what arrives on the interface's
// rx queues (every one, or those -q names) through AF_XDP (copy mode) into one pcap file, in the
// order one thread sees the frames arrive ("-w -": standard output, for `tshark -r -`). Frames
// on those queues go to the capture instead of the network stack while it runs (--steer: only
// the flows named), and each queue has one AF_XDP owner: a queue another socket holds is refused.
// Stops after -C frames or at SIGINT/SIGTERM, flushing and closing the file (exit 0).
#pragma once

#include "subcommands.hpp"

#include <afxdp/steering/match.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace afxdp::tool {

struct DumpOptions {
  std::string interface;              // -i
  std::vector<std::uint32_t> queues;  // -q, repeatable; empty: every rx queue
  std::string file;                   // -w: "-" is standard output
  std::uint64_t count = 0;            // -C: 0 is until interrupted
  bool skb = false;                   // -S: attach in skb (generic) mode instead of native
  bool frags = false;                 // -F: multi-buffer, one record per whole packet
  // --steer: only these frames, the rest to the kernel (texts, then parsed)
  std::vector<std::string> steer_texts;
  std::vector<Match> steer;
};

// Adds the `dump` sub-app with its options bound to `options` (pure: no syscalls).
CLI::App* add_dump_options(CLI::App& parent, DumpOptions& options);
Subcommand add_dump_subcommand(CLI::App& parent);
// Runs the capture; returns the exit code, throws on failure.
int run_dump(const DumpOptions& options);

}  // namespace afxdp::tool
