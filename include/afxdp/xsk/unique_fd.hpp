// One owner per file descriptor: move-only, closed in the destructor. Not thread-safe: one
// owner at a time, like the fd itself.
#pragma once

#include <utility>

namespace afxdp {

class UniqueFd {
 public:
  UniqueFd() = default;
  // Adopt an fd that a syscall returned; throws std::system_error naming `what` when fd < 0
  // (errno is read as the syscall left it).
  static UniqueFd adopt(int fd, const char* what);
  // socket(2) as a factory: UniqueFd::socket(AF_XDP, SOCK_RAW, 0).
  static UniqueFd socket(int domain, int type, int protocol);

  UniqueFd(UniqueFd&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
  UniqueFd& operator=(UniqueFd&& other) noexcept {
    if (this != &other) reset(std::exchange(other.fd_, -1));
    return *this;
  }
  UniqueFd(const UniqueFd&) = delete;
  UniqueFd& operator=(const UniqueFd&) = delete;
  ~UniqueFd() { reset(-1); }

  [[nodiscard]] int get() const noexcept { return fd_; }
  explicit operator bool() const noexcept { return fd_ >= 0; }

 private:
  explicit UniqueFd(int fd) noexcept : fd_(fd) {}
  void reset(int fd) noexcept;
  int fd_ = -1;
};

}  // namespace afxdp
