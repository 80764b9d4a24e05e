// How the tool's two executables find each other: `afxdp demo` runs afxdp-demo, and the demo
// runs `afxdp` for its measurements. First next to the running executable (a build tree keeps
// both in one directory), then where `cmake --install` put it.
#pragma once

#include <optional>
#include <string>

namespace afxdp::tool {

// `name` in the directory of /proc/self/exe, else in `installed_dir`: the first that is
// executable, or nothing.
std::optional<std::string> find_sibling(const std::string& name, const std::string& installed_dir);

// The running executable's path ("" when /proc/self/exe cannot be read).
std::string own_path();

// `afxdp demo` names itself here for afxdp-demo, which then measures that `afxdp`: the one the
// user ran, wherever it is (scripts/ab compares two).
inline constexpr const char* tool_variable = "AFXDP_BINARY";

}  // namespace afxdp::tool
