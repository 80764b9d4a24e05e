// Two threads over one ring: our ProducerRing on one thread, our ConsumerRing on the other, both
// built over the same fake-kernel memory, so every ordering point (A)-(D) is exercised against a
// real concurrent peer. Descriptors carry sequence numbers and are checked in order; batch sizes,
// partial submits (producer cancel) and un-peeks (consumer cancel) are random. Run under
// ThreadSanitizer too (preset tsan), where it passes fewer descriptors to stay quick.
#include <afxdp/testing/fake_ring.hpp>

#include <afxdp/rings/ring.hpp>
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <random>
#include <thread>

#if defined(__SANITIZE_THREAD__)
#define AFXDP_UNDER_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define AFXDP_UNDER_TSAN 1
#endif
#endif

namespace {

#ifdef AFXDP_UNDER_TSAN
constexpr std::uint64_t descriptors = 3'000'000;
#else
constexpr std::uint64_t descriptors = 10'000'000;
#endif

// A length derived from the sequence number, so a torn or stale descriptor shows in two fields.
std::uint32_t len_of(std::uint64_t seq) { return static_cast<std::uint32_t>(seq * 2654435761U); }

void produce(afxdp::TxRing& ring, std::uint64_t total, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<std::uint32_t> batch(1, ring.size());
  std::uint64_t seq = 0;
  while (seq < total) {
    std::uint32_t want = batch(rng);
    if (want > total - seq) want = static_cast<std::uint32_t>(total - seq);
    if (ring.reserve(want) == 0) {
      // Full: let the consumer run (on one core it must, or this would spin out its slice).
      std::this_thread::yield();
      continue;
    }
    // Submit a random prefix and cancel the rest: the cancelled slots are reserved again later.
    const std::uint32_t keep = std::uniform_int_distribution<std::uint32_t>(1, want)(rng);
    for (std::uint32_t i = 0; i < keep; ++i) {
      ring.at(i) = xdp_desc{.addr = seq + i, .len = len_of(seq + i), .options = 0};
    }
    ring.submit(keep);
    ring.cancel(want - keep);
    seq += keep;
  }
}

struct ConsumerResult {
  std::uint64_t received = 0;
  std::uint64_t mismatches = 0;
  std::uint64_t first_bad = 0;
};

ConsumerResult consume(afxdp::RxRing& ring, std::uint64_t total, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<std::uint32_t> batch(1, ring.size());
  ConsumerResult r;
  while (r.received < total) {
    const std::uint32_t n = ring.peek(batch(rng));
    if (n == 0) {
      std::this_thread::yield();
      continue;
    }
    // Release a random prefix, un-peek the rest: the next peek must return those again.
    const std::uint32_t keep = std::uniform_int_distribution<std::uint32_t>(1, n)(rng);
    for (std::uint32_t i = 0; i < keep; ++i) {
      const xdp_desc& d = ring.at(i);
      const std::uint64_t expected = r.received + i;
      if (d.addr != expected || d.len != len_of(expected)) {
        if (r.mismatches++ == 0) r.first_bad = expected;
      }
    }
    ring.release(keep);
    ring.cancel(n - keep);
    r.received += keep;
  }
  return r;
}

void run_stress(std::uint32_t ring_size, std::uint32_t start, std::uint32_t seed) {
  afxdp::testing::FakeRing<xdp_desc> memory(ring_size, start);
  afxdp::TxRing producer(memory.layout());
  afxdp::RxRing consumer(memory.layout());

  ConsumerResult result;
  std::thread consumer_thread([&] { result = consume(consumer, descriptors, seed + 1); });
  produce(producer, descriptors, seed);
  consumer_thread.join();

  EXPECT_EQ(result.received, descriptors);
  EXPECT_EQ(result.mismatches, 0U) << "first out-of-order descriptor: seq " << result.first_bad;
  EXPECT_EQ(consumer.refused_refreshes(), 0U) << "an honest producer was refused";
  EXPECT_EQ(producer.refused_refreshes(), 0U) << "an honest consumer was refused";
  EXPECT_EQ(memory.producer(), memory.consumer()) << "everything produced was consumed";
  EXPECT_EQ(memory.producer(), static_cast<std::uint32_t>(start + descriptors));
}

// A small ring is often full and often empty: the most index traffic per descriptor. Starting
// just below UINT32_MAX makes the indices wrap early in the run.
TEST(RingStress, SmallRingInOrderAcrossTheWrap) {
  run_stress(64, std::numeric_limits<std::uint32_t>::max() - 1000, 1);
}

TEST(RingStress, DefaultSizedRing) { run_stress(2048, 0, 7); }

}  // namespace
