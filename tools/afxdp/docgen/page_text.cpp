// What a man page says beyond the option definitions. The options themselves are never listed
// here: man_page.cpp takes them from the CLI11 definitions.
#include "docgen/reference.hpp"

#include <map>

namespace afxdp::tool::docgen {
namespace {

const std::string benchmark_common =
    "Each queue gets one AF_XDP socket and one thread, pinned to a CPU; by default each queue has "
    "a UMEM of its own (--shared-umem: one for all). The program that redirects the queues to the "
    "sockets is attached through a bpf_link, so it goes away with the process however it ends. "
    "Statistics are printed every --interval seconds, and a summary at the end.";

using Texts = std::map<std::string, PageText>;

Texts benchmark_texts() {
  return {
      {"rxdrop",
       {"Receives on each queue and hands every frame straight back to the fill ring, as the "
        "kernel's xdpsock -r does.\n\n" +
            benchmark_common,
        {{"afxdp rxdrop -i eth1", "Receive on rx queue 0 of eth1 until Ctrl-C."},
         {"afxdp rxdrop -i eth1 -q 0-3 -p -d 10 --json",
          "Queues 0 to 3, waiting in poll() when idle, for 10 s, as JSON lines."}}}},
      {"txpush",
       {"Sends one UDP frame over and over on each queue: written into the UMEM once, then only "
        "descriptors are recycled, as the kernel's xdpsock -t does. It attaches no program.\n\n" +
            benchmark_common,
        {{"afxdp txpush -i eth1 -s 64 -d 5", "64-byte frames for 5 s."},
         {"afxdp txpush -i eth1 --pcap trace.pcap --loop 0",
          "Replay the packets of a pcap file until stopped."}}}},
      {"l2fwd",
       {"Sends every received frame back out of its queue with the MAC addresses swapped; the rx "
        "descriptor becomes the tx descriptor, with no copy.\n\n" +
            benchmark_common,
        {{"afxdp l2fwd -i eth1 -q 0", "Reflect what arrives on rx queue 0 of eth1."},
         {"afxdp l2fwd -i eth1 -p --spin-before-sleep 50",
          "In poll() when idle, after re-checking the ring for 50 microseconds."}}}},
  };
}

Texts tool_texts() {
  return {
      {"gen",
       {"Sends UDP frames out of an interface through the kernel's XDP live-frames test run "
        "(BPF_PROG_TEST_RUN with BPF_F_TEST_XDP_LIVE_FRAMES): a traffic source with no socket "
        "and no copy per frame.",
        {{"afxdp gen -i veth0 -d 10", "Send as fast as the CPU goes for 10 s."},
         {"afxdp gen -i veth0 --rate 1000000 --cpu 0",
          "One million frames a second from CPU 0."}}}},
      {"rxq-info",
       {"Attaches an XDP program that applies one verdict to every frame and counts the frames "
        "per CPU and per rx queue, printed every interval: where the traffic lands, and the "
        "most the kernel can take with XDP_DROP.",
        {{"afxdp rxq-info -i eth1 -a DROP -d 5", "Drop everything for 5 s, counting per queue."},
         {"afxdp rxq-info --help", "List the options."}}}},
      {"dump",
       {"Captures what arrives on one rx queue through AF_XDP into a pcap file (or standard "
        "output): frames redirected to the socket do not reach the kernel's stack. The file is "
        "opened before anything is attached, never through a symlink, and created readable by "
        "its owner alone (0600); anything but a regular file with one link is refused (for a "
        "pipe: -w -).",
        {{"afxdp dump -i eth1 -q 0 -w rx.pcap -C 1000", "The next 1000 frames of queue 0."},
         {"afxdp dump -i eth1 -w - | tcpdump -r -", "Read them live with tcpdump."}}}},
  };
}

Texts measure_texts() {
  return {
      {"latency",
       {"Sends probes at a fixed rate through a reflector (afxdp l2fwd on the peer, or a UDP "
        "socket with --udp) and reports the round trip's percentiles, the probes lost and the CPU "
        "time it spent.",
        {{"afxdp latency -i veth0 --rate 20000 -C 60000",
          "Through an AF_XDP reflector on the other end of veth0."},
         {"afxdp latency --udp 10.9.0.2:7 --rate 1000 -C 2000",
          "Through afxdp udp-echo listening on 10.9.0.2 port 7."}}}},
      {"udp-echo",
       {"Sends every UDP datagram back to its sender through a blocking kernel socket: the "
        "kernel-socket reflector that afxdp latency --udp measures against. It does not answer "
        "source ports below 1024, this host's own addresses, loopback, broadcast or multicast "
        "sources, nor more than --per-source-rate datagrams a second to one source address, so "
        "that a datagram spoofed between two reflectors stops bouncing.",
        {{"afxdp udp-echo --listen 0.0.0.0:7", "Echo on port 7 of every address."}}}},
      {"demo",
       {"Makes a private network namespace and veth pair, drives traffic with afxdp gen, measures "
        "what the kernel alone receives (XDP_DROP), runs rxdrop, txpush and l2fwd in native and "
        "skb mode, spinning and in poll(), on one core and on two, prints a table in Mpps, then "
        "the round-trip latency through each reflector, and leaves nothing behind: the namespace "
        "dies with the process. It is its own executable, afxdp-demo, which afxdp demo runs.",
        {{"afxdp demo --quick", "One second per cell, two cores only: about 20 seconds."},
         {"afxdp demo --benchmark rxdrop --mode native --json",
          "Only rxdrop in native mode, one JSON object per cell."},
         {"afxdp demo --svg matrix.svg", "The table, and the same as a bar chart."}}}},
  };
}

const Texts& texts() {
  static const Texts table = [] {
    Texts all = benchmark_texts();
    all.merge(tool_texts());
    all.merge(measure_texts());
    return all;
  }();
  return table;
}

}  // namespace

PageText page_text(const CLI::App& command) {
  const auto found = texts().find(command.get_name());
  if (found != texts().end()) return found->second;
  return {command.get_description() + ".",
          {{"afxdp " + command.get_name() + " --help", "List the options."}}};
}

}  // namespace afxdp::tool::docgen
