// The steering program's cost per frame against the plain redirect program and an XDP_PASS-only
// program, all run by the kernel through BPF_PROG_TEST_RUN (repeat N, the kernel's own average):
// no interface, no socket. The XSKMAPs are empty and the fallback is XDP_DROP, so a redirect ends
// in the same helper call in every program. Root. Figures: docs/benchmarks.md.
//
//   steer_bench [repeat] [rounds]
#include <afxdp/match.hpp>
#include <afxdp/steering.hpp>
#include <afxdp/xsk_program.hpp>

#include "../tests/lib/steering/test_frames.hpp"

#include <bpf/bpf.h>
#include <linux/bpf.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <system_error>
#include <vector>

namespace {

using afxdp::Match;

int load(std::vector<bpf_insn> insns, const char* name) {
  const int fd = bpf_prog_load(BPF_PROG_TYPE_XDP, name, "GPL", insns.data(), insns.size(), nullptr);
  if (fd < 0) throw std::system_error(errno, std::generic_category(), "bpf_prog_load");
  return fd;
}

bpf_insn insn(std::uint8_t code, std::uint8_t dst, std::uint8_t src, std::int16_t off,
              std::int32_t imm) {
  bpf_insn i{};
  i.code = code;
  i.dst_reg = dst & 0xf;
  i.src_reg = src & 0xf;
  i.off = off;
  i.imm = imm;
  return i;
}

// return XDP_PASS;
int pass_program() {
  return load(
      {insn(BPF_ALU64 | BPF_MOV | BPF_K, 0, 0, 0, XDP_PASS), insn(BPF_JMP | BPF_EXIT, 0, 0, 0, 0)},
      "pass_only");
}

// The redirect program as it was before steering:
// return bpf_redirect_map(&xsks, ctx->rx_queue_index, XDP_DROP);
int plain_redirect_program(int& map_fd) {
  map_fd = bpf_map_create(BPF_MAP_TYPE_XSKMAP, "xsks", 4, 4, 1, nullptr);
  if (map_fd < 0) throw std::system_error(errno, std::generic_category(), "bpf_map_create");
  return load({insn(BPF_LDX | BPF_MEM | BPF_W, 2, 1, offsetof(xdp_md, rx_queue_index), 0),
               insn(BPF_LD | BPF_DW | BPF_IMM, 1, BPF_PSEUDO_MAP_FD, 0, map_fd),
               insn(0, 0, 0, 0, 0), insn(BPF_ALU64 | BPF_MOV | BPF_K, 3, 0, 0, XDP_DROP),
               insn(BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_redirect_map),
               insn(BPF_JMP | BPF_EXIT, 0, 0, 0, 0)},
              "plain_redirect");
}

// Nanoseconds per run of `prog` on `frame`, the best of `rounds`.
double ns_per_frame(int prog, const std::vector<std::uint8_t>& frame, int repeat, int rounds,
                    std::uint32_t expect) {
  double best = 1e18;
  for (int r = 0; r < rounds; ++r) {
    bpf_test_run_opts opts{};
    opts.sz = sizeof opts;
    opts.data_in = frame.data();
    opts.data_size_in = static_cast<std::uint32_t>(frame.size());
    opts.repeat = repeat;
    if (bpf_prog_test_run_opts(prog, &opts) != 0) {
      throw std::system_error(errno, std::generic_category(), "BPF_PROG_TEST_RUN");
    }
    if (opts.retval != expect) {
      std::fprintf(stderr, "unexpected verdict %u (wanted %u)\n", opts.retval, expect);
      std::exit(1);
    }
    best = std::min(best, static_cast<double>(opts.duration));
  }
  return best;
}

struct Case {
  std::string name;
  std::function<void(afxdp::Steering&)> rules;
};

struct Bench {
  int repeat = 0;
  int rounds = 0;
  int plain = -1;  // the reference programs
  int pass = -1;
  std::vector<std::uint8_t> hit = afxdp::test::frame({.dport = 7777});
  std::vector<std::uint8_t> miss = afxdp::test::frame({.dport = 5});
};

std::vector<Case> cases() {
  const auto ports = [](int n) {
    return [n](afxdp::Steering& s) {
      for (int i = 0; i < n; ++i) s.add(Match::parse("udp dst port " + std::to_string(7777 - i)));
    };
  };
  const auto shapes = [](int n) {  // n distinct masks: the matching one is found last
    return [n](afxdp::Steering& s) {
      for (int i = 1; i < n; ++i) s.add(Match::parse("dst net 0.0.0.0/" + std::to_string(i)));
      s.add(Match::parse("udp dst port 7777"));
    };
  };
  return {
      {"no rule (every frame)", [](afxdp::Steering&) {}},
      {"1 rule", ports(1)},
      {"16 rules, 1 shape", ports(16)},
      {"1000 rules, 1 shape", ports(1000)},
      {"16 rules, 16 shapes", shapes(16)},
      {"32 rules, 32 shapes", shapes(32)},
  };
}

// One row: the case's program on a matching and a passing frame, each next to its reference,
// so that a busy machine shows in both.
void row(const Bench& b, const Case& c) {
  afxdp::XskProgram program(
      {.interface = "", .fallback = afxdp::XdpAction::drop, .queues = 1, .attach = false});
  afxdp::Steering steering;
  steering.attach(program);
  c.rules(steering);
  const int fd = program.program_fd();
  const double base = ns_per_frame(b.plain, b.hit, b.repeat, b.rounds, XDP_DROP);
  const double matched = ns_per_frame(fd, b.hit, b.repeat, b.rounds, XDP_DROP);
  std::printf("| %s | %.1f | %.2f | %.2fx |", c.name.c_str(), matched, 1e3 / matched,
              base / matched);
  if (!steering.active()) {
    std::printf(" - | - | - |\n");
    return;
  }
  const double base_pass = ns_per_frame(b.pass, b.miss, b.repeat, b.rounds, XDP_PASS);
  const double passed = ns_per_frame(fd, b.miss, b.repeat, b.rounds, XDP_PASS);
  std::printf(" %.1f | %.2f | %.2fx |\n", passed, 1e3 / passed, base_pass / passed);
}

}  // namespace

int main(int argc, char** argv) try {
  Bench b;
  b.repeat = argc > 1 ? std::atoi(argv[1]) : 2000000;
  b.rounds = argc > 2 ? std::atoi(argv[2]) : 5;
  int xskmap = -1;
  b.plain = plain_redirect_program(xskmap);
  b.pass = pass_program();
  const double plain_ns = ns_per_frame(b.plain, b.hit, b.repeat, b.rounds, XDP_DROP);
  const double pass_ns = ns_per_frame(b.pass, b.miss, b.repeat, b.rounds, XDP_PASS);
  std::printf("plain redirect program: %.1f ns/frame (%.2f Mpps)\n", plain_ns, 1e3 / plain_ns);
  std::printf("XDP_PASS-only program:  %.1f ns/frame (%.2f Mpps)\n\n", pass_ns, 1e3 / pass_ns);
  std::printf(
      "| rules | matching frame ns | Mpps | vs plain redirect | passing frame ns | Mpps | vs "
      "XDP_PASS-only |\n");
  std::printf("|---|---|---|---|---|---|---|\n");
  for (const Case& c : cases()) row(b, c);
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "steer_bench: %s\n", e.what());
  return 1;
}
