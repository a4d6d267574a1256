/* The signal state nccl-init inherited, kept in one place so the child
 * gets it back exactly. */
#ifndef NCCL_INIT_SIGNALS_H
#define NCCL_INIT_SIGNALS_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

/* Masks are kept as the kernel's 64-bit words (bit N-1 for signal N), not
 * sigset_t: the C libraries refuse to block the signals they reserve for
 * threads (32 and 33 in glibc, 32 to 34 in musl), yet other programs send
 * them: glibc's SIGRTMIN is 34. A single-threaded init can block them all. */
struct inherited_signals {
    uint64_t mask;    /* the inherited blocked mask */
    bool chld_ignored; /* SIGCHLD was inherited as SIG_IGN (and reset by us) */
    sigset_t taken;   /* what nccl-init blocks and reads from a signalfd */
};

/* Records the inherited mask, then blocks every signal (a real fault is
 * still delivered: the kernel forces it); an inherited SIG_IGN for SIGCHLD
 * is reset. Call it first in main. */
void signals_take_over(struct inherited_signals *s);

/* Puts back the inherited dispositions and mask: in the child before exec,
 * and in verbs that do not supervise anything. */
void signals_restore(const struct inherited_signals *s);

/* "TERM", "SIGTERM", "15", "RTMIN+3" -> the number; "0" -> 0; -EINVAL
 * when unknown. */
int signal_parse(const char *s);

#endif
