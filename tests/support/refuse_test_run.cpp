// refuse-test-run [--busy-poll] PROGRAM [ARGS...]: runs PROGRAM on a kernel that refuses
// BPF_PROG_TEST_RUN, as some kernels refuse XDP live frames (EPERM even as root: a BPF LSM policy,
// lockdown, a hardened build). A seccomp filter answers bpf(BPF_PROG_TEST_RUN, ...) with EPERM for
// PROGRAM and every process it starts (a filter is inherited across fork and exec); every other
// call goes through. With --busy-poll it also answers setsockopt(SOL_SOCKET, SO_PREFER_BUSY_POLL)
// with EPERM, as a kernel does to a process without CAP_NET_ADMIN. So the fallback paths (gen's
// auto engine, the demo on such a kernel) are tested on any kernel.
#include <linux/audit.h>
#include <linux/bpf.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstdio>
#include <cstring>
#include <vector>

// The architecture whose system call numbers the filter reads (SYS_bpf is this build's).
#if defined(__x86_64__)
constexpr unsigned this_arch = AUDIT_ARCH_X86_64;
#elif defined(__aarch64__)
constexpr unsigned this_arch = AUDIT_ARCH_AARCH64;
#else
#error "refuse_test_run.cpp: add this architecture's AUDIT_ARCH_* value"
#endif

constexpr unsigned so_prefer_busy_poll = 69;  // <asm-generic/socket.h>, Linux 5.11

int main(int argc, char** argv) {
  const bool busy_poll = argc > 1 && std::strcmp(argv[1], "--busy-poll") == 0;
  const int program_at = busy_poll ? 2 : 1;
  if (argc <= program_at) {
    std::fprintf(stderr, "usage: refuse-test-run [--busy-poll] PROGRAM [ARGS...]\n");
    return 2;
  }
  constexpr sock_filter refuse =
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (EPERM & SECCOMP_RET_DATA));
  constexpr sock_filter allow = BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
  std::vector<sock_filter> filter = {
      // Another architecture's system call numbers mean other calls: let them through.
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, arch)),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, this_arch, 1, 0),
      allow,
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, nr)),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_bpf, 0, 3),
      // bpf(cmd, ...): the command is the first argument's low word.
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, args[0])),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, BPF_PROG_TEST_RUN, 0, 1),
      refuse,
  };
  if (busy_poll) {
    // The system call number is still loaded. setsockopt(fd, level, name, ...): level and name
    // are the second and third arguments; anything else jumps to the final `allow`.
    filter.insert(filter.end(),
                  {
                      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_setsockopt, 0, 5),
                      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, args[1])),
                      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SOL_SOCKET, 0, 3),
                      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, args[2])),
                      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, so_prefer_busy_poll, 0, 1),
                      refuse,
                  });
  }
  filter.push_back(allow);
  sock_fprog program{static_cast<unsigned short>(filter.size()), filter.data()};
  if (::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
      ::prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &program) != 0) {
    std::fprintf(stderr, "refuse-test-run: seccomp: %s\n", std::strerror(errno));
    return 2;
  }
  ::execvp(argv[program_at], argv + program_at);
  std::fprintf(stderr, "refuse-test-run: %s: %s\n", argv[program_at], std::strerror(errno));
  return 127;
}
