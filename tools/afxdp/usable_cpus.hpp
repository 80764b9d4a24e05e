// The CPUs this process may run on, from its affinity mask (taskset, cpusets), for the
// subcommands that place threads on CPUs of their own choosing.
#pragma once

#include <sched.h>

#include <cerrno>
#include <cstddef>
#include <memory>
#include <vector>

namespace afxdp::tool {

// Ascending; empty when the mask cannot be read. The mask is sized by doubling from 1024 CPUs
// (glibc's cpu_set_t) while the kernel answers EINVAL, so machines with more CPUs are read whole.
inline std::vector<unsigned> usable_cpus() {
  struct Free {
    void operator()(cpu_set_t* set) const noexcept { CPU_FREE(set); }
  };
  for (std::size_t count = 1024; count <= (std::size_t{1} << 20); count *= 2) {
    const std::unique_ptr<cpu_set_t, Free> set(CPU_ALLOC(count));
    if (!set) return {};
    const std::size_t size = CPU_ALLOC_SIZE(count);
    CPU_ZERO_S(size, set.get());
    if (::sched_getaffinity(0, size, set.get()) == 0) {
      std::vector<unsigned> cpus;
      for (std::size_t cpu = 0; cpu < count; ++cpu) {
        if (CPU_ISSET_S(cpu, size, set.get())) cpus.push_back(static_cast<unsigned>(cpu));
      }
      return cpus;
    }
    if (errno != EINVAL) return {};
  }
  return {};
}

}  // namespace afxdp::tool
