// Port::open without a privilege it needs: one message naming the interface and what is missing
// (the capability, or the locked-memory limit), in a forked child that gives the privilege up.
// Root only: a test that is not root has nothing to give up.
#include "forked_child.hpp"
#include "system_test.hpp"

#include <afxdp/port.hpp>
#include <afxdp/xsk/privilege.hpp>
#include <lab.hpp>

#include <grp.h>
#include <linux/capability.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <functional>
#include <string>

namespace {

using afxdp::Port;
using afxdp::PortConfig;

// Runs `give_up` then `open` in a child; what the child reports: the exception's message,
// "opened", or why the child could not get that far.
std::string in_child(const std::function<bool()>& give_up,
                     const std::function<std::string()>& open) {
  return afxdp::test::run_in_child([&](const afxdp::test::ForkedChild::Pipe& pipe) {
           std::string said = "could not give the privilege up";
           if (give_up()) {
             try {
               said = open();
             } catch (const std::exception& e) {
               said = e.what();
             }
           }
           return pipe.say(said) ? 0 : 1;
         })
      .said;
}

bool become_nobody() {
  return ::setgroups(0, nullptr) == 0 && ::setresgid(65534, 65534, 65534) == 0 &&
         ::setresuid(65534, 65534, 65534) == 0;
}

// Root without CAP_IPC_LOCK in its effective set, and a 64 KiB locked-memory limit.
bool lose_ipc_lock() {
  __user_cap_header_struct header{_LINUX_CAPABILITY_VERSION_3, 0};
  std::array<__user_cap_data_struct, 2> data{};
  if (::syscall(SYS_capget, &header, data.data()) != 0) return false;
  data[CAP_IPC_LOCK / 32].effective &= ~(1U << (CAP_IPC_LOCK % 32));
  if (::syscall(SYS_capset, &header, data.data()) != 0) return false;
  const rlimit limit{rlim_t{64} * 1024, rlim_t{64} * 1024};
  return ::setrlimit(RLIMIT_MEMLOCK, &limit) == 0;
}

bool root() { return ::geteuid() == 0; }

TEST(PortPrivilege, WithoutRootTheMessageNamesTheInterfaceAndTheCapability) {
  AFXDP_REQUIRE_SYSTEM();
  if (!root()) GTEST_SKIP() << "needs root, to give it up in a child";
  afxdp::lab::VethPair veth(afxdp::lab::unique_prefix());
  const std::string said = in_child(become_nobody, [&] {
    Port port = Port::open(veth.b(), {.frames_per_queue = 256, .ring_size = 128});
    return std::string("opened");
  });
  EXPECT_NE(said.find(veth.b()), std::string::npos) << said;
  EXPECT_NE(said.find("CAP_NET_RAW"), std::string::npos) << said;
  std::printf("%s\n", said.c_str());
}

TEST(PortPrivilege, WithoutIpcLockTheMessageNamesTheLockedMemoryLimit) {
  AFXDP_REQUIRE_SYSTEM();
  if (!root()) GTEST_SKIP() << "needs root, to give it up in a child";
  afxdp::lab::VethPair veth(afxdp::lab::unique_prefix());
  const PortConfig config{.frames_per_queue = 256, .ring_size = 128};  // a 1 MiB UMEM
  const std::string said = in_child(lose_ipc_lock, [&] {
    Port port = Port::open(veth.b(), config);
    return std::string("opened");
  });
  EXPECT_NE(said.find(veth.b()), std::string::npos) << said;
  EXPECT_NE(said.find("CAP_IPC_LOCK"), std::string::npos) << said;
  EXPECT_NE(said.find("RLIMIT_MEMLOCK"), std::string::npos) << said;
  std::printf("%s\n", said.c_str());
  // Asked before opening anything, the library says the same.
  const std::string asked =
      in_child(lose_ipc_lock, [] { return afxdp::missing_privilege(std::uint64_t{1} << 20); });
  EXPECT_NE(asked.find("CAP_IPC_LOCK"), std::string::npos) << asked;
  EXPECT_NE(asked.find("RLIMIT_MEMLOCK"), std::string::npos) << asked;
  const std::string small =
      in_child(lose_ipc_lock, [] { return afxdp::missing_privilege(std::uint64_t{4096}); });
  EXPECT_EQ(small, "") << small;
}

}  // namespace
