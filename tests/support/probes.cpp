#include "probes.hpp"

#include "hugepages.hpp"

#include <gen/live_refusal.hpp>  // the errors gen falls back on: one list

#include <bpf/bpf.h>
#include <linux/bpf.h>
#include <net/if.h>
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

Load load_xdp(const std::vector<bpf_insn>& insns, bool with_log) {
  Load result;
  std::vector<char> log(with_log ? 64 * 1024 : 0);
  bpf_prog_load_opts opts{};  // not LIBBPF_OPTS: a C99 compound literal in C++
  opts.sz = sizeof opts;
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

Facility hugepages(const HugepageReservation& reservation) {
  if (reservation.failure().empty()) return {};
  return {false, "2 MiB hugepages: " + reservation.failure()};
}

}  // namespace afxdp::test
