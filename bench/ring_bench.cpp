// Ring throughput between two threads: our rings (cached peer indices) against libxdp's inline
// helpers (bench/libxdp_ring.hpp, the reference), a naive ring that loads the peer's index on
// every call (bench/naive_ring.hpp), and, when Debian's libdpdk-dev is installed, DPDK's rte_ring
// (bench/rte_ring_adapter.hpp), all in the same harness. 16-byte descriptors (xdp_desc), 2048
// entries, batches of 1, 16, 64 and 256; figures are descriptors per second (items_per_second). The
// producer runs on CPU 0 and the consumer on CPU 1, both spinning when the ring is full or empty,
// with 1 or 64 `pause`s per failed attempt (the second argument): a side that re-polls at full rate
// keeps pulling the other side's index line away from it. The OneCore variants put both on CPU 0
// and yield instead, so the figure there is dominated by context switches, not by cache-line
// traffic.
//
// Results and the command that produced them: docs/benchmarks-log/2026-12-03.md, "2026-12-03,
// the rings table moved" (docs/benchmarks.md's rings target sums them up).
#include "libxdp_ring.hpp"
#include "naive_ring.hpp"
#ifdef AFXDP_BENCH_RTE_RING
#include "rte_ring_adapter.hpp"
#endif

#include <afxdp/rings/cache_line.hpp>
#include <afxdp/rings/ring.hpp>
#include <benchmark/benchmark.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <pthread.h>
#include <sched.h>
#include <thread>
#include <vector>

namespace {

constexpr std::uint32_t ring_entries = 2048;

// Memory laid out like one mapped ring: producer, consumer and flags words on lines of their own.
struct RingMemory {
  struct alignas(afxdp::cache_line) Word {
    std::uint32_t value = 0;
  };
  Word producer, consumer, flags;
  std::vector<xdp_desc> entries = std::vector<xdp_desc>(ring_entries);

  afxdp::RingLayout layout() {
    return {.producer = &producer.value,
            .consumer = &consumer.value,
            .flags = &flags.value,
            .entries = entries.data(),
            .size = ring_entries};
  }
};

bool pin_to_cpu(unsigned cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  return pthread_setaffinity_np(pthread_self(), sizeof set, &set) == 0;
}

// One polite spin: tells the core this is a wait loop.
void cpu_pause() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

// Waiting for the peer: spin (politely) when it has a core of its own, yield when it shares ours.
template <bool OneCore>
void wait_for_peer(std::int64_t pauses) {
  if constexpr (OneCore) {
    std::this_thread::yield();
  } else {
    for (std::int64_t i = 0; i < pauses; ++i) cpu_pause();
  }
}

// What one cache line costs to move between the two CPUs right now, in ns (half a round trip).
// A VM's host may run its two vCPUs where a line moves in ~30 ns or where it takes ~150 ns, and
// switch within a run; at batch 1 that alone changes every ring's figure ten-fold. Each repetition
// reports it (counter `line_ns`) so that figures are compared within one placement.
class LineProbe {
 public:
  static constexpr std::uint32_t round_trips = 20000;

  // The consumer's thread, before it starts consuming: echo every odd value as the next even one.
  void answer() {
    for (std::uint32_t i = 1; i < 2 * round_trips; i += 2) {
      while (word_.value.load(std::memory_order_acquire) != i) cpu_pause();
      word_.value.store(i + 1, std::memory_order_release);
    }
  }
  // The producer's thread: returns the mean one-way time.
  double ask() {
    const auto start = std::chrono::steady_clock::now();
    for (std::uint32_t i = 1; i < 2 * round_trips; i += 2) {
      word_.value.store(i, std::memory_order_release);
      while (word_.value.load(std::memory_order_acquire) != i + 1) cpu_pause();
    }
    const std::chrono::duration<double, std::nano> took = std::chrono::steady_clock::now() - start;
    return took.count() / (2.0 * round_trips);
  }

 private:
  struct alignas(afxdp::cache_line) Word {
    std::atomic<std::uint32_t> value{0};
  };
  Word word_;
};

// Each kind of ring: its two sides, and what they share (built over the harness's memory).
struct OnHarnessMemory {
  static afxdp::RingLayout shared(RingMemory& memory) { return memory.layout(); }
};
struct Ours : OnHarnessMemory {
  using Producer = afxdp::TxRing;
  using Consumer = afxdp::RxRing;
};
struct Naive : OnHarnessMemory {
  using Producer = afxdp::bench::NaiveProducer<xdp_desc>;
  using Consumer = afxdp::bench::NaiveConsumer<xdp_desc>;
};
struct Libxdp : OnHarnessMemory {
  using Producer = afxdp::bench::LibxdpProducer;
  using Consumer = afxdp::bench::LibxdpConsumer;
};
#ifdef AFXDP_BENCH_RTE_RING
struct Rte {
  using Producer = afxdp::bench::RteProducer;
  using Consumer = afxdp::bench::RteConsumer;
  // rte_ring keeps its indices in a header of its own: same size, its own memory.
  static afxdp::bench::RteRingMemory shared(RingMemory&) {
    return afxdp::bench::RteRingMemory(ring_entries);
  }
};
#endif

// The consumer's side: take what is there, read each descriptor, give the slots back.
template <bool OneCore, class Consumer>
void consume_until_stopped(Consumer& consumer, std::uint32_t batch, std::int64_t pauses,
                           const std::atomic<bool>& stop) {
  std::uint64_t sum = 0;
  while (!stop.load(std::memory_order_relaxed)) {
    const std::uint32_t n = consumer.peek(batch);
    if (n == 0) {
      wait_for_peer<OneCore>(pauses);
      continue;
    }
    for (std::uint32_t i = 0; i < n; ++i) sum += consumer.at(i).addr;
    consumer.release(n);
  }
  benchmark::DoNotOptimize(sum);
}

// The producer's side, the measured loop: a batch per iteration. Returns the entries produced.
template <bool OneCore, class Producer>
std::uint64_t produce(benchmark::State& state, Producer& producer, std::uint32_t batch,
                      std::int64_t pauses) {
  std::uint64_t seq = 0;
  for (auto _ : state) {
    while (producer.reserve(batch) == 0) wait_for_peer<OneCore>(pauses);
    for (std::uint32_t i = 0; i < batch; ++i) {
      producer.at(i) = xdp_desc{.addr = seq + i, .len = 64, .options = 0};
    }
    producer.submit(batch);
    seq += batch;
  }
  return seq;
}

template <class Rings, bool OneCore>
void BM_Ring(benchmark::State& state) {
  const auto batch = static_cast<std::uint32_t>(state.range(0));
  const std::int64_t pauses = OneCore ? 0 : state.range(1);
  const unsigned producer_cpu = 0;
  const unsigned consumer_cpu = OneCore ? 0 : 1;
  if (!pin_to_cpu(producer_cpu)) {
    state.SkipWithError("cannot pin the producer to CPU 0");
    return;
  }

  RingMemory memory;
  // Each side's object (its cached indices) on cache lines of its own, as in a program where
  // one side is the kernel: adjacent on this stack, the two threads would share a line.
  struct alignas(afxdp::cache_line) ProducerSide {
    typename Rings::Producer ring;
  };
  struct alignas(afxdp::cache_line) ConsumerSide {
    typename Rings::Consumer ring;
  };
  const auto shared = Rings::shared(memory);
  ProducerSide producer_side{typename Rings::Producer(shared)};
  ConsumerSide consumer_side{typename Rings::Consumer(shared)};
  auto& producer = producer_side.ring;
  auto& consumer = consumer_side.ring;
  std::atomic<bool> stop{false};
  std::atomic<int> consumer_state{0};  // 1: running, -1: could not pin

  LineProbe probe;
  std::thread consumer_thread([&] {
    if (!pin_to_cpu(consumer_cpu)) {
      consumer_state.store(-1);
      return;
    }
    consumer_state.store(1);
    if (!OneCore) probe.answer();
    consume_until_stopped<OneCore>(consumer, batch, pauses, stop);
  });
  while (consumer_state.load() == 0) std::this_thread::yield();
  if (consumer_state.load() < 0) {
    consumer_thread.join();
    state.SkipWithError("cannot pin the consumer to CPU 1");
    return;
  }

  if (!OneCore) state.counters["line_ns"] = probe.ask();

  const std::uint64_t seq = produce<OneCore>(state, producer, batch, pauses);
  stop.store(true, std::memory_order_relaxed);
  consumer_thread.join();
  state.SetItemsProcessed(static_cast<std::int64_t>(seq));
}

void batches(benchmark::internal::Benchmark* b) {
  for (const int n : {1, 16, 64, 256}) b->Arg(n);
  b->ArgName("batch")->UseRealTime();
}
void batches_and_pauses(benchmark::internal::Benchmark* b) {
  for (const int pauses : {1, 64}) {
    for (const int n : {1, 16, 64, 256}) b->Args({n, pauses});
  }
  b->ArgNames({"batch", "pauses"})->UseRealTime();
}

BENCHMARK_TEMPLATE(BM_Ring, Ours, false)->Name("Ring/ours/two_cores")->Apply(batches_and_pauses);
BENCHMARK_TEMPLATE(BM_Ring, Naive, false)->Name("Ring/naive/two_cores")->Apply(batches_and_pauses);
BENCHMARK_TEMPLATE(BM_Ring, Libxdp, false)
    ->Name("Ring/libxdp/two_cores")
    ->Apply(batches_and_pauses);
#ifdef AFXDP_BENCH_RTE_RING
BENCHMARK_TEMPLATE(BM_Ring, Rte, false)->Name("Ring/rte_ring/two_cores")->Apply(batches_and_pauses);
#endif
BENCHMARK_TEMPLATE(BM_Ring, Ours, true)->Name("Ring/ours/one_core")->Apply(batches);
BENCHMARK_TEMPLATE(BM_Ring, Naive, true)->Name("Ring/naive/one_core")->Apply(batches);
BENCHMARK_TEMPLATE(BM_Ring, Libxdp, true)->Name("Ring/libxdp/one_core")->Apply(batches);
#ifdef AFXDP_BENCH_RTE_RING
BENCHMARK_TEMPLATE(BM_Ring, Rte, true)->Name("Ring/rte_ring/one_core")->Apply(batches);
#endif

}  // namespace

BENCHMARK_MAIN();
