#include "common/sibling.hpp"

#include <climits>
#include <unistd.h>

namespace afxdp::tool {

std::string own_path() {
  char self[PATH_MAX];
  const ssize_t length = ::readlink("/proc/self/exe", self, sizeof self);
  if (length <= 0 || length == sizeof self) return {};
  return std::string(self, static_cast<std::size_t>(length));
}

std::optional<std::string> find_sibling(const std::string& name, const std::string& installed_dir) {
  std::string own_dir = own_path();
  if (const auto slash = own_dir.rfind('/'); slash != std::string::npos) own_dir.erase(slash + 1);
  for (const std::string& dir : {own_dir, installed_dir.empty() ? "" : installed_dir + "/"}) {
    if (dir.empty()) continue;
    const std::string path = dir + name;
    if (::access(path.c_str(), X_OK) == 0) return path;
  }
  return std::nullopt;
}

}  // namespace afxdp::tool
