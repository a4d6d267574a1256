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

struct stop_policy {
    /* Forward every signal to the child's process group, and on a stop
     * SIGTERM the rest of the tree at once, without waiting for the main
     * child: for shell scripts whose background jobs expect the group's
     * signal. Default: the main child alone, the rest after it exits. */
    bool signal_group;
    signed char rewrite[_NSIG]; /* -1: as is; 0: drop; else the signal to send */
    unsigned grace_ms;         /* from the stop's start to SIGKILL */
    int kill_exit_code;        /* exit code when stragglers were killed; -1: the child's */
};

void stop_policy_init(struct stop_policy *p);

/* Forks and execs the child, then supervises until the tree is empty.
 * Returns the exit code: the child's status, 128+N for a fatal signal N,
 * or kill_exit_code when stragglers had to be killed. */
int supervise(const struct child_spec *c, const struct stop_policy *p);

#endif
