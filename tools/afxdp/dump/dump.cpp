#include "dump/dump.hpp"

#include "common/frame_fit.hpp"
#include "common/number_checks.hpp"
#include "common/require.hpp"
#include "common/steer.hpp"

#include "common/pcap.hpp"

#include <afxdp/port.hpp>
#include <afxdp/run.hpp>
#include <afxdp/xsk/unique_fd.hpp>

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

// Writes what arrives on any of `queues` until -C or a signal; the write error that ended it (""
// when none did). One thread takes each queue's batch in turn and, when none has anything, waits
// for the first to receive (wait_any): the file holds the frames in the order it saw them.
std::string capture(std::span<Queue> queues, PcapWriter& writer, const DumpOptions& o,
                    const SignalStop& signals) {
  const auto full = [&] { return o.count != 0 && writer.frames() >= o.count; };
  const auto write_frames = [&](Frames frames) {
    timespec now{};
    clock_gettime(CLOCK_REALTIME, &now);  // arrival time, as close as user space sees it
    for (const Frame& f : frames) {
      if (full()) return;  // frames beyond -C go back unwritten
      writer.write(reinterpret_cast<const std::uint8_t*>(f.data().data()), f.size(), now);
    }
  };
  // -F: a packet's fragments, joined into one record.
  std::vector<std::uint8_t> joined;
  const auto write_packets = [&](std::span<Packet> packets) {
    timespec now{};
    clock_gettime(CLOCK_REALTIME, &now);
    for (const Packet& p : packets) {
      if (full()) return;
      joined.resize(p.size());
      p.copy_to(std::as_writable_bytes(std::span(joined)));
      writer.write(joined.data(), p.size(), now);
    }
  };
  std::vector<Queue*> waiting;
  for (Queue& queue : queues) waiting.push_back(&queue);
  while (!full() && !signals.requested()) {
    std::size_t taken = 0;
    for (Queue& queue : queues) {
      taken += o.frags ? queue.receive_packets(write_packets) : queue.receive(write_frames);
    }
    if (taken != 0) continue;
    try {
      writer.flush();  // idle: what is captured reaches the file (and a closed pipe shows)
    } catch (const std::runtime_error& e) {
      return e.what();
    }
    wait_any(waiting, std::chrono::milliseconds(100));
  }
  try {
    writer.close();
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return {};
}

// "veth0:0" for one queue, "veth0:0,1" for several: one word, as the summary's readers expect.
std::string queues_name(std::span<const Queue> queues) {
  std::string name = queues.front().name();
  for (const Queue& queue : queues.subspan(1)) name += "," + std::to_string(queue.id());
  return name;
}

void print_summary(std::span<const Queue> queues, const PcapWriter& writer, const DumpOptions& o) {
  QueueStats sum{};
  for (const Queue& queue : queues) {
    const QueueStats stats = queue.stats();
    sum.kernel.rx_dropped += stats.kernel.rx_dropped;
    sum.kernel.rx_ring_full += stats.kernel.rx_ring_full;
    sum.refused += stats.refused;
    sum.received += stats.received;
    sum.invalid_chains += stats.invalid_chains;
  }
  std::fprintf(stderr, "dump: %llu %s from %s to %s (kernel dropped %llu, ring full %llu",
               static_cast<unsigned long long>(writer.frames()), o.frags ? "packets" : "frames",
               queues_name(queues).c_str(), o.file == "-" ? "standard output" : o.file.c_str(),
               static_cast<unsigned long long>(sum.kernel.rx_dropped),
               static_cast<unsigned long long>(sum.kernel.rx_ring_full));
  std::fprintf(stderr, ", bad descriptors %llu", static_cast<unsigned long long>(sum.refused));
  if (o.frags) {
    std::fprintf(stderr, ", fragments %llu, invalid chains %llu",
                 static_cast<unsigned long long>(sum.received),
                 static_cast<unsigned long long>(sum.invalid_chains));
  }
  std::fprintf(stderr, ")\n");
}

// Every frame where its queue says it is: a leak would have shown as a shrinking capture.
void require_every_frame_accounted_for(std::span<const Queue> queues) {
  for (const Queue& queue : queues) {
    if (const FrameAccount a = queue.account();
        a.total() != queue.frames() || queue.ledger().errors()) {
      throw std::runtime_error(queue.name() + ": frame account: " + std::to_string(a.total()) +
                               " of " + std::to_string(queue.frames()) + " frames accounted for, " +
                               std::to_string(queue.ledger().errors()) + " ledger error(s)");
    }
  }
}

}  // namespace

CLI::App* add_dump_options(CLI::App& parent, DumpOptions& o) {
  CLI::App* app = parent.add_subcommand(
      "dump", "capture what arrives on an interface's rx queues through AF_XDP into a pcap file");
  app->add_option("-i,--interface", o.interface, "interface to capture on")->required();
  app->add_option("-q,--queue", o.queues,
                  "rx queue to capture; repeat for more (default: every one)")
      ->expected(1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
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
  config.queues = o.queues;  // empty: every rx queue
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
  check_queues(o.interface, o.queues);  // said before any file is made
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
  const std::string write_error = capture(port.queues(), *writer, o, signals);
  print_summary(port.queues(), *writer, o);
  std::fputs(steering_text(port.steering().list()).c_str(), stderr);
  if (!write_error.empty()) throw std::runtime_error(write_error);
  require_every_frame_accounted_for(port.queues());
  return 0;
}

}  // namespace afxdp::tool
