// without_landlock PROGRAM [ARGS...]: runs PROGRAM as on a kernel without Landlock. A seccomp
// filter makes landlock_create_ruleset, landlock_add_rule and landlock_restrict_self fail with
// ENOSYS, as they do where the kernel lacks them; everything else is allowed.

#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstdio>

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: without_landlock PROGRAM [ARGS...]\n");
    return 2;
  }
  constexpr unsigned kNr = offsetof(seccomp_data, nr);
  constexpr unsigned kEnosys = SECCOMP_RET_ERRNO | (ENOSYS & SECCOMP_RET_DATA);
  sock_filter filter[] = {
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, kNr),
      BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, SYS_landlock_create_ruleset, 0, 2),
      BPF_JUMP(BPF_JMP | BPF_JGT | BPF_K, SYS_landlock_restrict_self, 1, 0),
      BPF_STMT(BPF_RET | BPF_K, kEnosys),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
  };
  sock_fprog program{static_cast<unsigned short>(sizeof filter / sizeof filter[0]), filter};
  if (::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
      ::prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &program) != 0) {
    std::perror("without_landlock: seccomp");
    return 1;
  }
  ::execvp(argv[1], argv + 1);
  std::perror("without_landlock: exec");
  return 127;
}
