// pin_napi_threads pins the NAPI kthreads of our interface only: a same-named interface in
// another namespace has kthreads with the same (15-character) names, and they keep their CPU.
#include "forked_child.hpp"
#include "system_test.hpp"

#include <lab.hpp>

#include <dirent.h>
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

namespace {

// Pids whose command name starts with `prefix`.
std::vector<int> threads_named(const std::string& prefix) {
  std::vector<int> pids;
  DIR* proc = ::opendir("/proc");
  if (proc == nullptr) return pids;
  while (const dirent* entry = ::readdir(proc)) {
    const int pid = std::atoi(entry->d_name);
    if (pid <= 0) continue;
    std::ifstream comm("/proc/" + std::string(entry->d_name) + "/comm");
    std::string name;
    if (std::getline(comm, name) && name.rfind(prefix, 0) == 0) pids.push_back(pid);
  }
  ::closedir(proc);
  return pids;
}

bool only_on(int pid, unsigned cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (::sched_getaffinity(pid, sizeof set, &set) != 0) return false;
  return CPU_COUNT(&set) == 1 && CPU_ISSET(cpu, &set);
}

// Veth NAPI exists with GRO on; threaded, it runs in kthreads "napi/<b>-<id>".
void threaded_napi_on(const afxdp::lab::VethPair& veth) {
  afxdp::lab::set_gro(veth.b(), true);
  afxdp::lab::set_threaded_napi(veth.b(), true);
}

TEST(NapiPin, LeavesSameNamedThreadsOfOtherNamespaces) {
  AFXDP_REQUIRE_SYSTEM();
  if (std::thread::hardware_concurrency() < 2) GTEST_SKIP() << "needs two CPUs";
  const std::string prefix = afxdp::lab::unique_prefix();
  afxdp::lab::VethPair veth(prefix);
  threaded_napi_on(veth);
  std::vector<int> ours;
  try {
    ours = afxdp::lab::napi_thread_pids(veth.b());
  } catch (const std::system_error& e) {
    GTEST_SKIP() << "the kernel cannot list NAPI threads: " << e.what();
  }
  ASSERT_FALSE(ours.empty());

  // The same names in a namespace of a child's own.
  afxdp::test::ForkedChild child([&prefix](const afxdp::test::ForkedChild::Pipe& pipe) {
    afxdp::lab::enter_private_network();
    afxdp::lab::VethPair twin(prefix);
    threaded_napi_on(twin);
    if (!pipe.say("R")) return 2;
    for (;;) ::pause();  // killed by the parent; the namespace and its pair go with it
  });
  const std::string ready = child.read(256);

  std::vector<int> theirs;
  for (const int pid : threads_named(("napi/" + veth.b() + "-").substr(0, 15))) {
    if (std::find(ours.begin(), ours.end(), pid) == ours.end()) theirs.push_back(pid);
  }
  cpu_set_t cpu0;
  CPU_ZERO(&cpu0);
  CPU_SET(0, &cpu0);
  for (const int pid : theirs) ::sched_setaffinity(pid, sizeof cpu0, &cpu0);
  const int pinned = afxdp::lab::pin_napi_threads(veth.b(), 1);
  std::vector<bool> theirs_kept;
  theirs_kept.reserve(theirs.size());
  for (const int pid : theirs) theirs_kept.push_back(only_on(pid, 0));
  std::vector<bool> ours_moved;
  ours_moved.reserve(ours.size());
  for (const int pid : ours) ours_moved.push_back(only_on(pid, 1));
  child.kill();

  ASSERT_EQ(ready, "R") << "the child could not make its pair: " << ready;
  ASSERT_FALSE(theirs.empty()) << "the child's pair has no NAPI threads: the test is void";
  EXPECT_EQ(pinned, static_cast<int>(ours.size()));
  for (const bool kept : theirs_kept) EXPECT_TRUE(kept) << "another namespace's thread was pinned";
  for (const bool moved : ours_moved) EXPECT_TRUE(moved) << "one of ours was not pinned";
}

}  // namespace
