// What this process may do with AF_XDP and XDP, asked before anything is set up so that a
// program can say what is missing in one line instead of failing halfway.
//
// What the kernel asks for (Linux 6.x): an AF_XDP socket needs CAP_NET_RAW (xsk_create); the
// XSKMAP and loading an XDP program need CAP_NET_ADMIN, loading also CAP_BPF (or CAP_SYS_ADMIN
// before 5.8); attaching it needs CAP_NET_ADMIN; busy polling (SO_PREFER_BUSY_POLL) needs
// CAP_NET_ADMIN. A UMEM's pages are charged to the user's RLIMIT_MEMLOCK unless the process has
// CAP_IPC_LOCK (xdp_umem_account_pages: XDP_UMEM_REG says ENOBUFS above it).
#pragma once

#include <cstdint>
#include <string>

namespace afxdp {

// The first privilege this process lacks for AF_XDP sockets and XDP programs, in words
// ("CAP_NET_ADMIN (run as root)"); empty when it has all of them. Reads the effective
// capabilities of the calling thread.
std::string missing_privilege();

// As missing_privilege(), and the locked memory for UMEMs of `umem_bytes` in all: without
// CAP_IPC_LOCK, "CAP_IPC_LOCK, or RLIMIT_MEMLOCK of at least 1024 KiB (it is 64 KiB; ulimit -l)"
// when the limit is lower (pages the same user has locked already count too).
std::string missing_privilege(std::uint64_t umem_bytes);

// Everything missing_privilege(umem_bytes) would name, one after the other ("CAP_NET_ADMIN;
// CAP_BPF or CAP_SYS_ADMIN; CAP_NET_RAW"), for a message after a call has failed; empty when
// nothing is.
std::string missing_privileges(std::uint64_t umem_bytes);

}  // namespace afxdp
