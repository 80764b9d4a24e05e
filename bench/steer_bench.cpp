// The steering program's cost per frame against the plain redirect program and an XDP_PASS-only
// program, all run by the kernel through BPF_PROG_TEST_RUN (repeat N): no interface, no socket.
// Each figure is measured right after its reference, round after round (A B A B), and reported
// as medians, so a shared machine's load shows in both. The XSKMAPs are empty and the fallback is
// XDP_DROP, so a redirect ends in the same helper call in every program. Root. Figures:
// docs/benchmarks.md.
//
//   steer_bench [repeat] [rounds]
#include <afxdp/steering/match.hpp>
#include <afxdp/steering/steering.hpp>
#include <afxdp/xsk/xsk_program.hpp>

#include "../tests/lib/steering/test_frames.hpp"

#include <bpf/bpf.h>
#include <linux/bpf.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
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

// Floors, to read the table against. Bounds-check and read the EtherType, then XDP_PASS: the
// least any program that looks at a frame pays.
int touch_program() {
  return load(
      {insn(BPF_LDX | BPF_MEM | BPF_W, 2, 1, offsetof(xdp_md, data), 0),
       insn(BPF_LDX | BPF_MEM | BPF_W, 3, 1, offsetof(xdp_md, data_end), 0),
       insn(BPF_ALU64 | BPF_MOV | BPF_X, 4, 2, 0, 0),
       insn(BPF_ALU64 | BPF_ADD | BPF_K, 4, 0, 0, 14), insn(BPF_JMP | BPF_JGT | BPF_X, 4, 3, 1, 0),
       insn(BPF_LDX | BPF_MEM | BPF_H, 0, 2, 12, 0),
       insn(BPF_ALU64 | BPF_MOV | BPF_K, 0, 0, 0, XDP_PASS), insn(BPF_JMP | BPF_EXIT, 0, 0, 0, 0)},
      "touch_pass");
}

// The plain redirect plus one per-CPU counter (slot 0): the least a program that counts hits
// per rule pays on a matching frame.
int counted_redirect_program(int xskmap) {
  const int hits = bpf_map_create(BPF_MAP_TYPE_PERCPU_ARRAY, "hits", 4, 8, 1, nullptr);
  if (hits < 0) throw std::system_error(errno, std::generic_category(), "bpf_map_create");
  return load(
      {insn(BPF_ALU64 | BPF_MOV | BPF_X, 6, 1, 0, 0), insn(BPF_ST | BPF_MEM | BPF_W, 10, 0, -4, 0),
       insn(BPF_ALU64 | BPF_MOV | BPF_X, 2, 10, 0, 0),
       insn(BPF_ALU64 | BPF_ADD | BPF_K, 2, 0, 0, -4),
       insn(BPF_LD | BPF_DW | BPF_IMM, 1, BPF_PSEUDO_MAP_FD, 0, hits), insn(0, 0, 0, 0, 0),
       insn(BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_map_lookup_elem),
       insn(BPF_JMP | BPF_JEQ | BPF_K, 0, 0, 3, 0), insn(BPF_LDX | BPF_MEM | BPF_DW, 1, 0, 0, 0),
       insn(BPF_ALU64 | BPF_ADD | BPF_K, 1, 0, 0, 1), insn(BPF_STX | BPF_MEM | BPF_DW, 0, 1, 0, 0),
       insn(BPF_LDX | BPF_MEM | BPF_W, 2, 6, offsetof(xdp_md, rx_queue_index), 0),
       insn(BPF_LD | BPF_DW | BPF_IMM, 1, BPF_PSEUDO_MAP_FD, 0, xskmap), insn(0, 0, 0, 0, 0),
       insn(BPF_ALU64 | BPF_MOV | BPF_K, 3, 0, 0, XDP_DROP),
       insn(BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_redirect_map),
       insn(BPF_JMP | BPF_EXIT, 0, 0, 0, 0)},
      "counted_redirect");
}

// Nanoseconds per run of `prog` on `frame`: the thread's CPU time over `repeat` runs (ns
// resolution and no time preempted; the kernel's own average is whole ns only).
double ns_per_frame(int prog, const std::vector<std::uint8_t>& frame, int repeat,
                    std::uint32_t expect) {
  bpf_test_run_opts opts{};
  opts.sz = sizeof opts;
  opts.data_in = frame.data();
  opts.data_size_in = static_cast<std::uint32_t>(frame.size());
  opts.repeat = repeat;
  timespec t0{}, t1{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
  if (bpf_prog_test_run_opts(prog, &opts) != 0) {
    throw std::system_error(errno, std::generic_category(), "BPF_PROG_TEST_RUN");
  }
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t1);
  if (opts.retval != expect) {
    std::fprintf(stderr, "unexpected verdict %u (wanted %u)\n", opts.retval, expect);
    std::exit(1);
  }
  const double ns = static_cast<double>(t1.tv_sec - t0.tv_sec) * 1e9 +
                    static_cast<double>(t1.tv_nsec - t0.tv_nsec);
  return ns / repeat;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// A program against its reference on one frame, A B A B: the median of each one's time and of
// the per-round ratio reference / program (a busy round slows both).
struct Versus {
  double ref_ns = 0;
  double ns = 0;
  double ratio = 0;
};

Versus versus(int reference, int prog, const std::vector<std::uint8_t>& frame, int repeat,
              int rounds, std::uint32_t expect) {
  std::vector<double> refs, mine, ratios;
  for (int r = 0; r < rounds; ++r) {
    refs.push_back(ns_per_frame(reference, frame, repeat, expect));
    mine.push_back(ns_per_frame(prog, frame, repeat, expect));
    ratios.push_back(refs.back() / mine.back());
  }
  return {median(refs), median(mine), median(ratios)};
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
  std::vector<std::uint8_t> arp = afxdp::test::frame({.ethertype = 0x0806});
};

std::vector<Case> cases() {
  const auto ports = [](int n) {
    return [n](afxdp::Steering& s) {
      for (int i = 0; i < n; ++i) s.add(Match::parse("udp dst port " + std::to_string(7777 - i)));
    };
  };
  // A rule the port table cannot hold: a hash shape (with addresses).
  const char* hashed = "src net 192.0.2.0/24 and udp dst port 7777";
  const auto shapes = [hashed](int n) {  // n distinct masks: the matching one is found last
    return [n, hashed](afxdp::Steering& s) {
      for (int i = 1; i < n; ++i) s.add(Match::parse("dst net 0.0.0.0/" + std::to_string(i)));
      s.add(Match::parse(hashed));
    };
  };
  return {
      {"no rule (every frame)", [](afxdp::Steering&) {}},
      {"1 (`udp dst port 7777`)", ports(1)},
      {"16, 16 ports", ports(16)},
      {"1,000, 1,000 ports", ports(1000)},
      {"1 hash shape (`src net .../24 and udp dst port 7777`)", shapes(1)},
      {"16 shapes (15 `dst net` lengths, then the above)", shapes(16)},
      {"32 shapes", shapes(32)},
  };
}

// One row: the case's program on a matching and on passing frames, each against its reference.
void row(const Bench& b, const Case& c) {
  afxdp::XskProgram program(
      {.interface = "", .fallback = afxdp::XdpAction::drop, .queues = 1, .attach = false});
  afxdp::Steering steering;
  afxdp::detail::add_program(steering, *afxdp::detail::steer_tables(program));
  c.rules(steering);
  const int fd = program.program_fd();
  const Versus hit = versus(b.plain, fd, b.hit, b.repeat, b.rounds, XDP_DROP);
  std::printf("| %s | %.1f (%.1f) | %.1f | %.2fx |", c.name.c_str(), hit.ns, 1e3 / hit.ns,
              hit.ref_ns, hit.ratio);
  if (!steering.active()) {
    std::printf(" - | - | - | - |\n");
    return;
  }
  const Versus miss = versus(b.pass, fd, b.miss, b.repeat, b.rounds, XDP_PASS);
  const Versus arp = versus(b.pass, fd, b.arp, b.repeat, b.rounds, XDP_PASS);
  std::printf(" %.1f | %.2fx | %.1f | %.2fx |\n", miss.ns, miss.ratio, arp.ns, arp.ratio);
}

}  // namespace

int main(int argc, char** argv) try {
  Bench b;
  b.repeat = argc > 1 ? std::atoi(argv[1]) : 2000000;
  b.rounds = argc > 2 ? std::atoi(argv[2]) : 9;
  int xskmap = -1;
  b.plain = plain_redirect_program(xskmap);
  b.pass = pass_program();
  std::printf("ns per frame, median of %d rounds of %d runs; ratios: median of the per-round\n",
              b.rounds, b.repeat);
  std::printf("reference / steering (>= 1: as fast); passing frames against XDP_PASS-only\n\n");
  const Versus touch = versus(b.pass, touch_program(), b.arp, b.repeat, b.rounds, XDP_PASS);
  std::printf("floor: XDP_PASS-only %.1f ns; reading the EtherType first %.1f ns (%.2fx)\n",
              touch.ref_ns, touch.ns, touch.ratio);
  const Versus counted =
      versus(b.plain, counted_redirect_program(xskmap), b.hit, b.repeat, b.rounds, XDP_DROP);
  std::printf("floor: plain redirect %.1f ns; with a per-CPU counter %.1f ns (%.2fx)\n\n",
              counted.ref_ns, counted.ns, counted.ratio);
  std::printf(
      "| rules | matching frame ns (Mpps) | plain redirect ns | vs plain | passing UDP ns | vs "
      "XDP_PASS-only | passing ARP ns | vs XDP_PASS-only |\n");
  std::printf("|---|---|---|---|---|---|---|---|\n");
  for (const Case& c : cases()) row(b, c);
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "steer_bench: %s\n", e.what());
  return 1;
}
