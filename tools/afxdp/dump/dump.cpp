#include "dump/dump.hpp"

#include "common/frame_fit.hpp"
#include "common/number_checks.hpp"
#include "common/require.hpp"
#include "common/steer.hpp"

#include "common/pcap.hpp"

#include <afxdp/port.hpp>
#include <afxdp/run.hpp>
#include <afxdp/unique_fd.hpp>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <ctime>
#include <fcntl.h>
#include <optional>
#include <poll.h>
#include <stdexcept>
#include <sys/stat.h>
#include <system_error>
#include <unistd.h>

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
  finish_after_parsing(*app, [&o] {
    require(!o.file.empty(), "-w: an empty path; name a file, or - for standard output");
    o.steer = parse_steer(o.steer_texts);
  });
  return app;
}

Subcommand add_dump_subcommand(CLI::App& parent) {
  return subcommand_of(parent, add_dump_options, run_dump);
}

namespace {

// The capture file, opened once and before the port, as root may run it in a directory others
// write to: a symlink planted at PATH is not followed (O_NOFOLLOW), a new file is the owner's
// alone (0600: traffic), an existing one is not truncated yet (a set-up that fails leaves an
// earlier capture as it was), and a FIFO does not block (O_NONBLOCK: no reader is ENXIO).
// Then the descriptor, not the path, decides: a regular file with no other link, or refused.
UniqueFd open_capture(const std::string& path) {
  const int fd =
      ::open(path.c_str(), O_WRONLY | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0600);
  if (fd < 0) {
    const int error = errno;
    if (error == ELOOP) {
      throw std::runtime_error("-w " + path + ": a symbolic link, which dump does not follow");
    }
    if (error == ENXIO) {
      throw std::runtime_error("-w " + path +
                               ": not a regular file (a FIFO); for a pipe, use -w - | ...");
    }
    throw std::system_error(error, std::generic_category(), "-w " + path);
  }
  UniqueFd file = UniqueFd::adopt(fd, "open");
  struct stat st {};
  if (::fstat(file.get(), &st) != 0) {
    throw std::system_error(errno, std::generic_category(), "fstat of -w " + path);
  }
  if (!S_ISREG(st.st_mode)) {
    throw std::runtime_error("-w " + path + ": not a regular file" +
                             (S_ISFIFO(st.st_mode) ? " (a FIFO); for a pipe, use -w - | ..." : ""));
  }
  if (st.st_nlink > 1) {
    throw std::runtime_error("-w " + path + ": a file with other hard links, left alone");
  }
  if (::fcntl(file.get(), F_SETFL, 0) != 0) {  // blocking writes from here
    throw std::system_error(errno, std::generic_category(), "fcntl(F_SETFL) on -w " + path);
  }
  return file;
}

// The capture's file emptied, now that the port is open, as a stream for the writer.
std::FILE* start_capture(const UniqueFd& file, const std::string& path) {
  if (::ftruncate(file.get(), 0) != 0) {
    throw std::system_error(errno, std::generic_category(), "ftruncate of -w " + path);
  }
  // The stream owns a duplicate; `file` closes the original.
  const int copy = ::fcntl(file.get(), F_DUPFD_CLOEXEC, 0);
  if (copy < 0) throw std::system_error(errno, std::generic_category(), "dup of -w " + path);
  std::FILE* stream = ::fdopen(copy, "wb");
  if (stream == nullptr) {
    const int error = errno;
    ::close(copy);
    throw std::system_error(error, std::generic_category(), "fdopen of -w " + path);
  }
  return stream;
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
  // From here SIGINT/SIGTERM end the capture, which then closes the file.
  const SignalStop signals;
  std::optional<PcapWriter> writer;
  std::optional<UniqueFd> file;
  if (o.file == "-") {
    writer.emplace("-");
  } else {
    file.emplace(open_capture(o.file));
  }
  Port port = open_port(o);
  if (!writer) writer.emplace(start_capture(*file, o.file), o.file);
  file.reset();
  Queue& queue = port.queues().front();
  const std::string write_error = capture(queue, *writer, o, signals);
  print_summary(queue, *writer, o);
  std::fputs(steering_text(port.steering().list()).c_str(), stderr);
  if (!write_error.empty()) throw std::runtime_error(write_error);
  require_every_frame_accounted_for(queue);
  return 0;
}

}  // namespace afxdp::tool
