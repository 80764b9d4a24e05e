// Per-packet verdict dispatch: how a packet loop reaches the code for a packet's action.
// 4096 packets whose verdicts are mostly one action (94 % redirect, 4 % drop, 1.5 % tx, 0.5 %
// pass, shuffled with a fixed seed), each way of dispatching running the same four handlers:
//   template   the loop is a template over the handler type; the compiler sees and inlines it
//   if_chain   explicit ifs, most likely verdict first
//   switch     a switch on the verdict (the compiler may emit a jump table: an indirect jump)
//   switch_likely  the same switch with its common case marked [[likely]]
//   fn_pointer a table of function pointers indexed by the verdict
//   virtual    a table of objects with a virtual handle()
//   function   a table of std::function
// The same source is built twice: dispatch_bench, and dispatch_bench_retpoline with
// -mindirect-branch=thunk -mfunction-return=thunk -mindirect-branch-register, where every
// indirect call, indirect jump and return of this file goes through a retpoline thunk.
//
// Results and the commands: docs/benchmarks.md, "Verdict dispatch".
#include <benchmark/benchmark.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <functional>
#include <random>
#include <vector>

namespace {

enum class Verdict : std::uint8_t { redirect, drop, tx, pass };
constexpr std::size_t verdict_count = 4;

struct Packet {
  Verdict verdict;
  std::uint32_t len;
};

struct Counters {
  std::array<std::uint64_t, verdict_count> packets{};
  std::uint64_t bytes = 0;
};

// The handlers: small, as in a real loop (count, and account bytes for what leaves).
inline void on_redirect(Counters& c, const Packet& p) {
  ++c.packets[0];
  c.bytes += p.len;
}
inline void on_drop(Counters& c, const Packet&) { ++c.packets[1]; }
inline void on_tx(Counters& c, const Packet& p) {
  ++c.packets[2];
  c.bytes += p.len;
}
inline void on_pass(Counters& c, const Packet&) { ++c.packets[3]; }

std::vector<Packet> make_packets() {
  constexpr std::size_t n = 4096;
  std::vector<Packet> packets;
  packets.reserve(n);
  const auto add = [&](Verdict v, std::size_t count) {
    for (std::size_t i = 0; i < count; ++i) {
      packets.push_back({v, static_cast<std::uint32_t>(64 + (packets.size() * 37) % 1400)});
    }
  };
  add(Verdict::drop, n * 40 / 1000);
  add(Verdict::tx, n * 15 / 1000);
  add(Verdict::pass, n * 5 / 1000);
  add(Verdict::redirect, n - packets.size());
  std::mt19937 rng(42);
  std::shuffle(packets.begin(), packets.end(), rng);
  return packets;
}

const std::vector<Packet>& packets() {
  static const std::vector<Packet> p = make_packets();
  return p;
}

// Every benchmark: one pass over the packets per iteration, then check nothing was lost.
template <class Loop>
void run(benchmark::State& state, Loop loop) {
  const auto& pkts = packets();
  Counters c;
  for (auto _ : state) {
    loop(pkts, c);
    benchmark::ClobberMemory();
  }
  std::uint64_t total = 0;
  for (const auto n : c.packets) total += n;
  if (total != pkts.size() * static_cast<std::uint64_t>(state.iterations())) {
    state.SkipWithError("a packet was not dispatched");
  }
  benchmark::DoNotOptimize(c);
  state.SetItemsProcessed(static_cast<std::int64_t>(total));
}

// --- template: the handler is a type the loop is instantiated with ---
struct InlineHandler {
  void operator()(Counters& c, const Packet& p) const {
    switch (p.verdict) {
      case Verdict::redirect:
        on_redirect(c, p);
        break;
      case Verdict::drop:
        on_drop(c, p);
        break;
      case Verdict::tx:
        on_tx(c, p);
        break;
      case Verdict::pass:
        on_pass(c, p);
        break;
    }
  }
};

template <class Handler>
void dispatch_template(const std::vector<Packet>& pkts, Counters& c, const Handler& handle) {
  for (const Packet& p : pkts) handle(c, p);
}

void BM_Template(benchmark::State& state) {
  run(state, [](const auto& pkts, Counters& c) { dispatch_template(pkts, c, InlineHandler{}); });
}

// --- if-chain, most likely first ---
void BM_IfChain(benchmark::State& state) {
  run(state, [](const auto& pkts, Counters& c) {
    for (const Packet& p : pkts) {
      if (p.verdict == Verdict::redirect) {
        on_redirect(c, p);
      } else if (p.verdict == Verdict::drop) {
        on_drop(c, p);
      } else if (p.verdict == Verdict::tx) {
        on_tx(c, p);
      } else {
        on_pass(c, p);
      }
    }
  });
}

// --- switch, kept out of line so it is compiled on its own, as in a real program ---
[[gnu::noinline]] void dispatch_switch(const std::vector<Packet>& pkts, Counters& c) {
  for (const Packet& p : pkts) {
    switch (p.verdict) {
      case Verdict::redirect:
        on_redirect(c, p);
        break;
      case Verdict::drop:
        on_drop(c, p);
        break;
      case Verdict::tx:
        on_tx(c, p);
        break;
      case Verdict::pass:
        on_pass(c, p);
        break;
    }
  }
}

void BM_Switch(benchmark::State& state) { run(state, dispatch_switch); }

// --- the same switch, its common case marked [[likely]] ---
[[gnu::noinline]] void dispatch_switch_likely(const std::vector<Packet>& pkts, Counters& c) {
  for (const Packet& p : pkts) {
    // clang-format 14 takes `[[likely]] case X:` for an expression and breaks the line after it.
    // clang-format off
    switch (p.verdict) {
      [[likely]] case Verdict::redirect:
        on_redirect(c, p);
        break;
      case Verdict::drop:
        on_drop(c, p);
        break;
      case Verdict::tx:
        on_tx(c, p);
        break;
      case Verdict::pass:
        on_pass(c, p);
        break;
    }
    // clang-format on
  }
}

void BM_SwitchLikely(benchmark::State& state) { run(state, dispatch_switch_likely); }

// --- function pointers ---
using HandlerFn = void (*)(Counters&, const Packet&);

void BM_FunctionPointer(benchmark::State& state) {
  std::array<HandlerFn, verdict_count> table{on_redirect, on_drop, on_tx, on_pass};
  benchmark::DoNotOptimize(table);  // the compiler may not assume which functions these are
  run(state, [&table](const auto& pkts, Counters& c) {
    for (const Packet& p : pkts) table[static_cast<std::size_t>(p.verdict)](c, p);
  });
}

// --- virtual calls ---
struct Handler {
  virtual ~Handler() = default;
  virtual void handle(Counters& c, const Packet& p) const = 0;
};
template <void (*Fn)(Counters&, const Packet&)>
struct HandlerOf final : Handler {
  void handle(Counters& c, const Packet& p) const override { Fn(c, p); }
};

void BM_Virtual(benchmark::State& state) {
  const HandlerOf<on_redirect> redirect;
  const HandlerOf<on_drop> drop;
  const HandlerOf<on_tx> tx;
  const HandlerOf<on_pass> pass;
  std::array<const Handler*, verdict_count> table{&redirect, &drop, &tx, &pass};
  benchmark::DoNotOptimize(table);
  run(state, [&table](const auto& pkts, Counters& c) {
    for (const Packet& p : pkts) table[static_cast<std::size_t>(p.verdict)]->handle(c, p);
  });
}

// --- std::function ---
void BM_StdFunction(benchmark::State& state) {
  std::array<std::function<void(Counters&, const Packet&)>, verdict_count> table{
      on_redirect, on_drop, on_tx, on_pass};
  benchmark::DoNotOptimize(table);
  run(state, [&table](const auto& pkts, Counters& c) {
    for (const Packet& p : pkts) table[static_cast<std::size_t>(p.verdict)](c, p);
  });
}

BENCHMARK(BM_Template)->Name("Dispatch/template");
BENCHMARK(BM_IfChain)->Name("Dispatch/if_chain");
BENCHMARK(BM_Switch)->Name("Dispatch/switch");
BENCHMARK(BM_SwitchLikely)->Name("Dispatch/switch_likely");
BENCHMARK(BM_FunctionPointer)->Name("Dispatch/fn_pointer");
BENCHMARK(BM_Virtual)->Name("Dispatch/virtual");
BENCHMARK(BM_StdFunction)->Name("Dispatch/function");

}  // namespace

BENCHMARK_MAIN();
