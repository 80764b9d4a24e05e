#include "gen/live_source.hpp"

#include "gen/live_refusal.hpp"

#include <afxdp/error.hpp>

#include "gen_tx.skel.h"
#include "skeleton.hpp"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/bpf.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <vector>

namespace afxdp::tool {
namespace {

using Clock = std::chrono::steady_clock;

// With a rate, the program waits for each frame's slot with bottom halves disabled (the kernel
// enables them between batches). So a batch waits at most this long: batches are cut to fit,
// and at rates too low for one gap to fit, a run is one frame and user space sleeps between.
constexpr double max_batch_wait_seconds = 0.010;

using GenProgram = Skeleton<gen_tx, gen_tx__destroy>;

}  // namespace

struct LiveSource::State {
  const GenOptions& o;
  GenProgram skeleton;
  std::vector<std::uint8_t> frame;
  xdp_md context{};
  std::uint64_t chunk = first_call;  // without a rate, runs are sized from the previous one's
  Clock::duration longest_run{};
};

LiveSource::LiveSource(const GenOptions& o, std::span<const std::uint8_t> frame, unsigned ifindex)
    : state_(std::make_unique<State>(State{o,
                                           GenProgram(gen_tx__open()),
                                           std::vector<std::uint8_t>(frame.begin(), frame.end()),
                                           {},
                                           first_call,
                                           {}})) {
  State& s = *state_;
  if (!s.skeleton) throw_errno(errno, "bpf: open the gen_tx program");
  s.skeleton->rodata->max_wait_ns = static_cast<std::uint64_t>(max_batch_wait_seconds * 1e9);
  if (const int error = gen_tx__load(s.skeleton.get()); error != 0) {
    throw LiveRefused("bpf: load the gen_tx program: " + std::string(std::strerror(-error)));
  }
  s.context.data_end = static_cast<std::uint32_t>(s.frame.size());
  s.context.ingress_ifindex = ifindex;
  s.context.rx_queue_index = 0;
}

LiveSource::LiveSource(LiveSource&&) noexcept = default;
LiveSource::~LiveSource() = default;

std::uint64_t LiveSource::next_run(const Pace& pace) const {
  if (pace.rate == 0) return state_->chunk;
  const double gap = 1 / static_cast<double>(pace.rate);
  return gap > max_batch_wait_seconds ? 1 : frames_for_a_call(static_cast<double>(pace.rate));
}

Clock::duration LiveSource::longest_run() const noexcept { return state_->longest_run; }

std::uint64_t LiveSource::send(std::uint64_t n, const Pace& pace, const SignalStop& /*stop*/) {
  State& s = *state_;
  const auto run_start = Clock::now();
  bpf_test_run_opts opts{};
  opts.sz = sizeof opts;
  opts.data_in = s.frame.data();
  opts.data_size_in = static_cast<std::uint32_t>(s.frame.size());
  opts.ctx_in = &s.context;
  opts.ctx_size_in = sizeof s.context;
  opts.repeat = static_cast<int>(n);
  opts.flags = BPF_F_TEST_XDP_LIVE_FRAMES;
  opts.batch_size = s.o.batch_size;
  if (pace.rate > 0) {
    const double gap = 1 / static_cast<double>(pace.rate);
    opts.batch_size =
        std::clamp(static_cast<std::uint32_t>(max_batch_wait_seconds / gap), 1U, s.o.batch_size);
    // With a rate the program spaces the frames itself (bpf/gen_tx.bpf.c says why). The gap is
    // chosen so that this run ends when, at the rate, sent + n frames are due: time lost
    // between runs is made up over the next run (at most twice the rate), not in a burst.
    const double left = pace.due_seconds(pace.sent + n) - seconds(run_start - pace.start);
    const double nominal = 1e9 / static_cast<double>(pace.rate);
    s.skeleton->bss->interval_ns = static_cast<std::uint64_t>(
        std::clamp(left * 1e9 / static_cast<double>(n), nominal / 2, nominal));
    s.skeleton->bss->next_ns = 0;
  }
  const bool failed = bpf_prog_test_run_opts(bpf_program__fd(s.skeleton->progs.gen_tx), &opts) != 0;
  s.longest_run = std::max(s.longest_run, Clock::now() - run_start);
  if (failed) {
    const int error = errno;
    const std::string what = "BPF_PROG_TEST_RUN (XDP live frames) on " + s.o.interface + ": " +
                             std::strerror(error) +
                             (error == EINVAL ? " (needs Linux 5.18 or later)" : "");
    if (refuses_live_frames(error)) throw LiveRefused(what);
    throw_errno(error, "BPF_PROG_TEST_RUN (XDP live frames) on " + s.o.interface);
  }
  if (pace.rate == 0) {
    const double took = seconds(Clock::now() - run_start);
    if (took > 0) s.chunk = std::max(first_call, frames_for_a_call(static_cast<double>(n) / took));
  }
  return n;
}

}  // namespace afxdp::tool
