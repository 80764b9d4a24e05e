// One owner per memory mapping: move-only, unmapped in the destructor.
#pragma once

#include <cstddef>
#include <utility>

namespace afxdp::detail {

class Mapping {
 public:
  Mapping() = default;
  // mmap(2) as a factory; throws std::system_error naming `what`.
  static Mapping map(std::size_t length, int prot, int flags, int fd, long offset,
                     const char* what);

  Mapping(Mapping&& other) noexcept
      : addr_(std::exchange(other.addr_, nullptr)), length_(std::exchange(other.length_, 0)) {}
  Mapping& operator=(Mapping&& other) noexcept {
    if (this != &other) {
      unmap();
      addr_ = std::exchange(other.addr_, nullptr);
      length_ = std::exchange(other.length_, 0);
    }
    return *this;
  }
  Mapping(const Mapping&) = delete;
  Mapping& operator=(const Mapping&) = delete;
  ~Mapping() { unmap(); }

  [[nodiscard]] void* data() const noexcept { return addr_; }
  [[nodiscard]] std::byte* bytes() const noexcept { return static_cast<std::byte*>(addr_); }
  [[nodiscard]] std::size_t size() const noexcept { return length_; }

 private:
  Mapping(void* addr, std::size_t length) noexcept : addr_(addr), length_(length) {}
  void unmap() noexcept;
  void* addr_ = nullptr;
  std::size_t length_ = 0;
};

}  // namespace afxdp::detail
