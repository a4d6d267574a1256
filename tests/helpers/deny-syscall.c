/* deny-syscall: runs a command under a seccomp filter that fails one
 * system call with ENOSYS, as a kernel without it or a container's
 * seccomp profile would, for tests/plugin.bats and scripts/bench-plugin.sh.
 *
 *   deny-syscall memfd_create COMMAND [ARGS...]
 *       the env plugin cannot make its witness: it must answer as before
 *       and say so once at WARN
 *   deny-syscall acct COMMAND [ARGS...]
 *       the same filter, on a call no server makes: the anchor that costs
 *       what the filter costs, with the witness made
 *
 * The filter passes every call of another architecture (a 32-bit call on
 * x86-64) untouched. no_new_privs first, as an unprivileged filter needs. */
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#if defined(__x86_64__)
#define ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define ARCH AUDIT_ARCH_AARCH64
#else
#error "deny-syscall: an architecture it does not know"
#endif

int main(int argc, char **argv)
{
    long nr;
    if (argc < 3)
        goto usage;
    if (strcmp(argv[1], "memfd_create") == 0)
        nr = SYS_memfd_create;
    else if (strcmp(argv[1], "acct") == 0)
        nr = SYS_acct;
    else
        goto usage;
    struct sock_filter code[] = {
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, ARCH, 1, 0),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned)nr, 0, 1),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
    };
    struct sock_fprog prog = { sizeof code / sizeof code[0], code };
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
        syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog) != 0) {
        perror("deny-syscall: seccomp");
        return 125;
    }
    execvp(argv[2], argv + 2);
    fprintf(stderr, "deny-syscall: %s: %s\n", argv[2], strerror(errno));
    return 127;
usage:
    fprintf(stderr, "usage: deny-syscall memfd_create|acct COMMAND [ARGS...]\n");
    return 2;
}
