/* Runs the command as a child and supervises it until it exits. */
#ifndef NCCL_INIT_SUPERVISE_H
#define NCCL_INIT_SUPERVISE_H

#include "caps.h"
#include "signals.h"

#include <stdbool.h>
#include <sys/types.h>

struct child_spec {
    char **argv;
    char **envp;
    const struct inherited_signals *sig;
    const struct caps_plan *caps;
    bool no_new_privs;
    /* Called in nccl-init right after the fork, with the child's pid. */
    void (*started)(pid_t pid, void *ctx);
    void *ctx;
};

/* Forks, execs, forwards signals to the child's process group, reaps every
 * zombie, and returns the exit code nccl-init should exit with: the
 * child's status, 128+N for a fatal signal N. */
int supervise(const struct child_spec *c);

#endif
