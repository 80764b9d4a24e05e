// Socket options in one place: set_option(fd, SOL_XDP, XDP_UMEM_REG, reg, "XDP_UMEM_REG").
// Both throw std::system_error naming the option and `context` (the object it was for).
#pragma once

#include <afxdp/error.hpp>

#include <cerrno>
#include <string>
#include <sys/socket.h>

namespace afxdp::detail {

template <class T>
void set_option(int fd, int level, int name, const T& value, const char* name_text,
                const std::string& context = {}) {
  if (::setsockopt(fd, level, name, &value, sizeof value) != 0) {
    throw_errno(errno, std::string("setsockopt(") + name_text + ")" +
                           (context.empty() ? "" : " on " + context));
  }
}

template <class T>
T get_option(int fd, int level, int name, const char* name_text, const std::string& context = {}) {
  T value{};
  socklen_t length = sizeof value;
  if (::getsockopt(fd, level, name, &value, &length) != 0) {
    throw_errno(errno, std::string("getsockopt(") + name_text + ")" +
                           (context.empty() ? "" : " on " + context));
  }
  return value;
}

}  // namespace afxdp::detail
