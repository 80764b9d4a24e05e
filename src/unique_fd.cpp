#include <afxdp/detail/socket_option.hpp>
#include <afxdp/detail/unique_fd.hpp>

#include <cerrno>
#include <system_error>
#include <unistd.h>

namespace afxdp::detail {

void throw_errno(int error, const std::string& what) {
  throw std::system_error(error, std::generic_category(), what);
}

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

}  // namespace afxdp::detail
