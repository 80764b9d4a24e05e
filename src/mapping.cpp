#include <afxdp/detail/mapping.hpp>
#include <afxdp/detail/socket_option.hpp>

#include <cerrno>
#include <sys/mman.h>

namespace afxdp::detail {

Mapping Mapping::map(std::size_t length, int prot, int flags, int fd, long offset,
                     const char* what) {
  void* addr = ::mmap(nullptr, length, prot, flags, fd, offset);
  if (addr == MAP_FAILED) throw_errno(errno, std::string("mmap(") + what + ")");
  return Mapping(addr, length);
}

void Mapping::unmap() noexcept {
  if (addr_ != nullptr) ::munmap(addr_, length_);
  addr_ = nullptr;
  length_ = 0;
}

}  // namespace afxdp::detail
