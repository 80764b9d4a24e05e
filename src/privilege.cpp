#include <afxdp/xsk/privilege.hpp>

#include <linux/capability.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <vector>

namespace afxdp {
namespace {

bool has_capability(int capability) {
  __user_cap_header_struct header{_LINUX_CAPABILITY_VERSION_3, 0};
  __user_cap_data_struct data[2]{};
  if (::syscall(SYS_capget, &header, data) != 0) return false;
  const auto index = static_cast<unsigned>(capability) / 32;
  const auto bit = 1U << (static_cast<unsigned>(capability) % 32);
  return (data[index].effective & bit) != 0;
}

// The kernel counts whole pages against the limit.
std::uint64_t pages(std::uint64_t bytes) {
  const auto page = static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE));
  return (bytes + page - 1) / page;
}

// Empty when the UMEM's pages may be locked: CAP_IPC_LOCK, or a high enough RLIMIT_MEMLOCK.
std::string missing_memlock(std::uint64_t umem_bytes) {
  if (umem_bytes == 0 || has_capability(CAP_IPC_LOCK)) return {};
  rlimit limit{};
  if (::getrlimit(RLIMIT_MEMLOCK, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY) return {};
  if (pages(umem_bytes) <= limit.rlim_cur / static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE))) {
    return {};
  }
  return "CAP_IPC_LOCK, or RLIMIT_MEMLOCK of at least " +
         std::to_string((umem_bytes + 1023) / 1024) + " KiB (it is " +
         std::to_string(limit.rlim_cur / 1024) + " KiB; ulimit -l)";
}

// In the order missing_privilege() names them.
std::vector<std::string> missing_list(std::uint64_t umem_bytes) {
  std::vector<std::string> missing;
  if (!has_capability(CAP_NET_ADMIN)) missing.emplace_back("CAP_NET_ADMIN");
  if (!has_capability(CAP_SYS_ADMIN) && !has_capability(CAP_BPF)) {
    missing.emplace_back("CAP_BPF or CAP_SYS_ADMIN");
  }
  if (!has_capability(CAP_NET_RAW)) missing.emplace_back("CAP_NET_RAW");
  if (std::string memlock = missing_memlock(umem_bytes); !memlock.empty()) {
    missing.push_back(std::move(memlock));
  }
  return missing;
}

}  // namespace

std::string missing_privilege() { return missing_privilege(0); }

std::string missing_privilege(std::uint64_t umem_bytes) {
  const std::vector<std::string> missing = missing_list(umem_bytes);
  if (missing.empty()) return {};
  // A capability is root's to give; the limit is the administrator's to raise.
  return missing.front().rfind("CAP_IPC_LOCK,", 0) == 0 ? missing.front()
                                                        : missing.front() + " (run as root)";
}

std::string missing_privileges(std::uint64_t umem_bytes) {
  std::string all;
  for (const std::string& one : missing_list(umem_bytes)) all += (all.empty() ? "" : "; ") + one;
  return all;
}

}  // namespace afxdp
