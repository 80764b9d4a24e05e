// ValidatedPortConfig and ValidatedRunConfig: made only by validated(), which says what validate()
// says, and taken by Port::open, open_pair and run_per_queue without checking again. The count of
// validate(PortConfig) runs comes from the linker (validate_calls.hpp); no kernel, no root: the
// interfaces opened do not exist, which Port::open finds after its config check.
#include <afxdp/run.hpp>
#include <afxdp/testing/loopback.hpp>

#include "expect_throw.hpp"
#include "validate_calls.hpp"
#include <gtest/gtest.h>

#include <atomic>
#include <pthread.h>
#include <sched.h>
#include <string>
#include <system_error>
#include <type_traits>
#include <vector>

namespace {

using afxdp::PortConfig;
using afxdp::RunConfig;
using afxdp::ValidatedPortConfig;
using afxdp::ValidatedRunConfig;

// Only validated() makes one: no default, no conversion, no construction from the plain config.
template <class Validated, class Config>
constexpr bool made_only_by_validated =
    !std::is_default_constructible_v<Validated> && !std::is_constructible_v<Validated, Config> &&
    !std::is_constructible_v<Validated, const Config&> &&
    !std::is_convertible_v<Config, Validated> && !std::is_aggregate_v<Validated> &&
    std::is_copy_constructible_v<Validated>;
static_assert(made_only_by_validated<ValidatedPortConfig, PortConfig>);
static_assert(made_only_by_validated<ValidatedRunConfig, RunConfig>);
// Read-only: what it holds is reached as const, never as a config to change.
static_assert(std::is_same_v<decltype(*std::declval<ValidatedPortConfig&>()), const PortConfig&>);
static_assert(std::is_same_v<decltype((std::declval<ValidatedPortConfig&>()->frame_size)),
                             const std::uint32_t&>);
static_assert(std::is_same_v<decltype(*std::declval<ValidatedRunConfig&>()), const RunConfig&>);

constexpr const char* absent = "afxdp-none0";  // no such interface
constexpr const char* absent_too = "afxdp-none1";

// The message of what `open` throws, with the validate(PortConfig) runs it took.
template <class Open>
std::pair<std::string, int> opened(Open open) {
  const int before = afxdp::test::port_validations();
  try {
    open();
  } catch (const std::exception& e) {
    return {e.what(), afxdp::test::port_validations() - before};
  }
  return {"opened", afxdp::test::port_validations() - before};
}

// What validate(config) throws.
std::string validate_says(const PortConfig& config) {
  try {
    afxdp::validate(config);
  } catch (const afxdp::ConfigError& e) {
    return e.what();
  }
  return "accepted";
}

TEST(ValidatedPortConfig, SaysWhatValidateSaysAndHoldsTheConfigAsGiven) {
  const PortConfig bad{.frame_size = 3000};
  EXPECT_THROW_WITH(afxdp::validate(bad), afxdp::ConfigError, "frame_size: 3000 must be");
  EXPECT_THROW_WITH((void)afxdp::validated(bad), afxdp::ConfigError, "frame_size: 3000 must be");
  const ValidatedPortConfig accepted = afxdp::validated({.queues = {2, 0}, .frame_size = 2048});
  EXPECT_EQ(accepted->queues, (std::vector<std::uint32_t>{2, 0}));
  EXPECT_EQ((*accepted).frame_size, 2048U);
}

TEST(ValidatedPortConfig, OpenTakesItWithoutCheckingAgain) {
  const ValidatedPortConfig accepted = afxdp::validated({.frame_size = 2048});
  const auto [what, runs] = opened([&] { (void)afxdp::Port::open(absent, accepted); });
  EXPECT_NE(what.find("does not exist"), std::string::npos) << what;
  EXPECT_EQ(runs, 0);
  const auto [pair_what, pair_runs] =
      opened([&] { (void)afxdp::Port::open_pair(absent, absent_too, accepted); });
  EXPECT_NE(pair_what.find(absent), std::string::npos) << pair_what;
  EXPECT_EQ(pair_runs, 0);
}

// A plain PortConfig: one check, its refusal naming the interface as before; open_pair too
// (it once checked the config again for each interface).
TEST(ValidatedPortConfig, APlainConfigIsCheckedOnce) {
  EXPECT_EQ(opened([] { (void)afxdp::Port::open(absent, {.frame_size = 2048}); }).second, 1);
  EXPECT_EQ(opened([] { (void)afxdp::Port::open_pair(absent, absent_too, {}); }).second, 1);
  EXPECT_EQ(opened([] { (void)afxdp::Port::open(absent, {.frame_size = 3000}); }),
            std::pair(std::string(absent) + ": " + validate_says({.frame_size = 3000}), 1));
  EXPECT_EQ(opened([] { (void)afxdp::Port::open_pair(absent, absent_too, {.ring_size = 1000}); }),
            std::pair(std::string(absent) + ": " + validate_says({.ring_size = 1000}), 1));
}

// The Loopback's sizes are Port::open's rules, checked once (it once checked them twice).
TEST(ValidatedPortConfig, TheLoopbackChecksItsConfigOnce) {
  const auto [what, runs] = opened([] { afxdp::testing::Loopback lb({.frames_per_queue = 64}); });
  EXPECT_EQ(what, "opened");
  EXPECT_EQ(runs, 1);
  EXPECT_THROW_WITH(afxdp::testing::Loopback({.ring_size = 1000}), afxdp::ConfigError,
                    "ring_size: 1000");
}

// This thread's CPUs narrowed to one for a while (run_per_queue's threads inherit them).
class OnlyCpu {
 public:
  explicit OnlyCpu(unsigned cpu) {
    pthread_getaffinity_np(pthread_self(), sizeof previous_, &previous_);
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(cpu, &one);
    ok_ = pthread_setaffinity_np(pthread_self(), sizeof one, &one) == 0;
  }
  OnlyCpu(const OnlyCpu&) = delete;
  OnlyCpu& operator=(const OnlyCpu&) = delete;
  ~OnlyCpu() { pthread_setaffinity_np(pthread_self(), sizeof previous_, &previous_); }
  [[nodiscard]] bool ok() const noexcept { return ok_; }

 private:
  cpu_set_t previous_{};
  bool ok_ = false;
};

// validate(RunConfig) asks the affinity mask, so a second check would see it change: a
// ValidatedRunConfig runs on the verdict it was made with, a plain RunConfig is checked now.
TEST(ValidatedRunConfig, RunPerQueueTakesItWithoutCheckingAgain) {
  const std::vector<unsigned> usable = afxdp::usable_cpus();
  if (usable.size() < 2) GTEST_SKIP() << "needs two usable CPUs, has " << usable.size();
  const ValidatedRunConfig accepted =
      afxdp::validated(RunConfig{.cpus = {usable.back()}, .pin = false, .stop_on_signals = false});
  const OnlyCpu only(usable.front());
  ASSERT_TRUE(only.ok());
  EXPECT_THROW_WITH(afxdp::validate(*accepted), afxdp::ConfigError, "cpus: CPU");  // now refused
  afxdp::testing::Loopback lb({.frames_per_queue = 16, .ring_size = 16});
  std::atomic<int> ran{0};
  const auto body = [&ran](afxdp::Queue&, const std::stop_token&) { ++ran; };
  EXPECT_NO_THROW(afxdp::run_per_queue(lb.port(), body, accepted));
  EXPECT_EQ(ran.load(), 1);
  EXPECT_THROW_WITH(afxdp::run_per_queue(lb.port(), body, *accepted), afxdp::ConfigError,
                    "cpus: CPU " + std::to_string(usable.back()));
  EXPECT_EQ(ran.load(), 1);
}

TEST(ValidatedRunConfig, SaysWhatValidateSays) {
  const std::vector<unsigned> usable = afxdp::usable_cpus();
  ASSERT_FALSE(usable.empty());
  const RunConfig outside{.cpus = {usable.back() + 1}};
  EXPECT_THROW_WITH((void)afxdp::validated(outside), afxdp::ConfigError,
                    "cpus: CPU " + std::to_string(usable.back() + 1) + " is not usable");
  EXPECT_EQ(afxdp::validated(RunConfig{.cpus = usable})->cpus, usable);
}

}  // namespace
