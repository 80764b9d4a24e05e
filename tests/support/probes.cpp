#include "probes.hpp"

#include "hugepages.hpp"

#include <common/busy_poll_refusal.hpp>  // the errors the demo skips its busy-poll row on
#include <gen/live_refusal.hpp>          // the errors gen falls back on: one list

#include <afxdp/detail/uapi.hpp>

#include <bpf/bpf.h>
#include <linux/bpf.h>
#include <linux/if_xdp.h>
#include <net/if.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace afxdp::test {
namespace {

std::string error_text(int error) { return std::strerror(error); }

// A program fd, closed on every way out of a probe.
struct ProgramFd {
  int fd;
  ~ProgramFd() {
    if (fd >= 0) ::close(fd);
  }
};

struct Load {
  int fd = -1;
  int error = 0;  // positive errno; 0 when loaded
  std::string log;
};

Load load_xdp(const std::vector<bpf_insn>& insns, bool with_log, __u32 flags = 0) {
  Load result;
  std::vector<char> log(with_log ? 64 * 1024 : 0);
  bpf_prog_load_opts opts{};  // not LIBBPF_OPTS: a C99 compound literal in C++
  opts.sz = sizeof opts;
  opts.prog_flags = flags;
  if (with_log) {
    opts.log_buf = log.data();
    opts.log_size = static_cast<__u32>(log.size());
    opts.log_level = 1;
  }
  result.fd =
      bpf_prog_load(BPF_PROG_TYPE_XDP, "afxdp_probe", "GPL", insns.data(), insns.size(), &opts);
  if (result.fd < 0) result.error = -result.fd;
  if (with_log) result.log = log.data();
  return result;
}

template <__u8 reg>
constexpr bpf_insn mov64_imm(__s32 imm) {
  return {.code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = reg, .src_reg = 0, .off = 0, .imm = imm};
}
constexpr bpf_insn call(__s32 helper) {
  return {.code = BPF_JMP | BPF_CALL, .dst_reg = 0, .src_reg = 0, .off = 0, .imm = helper};
}
constexpr bpf_insn exit_insn() {
  return {.code = BPF_JMP | BPF_EXIT, .dst_reg = 0, .src_reg = 0, .off = 0, .imm = 0};
}

// Not libbpf_probe_bpf_helper: libbpf 1.1 (Debian 12) recognizes a refusal only by the verifier's
// older words ("unknown func", "invalid func") and assumes support otherwise, while kernels since
// 6.3 say "program of this type cannot use helper". So: load `helper(ctx, 0)` ourselves and read
// the log.
Facility probe_helper(std::string_view name, __s32 helper) {
  const Load load = load_xdp(
      {mov64_imm<BPF_REG_2>(0), call(helper), mov64_imm<BPF_REG_0>(XDP_PASS), exit_insn()}, true);
  ProgramFd owner{load.fd};
  return helper_outcome(name, load.error, load.log);
}

Facility probe_live_frames() {
  const Load load = load_xdp({mov64_imm<BPF_REG_0>(XDP_DROP), exit_insn()}, false);
  ProgramFd owner{load.fd};
  if (load.error != 0) {
    return {true, "live frames not probed: a trivial XDP program does not load: " +
                      error_text(load.error)};
  }
  const unsigned lo = ::if_nametoindex("lo");
  if (lo == 0) return {true, "live frames not probed: no interface lo: " + error_text(errno)};
  std::array<unsigned char, 64> frame{};  // zeros: dropped by the program anyway
  xdp_md context{};
  context.data_end = frame.size();
  context.ingress_ifindex = lo;
  bpf_test_run_opts run{};
  run.sz = sizeof run;
  run.data_in = frame.data();
  run.data_size_in = frame.size();
  run.ctx_in = &context;
  run.ctx_size_in = sizeof context;
  run.repeat = 1;
  run.flags = BPF_F_TEST_XDP_LIVE_FRAMES;
  const int result = bpf_prog_test_run_opts(load.fd, &run);
  return live_frames_outcome(result < 0 ? -result : 0);
}

// A file descriptor, closed on every way out.
struct Fd {
  int fd;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

// An AF_XDP socket with a small UMEM and an rx ring bound to `lo` queue 0 in copy mode, with or
// without XDP_USE_SG: 0, or the positive errno of the first call that failed.
int bind_on_lo(bool multi_buffer) {
  const unsigned lo = ::if_nametoindex("lo");
  if (lo == 0) return errno;
  const Fd socket{::socket(AF_XDP, SOCK_RAW | SOCK_CLOEXEC, 0)};
  if (socket.fd < 0) return errno;
  constexpr std::size_t frames = 4, frame_size = 4096;
  void* area = ::mmap(nullptr, frames * frame_size, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (area == MAP_FAILED) return errno;
  xdp_umem_reg reg{};
  reg.addr = reinterpret_cast<__u64>(area);
  reg.len = frames * frame_size;
  reg.chunk_size = frame_size;
  const int ring = frames;
  sockaddr_xdp address{};
  address.sxdp_family = AF_XDP;
  address.sxdp_ifindex = lo;
  address.sxdp_queue_id = 0;
  address.sxdp_flags = XDP_COPY | (multi_buffer ? uapi::xdp_use_sg : 0);
  int error = 0;
  if (::setsockopt(socket.fd, SOL_XDP, XDP_UMEM_REG, &reg, sizeof reg) != 0 ||
      ::setsockopt(socket.fd, SOL_XDP, XDP_UMEM_FILL_RING, &ring, sizeof ring) != 0 ||
      ::setsockopt(socket.fd, SOL_XDP, XDP_UMEM_COMPLETION_RING, &ring, sizeof ring) != 0 ||
      ::setsockopt(socket.fd, SOL_XDP, XDP_RX_RING, &ring, sizeof ring) != 0 ||
      ::bind(socket.fd, reinterpret_cast<const sockaddr*>(&address), sizeof address) != 0) {
    error = errno;
  }
  ::munmap(area, frames * frame_size);
  return error;
}

// The plain bind only where the multi-buffer one failed: it tells a refused flag from no AF_XDP
// bind at all. A socket just closed frees the queue a moment later (EBUSY until then).
Facility probe_multi_buffer() {
  const Load frags =
      load_xdp({mov64_imm<BPF_REG_0>(XDP_PASS), exit_insn()}, false, BPF_F_XDP_HAS_FRAGS);
  ProgramFd owner{frags.fd};
  const int multi_buffer = bind_on_lo(true);
  int plain = 0;
  if (multi_buffer != 0) {
    for (int attempt = 0; attempt < 100; ++attempt) {
      plain = bind_on_lo(false);
      if (plain != EBUSY) break;
      ::usleep(10000);
    }
  }
  return multi_buffer_outcome(plain, multi_buffer, frags.error);
}

// AFXDP_TEST_REFUSE=live_frames,xdp_adjust_meta,... plays a kernel that refuses them, so the
// skip path and its report can be seen on a kernel that allows everything. Otherwise: `probe`.
template <class Probe>
Facility simulated(std::string_view name, std::string_view words, Probe probe) {
  const char* list = std::getenv("AFXDP_TEST_REFUSE");
  for (std::string_view rest = list != nullptr ? list : ""; !rest.empty();) {
    const auto comma = rest.find(',');
    if (rest.substr(0, comma) == name) {
      return {false, std::string(words) + ": refused (simulated: AFXDP_TEST_REFUSE)"};
    }
    rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
  }
  return probe();
}

}  // namespace

Facility live_frames_outcome(int error) {
  const std::string what = "BPF_PROG_TEST_RUN with XDP live frames";
  if (tool::refuses_live_frames(error)) return {false, what + ": " + error_text(error)};
  if (error != 0) return {true, what + " not probed: " + error_text(error)};
  return {};
}

Facility multi_buffer_outcome(int plain_bind, int multi_buffer_bind, int frags_load) {
  if (plain_bind != 0) {
    return {true, "multi-buffer not probed: an AF_XDP socket does not bind to lo: " +
                      error_text(plain_bind)};
  }
  // Kernels before 6.6 refuse the unknown bind flag (EINVAL), before 5.18 the program flag.
  if (multi_buffer_bind == EINVAL || multi_buffer_bind == EOPNOTSUPP) {
    return {false,
            "multi-buffer AF_XDP sockets (XDP_USE_SG): bind: " + error_text(multi_buffer_bind)};
  }
  if (frags_load == EINVAL) {
    return {false,
            "XDP programs with frags (BPF_F_XDP_HAS_FRAGS): load: " + error_text(frags_load)};
  }
  if (multi_buffer_bind != 0 || frags_load != 0) {
    return {true, "multi-buffer not probed: " +
                      error_text(multi_buffer_bind != 0 ? multi_buffer_bind : frags_load)};
  }
  return {};
}

Facility busy_poll_outcome(std::string_view refusal) {
  if (refusal.empty()) return {};
  return {false, std::string(refusal)};
}

Facility helper_outcome(std::string_view helper, int error, std::string_view log) {
  if (error == 0) return {};
  // The verifier's words for "not for this program type" (6.3 on), and for an unknown helper.
  for (const std::string_view refusal : {"cannot use helper", "unknown func", "invalid func"}) {
    const auto at = log.find(refusal);
    if (at == std::string_view::npos) continue;
    const auto start = log.rfind('\n', at);
    const auto line_start = start == std::string_view::npos ? 0 : start + 1;
    const auto end = log.find('\n', at);
    const std::string line(log.substr(
        line_start, end == std::string_view::npos ? std::string_view::npos : end - line_start));
    return {false,
            "the kernel refuses " + std::string(helper) + " in XDP programs (\"" + line + "\")"};
  }
  return {true, std::string(helper) + " not probed: the probe program does not load (" +
                    error_text(error) + ")"};
}

const Facility& live_frames() {
  static const Facility facility =
      simulated("live_frames", "BPF_PROG_TEST_RUN with XDP live frames", probe_live_frames);
  return facility;
}

const Facility& xdp_adjust_meta() {
  static const Facility facility =
      simulated("xdp_adjust_meta", "bpf_xdp_adjust_meta in XDP programs",
                [] { return probe_helper("bpf_xdp_adjust_meta", BPF_FUNC_xdp_adjust_meta); });
  return facility;
}

const Facility& xdp_adjust_tail() {
  static const Facility facility =
      simulated("xdp_adjust_tail", "bpf_xdp_adjust_tail in XDP programs",
                [] { return probe_helper("bpf_xdp_adjust_tail", BPF_FUNC_xdp_adjust_tail); });
  return facility;
}

const Facility& multi_buffer() {
  static const Facility facility =
      simulated("multi_buffer", "multi-buffer AF_XDP sockets (XDP_USE_SG)", probe_multi_buffer);
  return facility;
}

const Facility& busy_poll() {
  static const Facility facility = simulated("busy_poll", "busy polling (SO_PREFER_BUSY_POLL)", [] {
    return busy_poll_outcome(tool::busy_poll_refusal());
  });
  return facility;
}

Facility hugepages(const HugepageReservation& reservation) {
  if (reservation.failure().empty()) return {};
  return {false, "2 MiB hugepages: " + reservation.failure()};
}

}  // namespace afxdp::test
