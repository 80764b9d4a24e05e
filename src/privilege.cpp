#include <afxdp/privilege.hpp>

#include <linux/capability.h>
#include <sys/syscall.h>
#include <unistd.h>

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

}  // namespace

// Attaching XDP needs CAP_NET_ADMIN; loading BPF needs CAP_BPF (or CAP_SYS_ADMIN before 5.8);
// an AF_XDP socket needs CAP_NET_RAW.
std::string missing_privilege() {
  if (!has_capability(CAP_NET_ADMIN)) return "CAP_NET_ADMIN (run as root)";
  if (!has_capability(CAP_SYS_ADMIN) && !has_capability(CAP_BPF)) {
    return "CAP_BPF or CAP_SYS_ADMIN (run as root)";
  }
  if (!has_capability(CAP_NET_RAW)) return "CAP_NET_RAW (run as root)";
  return {};
}

}  // namespace afxdp
