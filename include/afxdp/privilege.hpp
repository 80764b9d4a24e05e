// What this process may do with AF_XDP and XDP, asked before anything is set up so that a
// program can say what is missing in one line instead of failing halfway.
#pragma once

#include <string>

namespace afxdp {

// The first privilege this process lacks for AF_XDP sockets and XDP programs, in words
// ("CAP_NET_ADMIN (run as root)"); empty when it has all of them. Reads the effective
// capabilities of the calling thread.
std::string missing_privilege();

}  // namespace afxdp
