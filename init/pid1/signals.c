#include "pid1/signals.h"

#include "lib/text.h"

#include <errno.h>
#include <string.h>
#include <strings.h>
#include <sys/syscall.h>
#include <unistd.h>

/* The system call, not sigprocmask(): the C library would refuse to block,
 * and hide from the old mask, the signals it reserves (signals.h). */
static void set_mask(uint64_t set, uint64_t *old)
{
    syscall(SYS_rt_sigprocmask, SIG_SETMASK, &set, old, sizeof set);
}

/* SIGCHLD's disposition: the init only ever reads it and sets SIG_DFL or
 * SIG_IGN. The handler is all of it that a child inherits: exec clears
 * every action's flags and mask (flush_signal_handlers in kernel/signal.c)
 * and keeps only SIG_IGN. */
static void set_chld(void (*handler)(int))
{
    struct sigaction sa = { .sa_handler = handler };
    sigemptyset(&sa.sa_mask);
    sigaction(SIGCHLD, &sa, NULL);
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
    struct sigaction old;
    s->chld_ignored = sigaction(SIGCHLD, NULL, &old) == 0 && old.sa_handler == SIG_IGN;
    if (s->chld_ignored)
        set_chld(SIG_DFL);
}

/* Linux's numbers on x86_64 and arm64, 1..31. */
static const char *const signal_names[32] = {
    [1] = "HUP", "INT", "QUIT", "ILL", "TRAP", "ABRT", "BUS", "FPE", "KILL", "USR1",
    "SEGV", "USR2", "PIPE", "ALRM", "TERM", "STKFLT", "CHLD", "CONT", "STOP", "TSTP",
    "TTIN", "TTOU", "URG", "XCPU", "XFSZ", "VTALRM", "PROF", "WINCH", "IO", "PWR", "SYS",
};

int signal_parse(const char *s)
{
    long long n;
    if (strncasecmp(s, "SIG", 3) == 0)
        s += 3;
    if (*s >= '0' && *s <= '9')
        return parse_c_integer(s, &n) && strspn(s, "0123456789") == strlen(s) && n < _NSIG
                   ? (int)n
                   : -EINVAL;
    for (int sig = 1; sig < 32; sig++)
        if (strcasecmp(s, signal_names[sig]) == 0)
            return sig;
    /* RTMIN+n, RTMAX-n */
    int base = strncasecmp(s, "RTMIN", 5) == 0 ? SIGRTMIN : strncasecmp(s, "RTMAX", 5) == 0 ? SIGRTMAX : 0;
    if (!base)
        return -EINVAL;
    s += 5;
    if (!*s)
        return base;
    if ((*s != '+' && *s != '-') || !parse_c_integer(s + 1, &n) || strspn(s + 1, "0123456789") != strlen(s + 1))
        return -EINVAL;
    n = *s == '+' ? base + n : base - n;
    return n >= SIGRTMIN && n <= SIGRTMAX ? (int)n : -EINVAL;
}

void signals_restore(const struct inherited_signals *s)
{
    if (s->chld_ignored)
        set_chld(SIG_IGN);
    set_mask(s->mask, NULL);
}
