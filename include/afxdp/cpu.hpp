// Which CPUs this process may use, and pinning a thread to one (run_per_queue pins its queue
// threads with these).
#pragma once

#include <vector>

namespace afxdp {

// The CPUs this process may run on (sched_getaffinity), ascending.
std::vector<unsigned> usable_cpus();
// Pin the calling thread to `cpu`; false when it is not usable.
bool pin_to_cpu(unsigned cpu) noexcept;

}  // namespace afxdp
