#include <afxdp/xsk/unique_fd.hpp>

#include <afxdp/error.hpp>

#include <cerrno>
#include <sys/socket.h>
#include <unistd.h>

namespace afxdp {

UniqueFd UniqueFd::adopt(int fd, const char* what) {
  if (fd < 0) throw_errno(errno, what);
  return UniqueFd(fd);
}

UniqueFd UniqueFd::socket(int domain, int type, int protocol) {
  return adopt(::socket(domain, type | SOCK_CLOEXEC, protocol), "socket");
}

void UniqueFd::reset(int fd) noexcept {
  if (fd_ >= 0) ::close(fd_);
  fd_ = fd;
}

}  // namespace afxdp
