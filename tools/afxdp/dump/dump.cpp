#include "dump/dump.hpp"

#include "common/frame_fit.hpp"
#include "common/number_checks.hpp"
#include "common/require.hpp"
#include "common/steer.hpp"

#include "common/pcap.hpp"

#include <afxdp/port.hpp>
#include <afxdp/run.hpp>

#include <csignal>
#include <cstdio>
#include <ctime>
#include <optional>
#include <poll.h>
#include <stdexcept>
#include <sys/stat.h>

namespace afxdp::tool {

namespace {

// Writes what arrives until -C or a signal; the write error that ended it ("" when none did).
std::string capture(Queue& queue, PcapWriter& writer, const DumpOptions& o,
                    const SignalStop& signals) {
  const auto write_frames = [&](std::span<Frame> frames) {
    timespec now{};
    clock_gettime(CLOCK_REALTIME, &now);  // arrival time, as close as user space sees it
    for (const Frame& f : frames) {
      if (o.count != 0 && writer.frames() >= o.count) return;  // frames beyond -C go back unwritten
      writer.write(reinterpret_cast<const std::uint8_t*>(f.data().data()), f.size(), now);
    }
  };
  // -F: a packet's fragments, joined into one record.
  std::vector<std::uint8_t> joined;
  const auto write_packets = [&](std::span<Packet> packets) {
    timespec now{};
    clock_gettime(CLOCK_REALTIME, &now);
    for (const Packet& p : packets) {
      if (o.count != 0 && writer.frames() >= o.count) return;
      joined.resize(p.size());
      p.copy_to(std::as_writable_bytes(std::span(joined)));
      writer.write(joined.data(), p.size(), now);
    }
  };
  while ((o.count == 0 || writer.frames() < o.count) && !signals.requested()) {
    if ((o.frags ? queue.receive_packets(write_packets) : queue.receive(write_frames)) != 0) {
      continue;
    }
    try {
      writer.flush();  // idle: what is captured reaches the file (and a closed pipe shows)
    } catch (const std::runtime_error& e) {
      return e.what();
    }
    queue.wait(std::chrono::milliseconds(100));
  }
  try {
    writer.close();
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return {};
}

void print_summary(const Queue& queue, const PcapWriter& writer, const DumpOptions& o) {
  const QueueStats stats = queue.stats();
  std::fprintf(stderr, "dump: %llu %s from %s to %s (kernel dropped %llu, ring full %llu",
               static_cast<unsigned long long>(writer.frames()), o.frags ? "packets" : "frames",
               queue.name().c_str(), o.file == "-" ? "standard output" : o.file.c_str(),
               static_cast<unsigned long long>(stats.kernel.rx_dropped),
               static_cast<unsigned long long>(stats.kernel.rx_ring_full));
  std::fprintf(stderr, ", bad descriptors %llu", static_cast<unsigned long long>(stats.refused));
  if (o.frags) {
    std::fprintf(stderr, ", fragments %llu, invalid chains %llu",
                 static_cast<unsigned long long>(stats.received),
                 static_cast<unsigned long long>(stats.invalid_chains));
  }
  std::fprintf(stderr, ")\n");
}

// Every frame where the queue says it is: a leak would have shown as a shrinking capture.
void require_every_frame_accounted_for(const Queue& queue) {
  if (const FrameAccount a = queue.account();
      a.total() != queue.frames() || queue.ledger().errors()) {
    throw std::runtime_error("frame account: " + std::to_string(a.total()) + " of " +
                             std::to_string(queue.frames()) + " frames accounted for, " +
                             std::to_string(queue.ledger().errors()) + " ledger error(s)");
  }
}

}  // namespace

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
  app->add_flag(
      "-F,--frags", o.frags,
      "multi-buffer (XDP_USE_SG, Linux 6.6+): packets larger than a frame, one record each");
  add_steer_option(*app, o.steer_texts);
  finish_after_parsing(*app, [&o] { o.steer = parse_steer(o.steer_texts); });
  return app;
}

Subcommand add_dump_subcommand(CLI::App& parent) {
  return subcommand_of(parent, add_dump_options, run_dump);
}

namespace {

// Standard output or a FIFO: opened before the port (a FIFO blocks until a reader comes, and
// meanwhile nothing is attached and SIGINT ends the wait). A regular file is created
// only once the port is open, so a set-up that fails leaves an existing capture as it was.
bool opens_before_port(const std::string& file) {
  struct stat st {};
  return file == "-" || (::stat(file.c_str(), &st) == 0 && S_ISFIFO(st.st_mode));
}

Port open_port(const DumpOptions& o) {
  // A named config, not a braced temporary: g++ 12 with Debian's hardening flags warns that the
  // temporary's strings may be used uninitialized (-Wmaybe-uninitialized, a false positive).
  PortConfig config;
  config.queues = {o.queue};
  config.bind = o.skb ? BindMode::skb : BindMode::native_copy;
  config.attach = o.skb ? AttachMode::skb : AttachMode::native;
  config.transmit = false;
  config.multi_buffer = o.frags;
  config.steer = o.steer;
  return Port::open(o.interface, config);
}

}  // namespace

int run_dump(const DumpOptions& o) {
  require_privilege("dump");
  check_queues(o.interface, std::span(&o.queue, 1));  // said before any file is made
  check_frame_fits_mtu(o.interface, PortConfig{}.frame_size, o.frags);
  // A reader that goes away is a write error (EPIPE), reported with the summary, not a silent
  // death by SIGPIPE.
  std::signal(SIGPIPE, SIG_IGN);
  // From here SIGINT/SIGTERM end the capture, which then closes the file; taken over before a
  // FIFO's open() blocks, so that one held pending by our parent (or sent while no reader comes)
  // interrupts it (EINTR) instead of staying blocked with it.
  const SignalStop signals;
  std::optional<PcapWriter> writer;
  if (opens_before_port(o.file)) {
    try {
      if (signals.requested()) return 0;
      writer.emplace(o.file);
    } catch (const std::runtime_error&) {
      if (signals.requested()) return 0;  // stopped while waiting for a reader: nothing to say
      throw;
    }
  }
  Port port = open_port(o);
  if (!writer) writer.emplace(o.file);
  Queue& queue = port.queues().front();
  const std::string write_error = capture(queue, *writer, o, signals);
  print_summary(queue, *writer, o);
  std::fputs(steering_text(port.steering().list()).c_str(), stderr);
  if (!write_error.empty()) throw std::runtime_error(write_error);
  require_every_frame_accounted_for(queue);
  return 0;
}

}  // namespace afxdp::tool
