// `afxdp demo` in the installed binary. The demo builds a private test network (namespaces, veth
// pairs), which `afxdp` does not link: it is an executable of its own, afxdp-demo, and
// `afxdp demo ARGS...` becomes `afxdp-demo ARGS...` (exec, so signals and the exit code are the
// demo's), found next to `afxdp` or in the install's libexec/afxdp.
#pragma once

#include "subcommands.hpp"

#include <string>
#include <vector>

namespace afxdp::tool {

// What --help says of `demo`, in `afxdp` and in afxdp-demo alike.
inline constexpr const char* demo_description =
    "Run XDP_DROP (the kernel alone), rxdrop, txpush and l2fwd on a private veth pair: a table in "
    "Mpps";

// `demo` in --help; everything after it goes to afxdp-demo unparsed.
Subcommand add_demo_launcher(CLI::App& app);

// Replaces this process by afxdp-demo with `args`. Returns 2 after one line on stderr when there
// is no afxdp-demo; throws std::system_error when it is there but cannot be run.
int exec_demo(const std::vector<std::string>& args);

}  // namespace afxdp::tool
