// Whether this kernel lets a socket busy-poll as the library asks it to (SocketConfig::busy_poll:
// SO_PREFER_BUSY_POLL, SO_BUSY_POLL, SO_BUSY_POLL_BUDGET on an AF_XDP socket). A kernel built
// without CONFIG_NET_RX_BUSY_POLL or older than 5.11 does not know the options (ENOPROTOOPT);
// without CAP_NET_ADMIN raising them is not permitted (EPERM). The demo skips its busy-poll row on
// a refusal, and the tests' probe (tests/support/probes.cpp) skips on the same errors.
#pragma once

#include <afxdp/detail/uapi.hpp>

#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

namespace afxdp::tool {

constexpr bool refuses_busy_poll(int error) noexcept {
  return error == ENOPROTOOPT || error == EPERM || error == EACCES || error == EOPNOTSUPP;
}

// The refusal of `option` (its name) with `error`, in words; empty when `error` is no refusal.
inline std::string busy_poll_refusal_words(const char* option, int error) {
  if (!refuses_busy_poll(error)) return {};
  return std::string("busy polling (") + option + "): " + std::strerror(error);
}

// Sets the three options on a fresh AF_XDP socket, as Socket does; the first refusal in words, or
// empty: allowed, or not decided here (no AF_XDP socket at all), so the caller's own attempt
// fails with its own error.
inline std::string busy_poll_refusal() {
  const int fd = ::socket(AF_XDP, SOCK_RAW | SOCK_CLOEXEC, 0);
  if (fd < 0) return {};
  struct Option {
    int name;
    int value;
    const char* words;
  };
  const Option options[] = {{uapi::so_prefer_busy_poll, 1, "SO_PREFER_BUSY_POLL"},
                            {SO_BUSY_POLL, 20, "SO_BUSY_POLL"},
                            {uapi::so_busy_poll_budget, 64, "SO_BUSY_POLL_BUDGET"}};
  std::string refusal;
  for (const Option& option : options) {
    if (::setsockopt(fd, SOL_SOCKET, option.name, &option.value, sizeof option.value) == 0)
      continue;
    refusal = busy_poll_refusal_words(option.words, errno);
    break;
  }
  ::close(fd);
  return refusal;
}

}  // namespace afxdp::tool
