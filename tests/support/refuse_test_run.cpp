// refuse-test-run PROGRAM [ARGS...]: runs PROGRAM on a kernel that refuses BPF_PROG_TEST_RUN, as
// some kernels refuse XDP live frames (EPERM even as root: a BPF LSM policy, lockdown, a hardened
// build). A seccomp filter answers bpf(BPF_PROG_TEST_RUN, ...) with EPERM for PROGRAM and every
// process it starts (a filter is inherited across fork and exec); every other call goes through.
// So the fallback paths (gen's auto engine, the demo on such a kernel) are tested on any kernel.
#include <linux/audit.h>
#include <linux/bpf.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstdio>
#include <cstring>

// The architecture whose system call numbers the filter reads (SYS_bpf is this build's).
#if defined(__x86_64__)
constexpr unsigned this_arch = AUDIT_ARCH_X86_64;
#elif defined(__aarch64__)
constexpr unsigned this_arch = AUDIT_ARCH_AARCH64;
#else
#error "refuse_test_run.cpp: add this architecture's AUDIT_ARCH_* value"
#endif

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: refuse-test-run PROGRAM [ARGS...]\n");
    return 2;
  }
  sock_filter filter[] = {
      // Another architecture's system call numbers mean other calls: let them through.
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, arch)),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, this_arch, 1, 0),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, nr)),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_bpf, 0, 3),
      // bpf(cmd, ...): the command is the first argument's low word.
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, args[0])),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, BPF_PROG_TEST_RUN, 0, 1),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (EPERM & SECCOMP_RET_DATA)),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
  };
  sock_fprog program{static_cast<unsigned short>(sizeof filter / sizeof filter[0]), filter};
  if (::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
      ::prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &program) != 0) {
    std::fprintf(stderr, "refuse-test-run: seccomp: %s\n", std::strerror(errno));
    return 2;
  }
  ::execvp(argv[1], argv + 1);
  std::fprintf(stderr, "refuse-test-run: %s: %s\n", argv[1], std::strerror(errno));
  return 127;
}
