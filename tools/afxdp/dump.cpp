#include "dump.hpp"

#include "number_checks.hpp"

#include "pcap.hpp"
#include "stop_signals.hpp"

#include <afxdp/socket.hpp>
#include <afxdp/xsk_program.hpp>
#include <lab.hpp>

#include <cstdio>
#include <ctime>
#include <memory>
#include <poll.h>
#include <stdexcept>

namespace afxdp::tool {

CLI::App* add_dump_options(CLI::App& parent, DumpOptions& o) {
  CLI::App* app = parent.add_subcommand(
      "dump", "capture what arrives on one rx queue through AF_XDP into a pcap file");
  app->add_option("-i,--interface", o.interface, "interface to capture on")->required();
  app->add_option("-q,--queue", o.queue, "rx queue")->capture_default_str();
  app->add_option("-w,--write", o.file, "pcap file to write, - for standard output")->required();
  app->add_option("-C,--count", o.count, "stop after this many frames (0: at SIGINT/SIGTERM)")
      ->capture_default_str()
      ->check(not_negative_integer());
  app->add_flag("-S,--skb", o.skb, "attach the program in skb (generic) mode, not native");
  return app;
}

Command add_dump_command(CLI::App& parent) {
  auto options = std::make_shared<DumpOptions>();
  CLI::App* app = add_dump_options(parent, *options);
  return {app, [options] { return run_dump(*options); }};
}

int run_dump(const DumpOptions& o) {
  if (const std::string missing = lab::missing_privilege(); !missing.empty()) {
    throw std::runtime_error("dump needs " + missing);
  }
  // Signals first: one that arrives during set-up is seen by the loop, which then closes the file.
  StopSignals signals;
  Umem umem({.frame_count = 4096, .frame_size = 4096});
  Socket socket(umem, {.interface = o.interface,
                       .queue = o.queue,
                       .mode = o.skb ? BindMode::skb : BindMode::native_copy,
                       .tx_size = 0});
  XskProgram program({.interface = o.interface,
                      .mode = o.skb ? AttachMode::skb : AttachMode::native});
  program.insert(o.queue, socket.fd());
  // After set-up, so that a failed set-up leaves no file; frames wait in the rx ring meanwhile.
  PcapWriter writer(o.file);

  // Lend the kernel a fill ring's worth of frames; each comes back through rx and is lent again.
  FillRing& fill = socket.fill();
  const std::uint32_t frame_size = umem.config().frame_size;
  const std::uint32_t lent = fill.reserve(fill.size());
  for (std::uint32_t i = 0; i < lent; ++i) fill.at(i) = std::uint64_t{i} * frame_size;
  fill.submit(lent);

  RxRing& rx = socket.rx();
  std::uint64_t invalid = 0;
  while (o.count == 0 || writer.frames() < o.count) {
    const std::uint32_t n = rx.peek(64);
    if (n == 0) {
      if (fill.needs_wakeup()) socket.wake_rx();
      socket.poll(POLLIN, 100);  // sleeps while idle; signals are looked at below
      if (signals.wait(std::chrono::nanoseconds::zero())) break;
      continue;
    }
    timespec now{};
    clock_gettime(CLOCK_REALTIME, &now);  // arrival time, as close as user space sees it
    // Room is there: the n frames came off the fill ring.
    const std::uint32_t refill = fill.reserve(n);
    for (std::uint32_t i = 0; i < n; ++i) {
      const xdp_desc& d = rx.at(i);
      const bool enough = o.count != 0 && writer.frames() >= o.count;
      if (!umem.contains(d.addr, d.len)) {
        ++invalid;  // never trust a descriptor; never write outside the area
      } else if (!enough) {  // frames beyond -C go back unwritten
        writer.write(reinterpret_cast<const std::uint8_t*>(umem.data(d.addr)), d.len, now);
      }
      if (refill == n) fill.at(i) = d.addr - d.addr % frame_size;
    }
    if (refill == n) fill.submit(n);
    rx.release(n);
    if (signals.wait(std::chrono::nanoseconds::zero())) break;
  }
  writer.close();
  const XdpStatistics stats = socket.statistics();
  std::fprintf(stderr, "dump: %llu frames from %s to %s (kernel dropped %llu, ring full %llu",
               static_cast<unsigned long long>(writer.frames()), socket.name().c_str(),
               o.file == "-" ? "standard output" : o.file.c_str(),
               static_cast<unsigned long long>(stats.rx_dropped),
               static_cast<unsigned long long>(stats.rx_ring_full));
  std::fprintf(stderr, ", bad descriptors %llu)\n", static_cast<unsigned long long>(invalid));
  return 0;
}

}  // namespace afxdp::tool
