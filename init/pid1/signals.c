#include "pid1/signals.h"

#include "lib/text.h"

#include <string.h>
#include <strings.h>
#include <sys/syscall.h>
#include <unistd.h>

static void set_mask(uint64_t set, uint64_t *old)
{
    syscall(SYS_rt_sigprocmask, SIG_SETMASK, &set, old, sizeof set);
}

/* SIGCHLD's disposition, through the system call: the init only ever
 * reads it and sets SIG_DFL or SIG_IGN, which need no restorer, and
 * libc's sigaction() costs the binary 400 bytes for handlers it never
 * installs. The kernel's struct, as on x86_64 and arm64. */
struct k_sigaction {
    void (*handler)(int);
    unsigned long flags;
    void (*restorer)(void);
    unsigned long mask;
};

static int chld_disposition(const struct k_sigaction *set, struct k_sigaction *old)
{
    return (int)syscall(SYS_rt_sigaction, SIGCHLD, set, old, sizeof(unsigned long));
}

void signals_take_over(struct inherited_signals *s)
{
    /* Everything, the fault signals too. A real fault (a bad pointer, a
     * stack-protector crash) is forced on us by the kernel whatever the
     * mask: it unblocks the signal, resets it to the default and kills the
     * init with a core, as loudly as ever. What the mask catches is the
     * same signal sent with kill(2) by another process, which is a request
     * for the child like any other, not a reason for the init to die. */
    uint64_t taken = ~(uint64_t)0;
    /* Block before anything else: as PID 1 of a namespace, a signal with
     * the default disposition is simply dropped by the kernel, so a SIGTERM
     * arriving while we parse arguments would be lost rather than queued. */
    set_mask(taken, &s->mask);
    memset(&s->taken, 0, sizeof s->taken);
    memcpy(&s->taken, &taken, sizeof taken); /* the kernel reads the first word */
    /* Inherited SIG_IGN dispositions stay as they are: the kernel never
     * discards a signal that is blocked, ignored or not (sig_ignored() in
     * kernel/signal.c), so the signalfd still reads it, and the child gets
     * the disposition through fork and exec untouched. SIGCHLD is the one
     * exception: ignored, it would make the kernel reap our children itself
     * and waitpid() lose the main child's status. */
    struct k_sigaction old;
    s->chld_ignored = chld_disposition(NULL, &old) == 0 && old.handler == SIG_IGN;
    if (s->chld_ignored)
        chld_disposition(&(struct k_sigaction){ .handler = SIG_DFL }, NULL);
}

/* Linux's numbers on x86_64 and arm64, 1..31. */
static const char signal_names[] = "HUP\0INT\0QUIT\0ILL\0TRAP\0ABRT\0BUS\0FPE\0KILL\0USR1\0SEGV\0"
                                   "USR2\0PIPE\0ALRM\0TERM\0STKFLT\0CHLD\0CONT\0STOP\0TSTP\0"
                                   "TTIN\0TTOU\0URG\0XCPU\0XFSZ\0VTALRM\0PROF\0WINCH\0IO\0PWR\0SYS";

int signal_parse(const char *s)
{
    long long n;
    if (strncasecmp(s, "SIG", 3) == 0)
        s += 3;
    if (*s >= '0' && *s <= '9')
        return parse_c_integer(s, &n) && strspn(s, "0123456789") == strlen(s) && n < _NSIG
                   ? (int)n
                   : -1;
    const char *name = signal_names;
    for (int sig = 1; sig < 32; sig++, name += strlen(name) + 1)
        if (strcasecmp(s, name) == 0)
            return sig;
    /* RTMIN+n, RTMAX-n */
    int base = strncasecmp(s, "RTMIN", 5) == 0 ? SIGRTMIN : strncasecmp(s, "RTMAX", 5) == 0 ? SIGRTMAX : 0;
    if (!base)
        return -1;
    s += 5;
    if (!*s)
        return base;
    if ((*s != '+' && *s != '-') || !parse_c_integer(s + 1, &n) || strspn(s + 1, "0123456789") != strlen(s + 1))
        return -1;
    n = *s == '+' ? base + n : base - n;
    return n >= SIGRTMIN && n <= SIGRTMAX ? (int)n : -1;
}

void signals_restore(const struct inherited_signals *s)
{
    if (s->chld_ignored)
        chld_disposition(&(struct k_sigaction){ .handler = SIG_IGN }, NULL);
    set_mask(s->mask, NULL);
}
