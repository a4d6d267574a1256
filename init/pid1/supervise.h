/* Runs the command as a child and supervises it as PID 1 should: forwards
 * signals, reaps every zombie, and stops the tree in the main child's own
 * order (supervise.c says how). */
#ifndef NCCL_INIT_SUPERVISE_H
#define NCCL_INIT_SUPERVISE_H

#include "pid1/spawn.h"

#include <stdbool.h>
#include <signal.h>

/* Docker's stop timeout is 10 s, after which the runtime SIGKILLs PID 1
 * and the kernel every process with it, mid-cleanup and without a word.
 * Staying below it lets nccl-init do the killing itself, say so, and exit
 * with the server's status. */
#define DEFAULT_GRACE_MS 8000

/* The cleanup window: at the latest this long before the deadline the rest
 * of the tree gets SIGTERM, even while the main child still runs. The
 * default is 2 s, or a quarter of the grace when that is shorter: a server
 * keeps all but the margin the grace chain leaves anyway (doc/pid1.md), and
 * a worker that stops only on SIGTERM, which its own main process waits on,
 * gets its SIGTERM with time to clean up instead of a SIGKILL. */
#define DEFAULT_CLEANUP_MS 2000

struct stop_policy {
    /* Forward every signal to the child's process group, and on a stop
     * SIGTERM the rest of the tree at once, without waiting for the main
     * child: for shell scripts whose background jobs expect the group's
     * signal. Default: the main child alone, the rest after it exits. */
    bool signal_group;
    signed char rewrite[_NSIG]; /* -1: as is; 0: drop; else the signal to send */
    unsigned grace_ms;         /* from the stop's start to SIGKILL */
    long cleanup_ms;           /* the cleanup window; 0: none; -1: the default */
    int kill_exit_code;        /* exit code when stragglers were killed; -1: the child's */
};

void stop_policy_init(struct stop_policy *p);

/* The cleanup window in effect: cleanup_ms, or the default for the grace.
 * Shorter than the grace, or 0. */
unsigned stop_cleanup_ms(const struct stop_policy *p);

/* Forks and execs the child, then supervises until the tree is empty.
 * Returns the exit code: the child's status, 128+N for a fatal signal N,
 * or kill_exit_code when stragglers had to be killed. */
int supervise(const struct child_spec *c, const struct stop_policy *p);

#endif
