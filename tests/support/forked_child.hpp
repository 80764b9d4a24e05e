// A function run in a forked child with a pipe back to the parent, for a test that must change
// what a process is (its network namespace, its user, its limits) or kill it, and keep the test
// process as it was. The child runs the body and leaves by _exit with the body's return value:
// it never returns into GoogleTest's copy of the parent. An exception escaping the body is said
// on the pipe ("exception: ...") and exits 125.
#pragma once

#include <chrono>
#include <functional>
#include <string>
#include <string_view>
#include <sys/types.h>

namespace afxdp::test {

class ForkedChild {
 public:
  // The child's end of the pipe.
  class Pipe {
   public:
    explicit Pipe(int fd) noexcept : fd_(fd) {}
    // Writes all of `text`; false when the parent is gone.
    [[nodiscard]] bool say(std::string_view text) const noexcept;

   private:
    int fd_;
  };
  using Body = std::function<int(const Pipe&)>;
  static constexpr int escaped = 125;  // the exit code when an exception left the body

  // Forks; the child runs `body`. Throws std::system_error when pipe() or fork() fails.
  explicit ForkedChild(const Body& body);
  ForkedChild(const ForkedChild&) = delete;
  ForkedChild& operator=(const ForkedChild&) = delete;
  // A child not yet waited for is killed (SIGKILL) and reaped: no test leaves one behind.
  ~ForkedChild();

  [[nodiscard]] pid_t pid() const noexcept { return pid_; }
  // What the child says next, at most `most` bytes: "" when it closed the pipe (or died) without
  // saying more, or when `timeout` passed first.
  std::string read(std::size_t most, std::chrono::milliseconds timeout = std::chrono::seconds(30));
  // All the child says until it closes the pipe (by exiting, most often).
  std::string read_all();
  // SIGKILL (the child may already be gone), then wait().
  int kill();
  // Waits for the child to end; its waitpid status. Once: later calls return the same.
  int wait();

 private:
  pid_t pid_ = -1;
  int from_child_ = -1;
  bool reaped_ = false;
  int status_ = 0;
};

// How a run in a child ended: what it said on the pipe and its waitpid status.
struct ChildEnd {
  std::string said;
  int status = 0;
  [[nodiscard]] bool exited_with(int code) const noexcept;
};

// Runs `body` in a forked child, reads all it says and waits for it to end.
ChildEnd run_in_child(const ForkedChild::Body& body);

}  // namespace afxdp::test
