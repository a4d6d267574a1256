/* The child: what it is to run, and its side of the fork. */
#ifndef NCCL_INIT_SPAWN_H
#define NCCL_INIT_SPAWN_H

#include "pid1/caps.h"
#include "pid1/signals.h"

#include <stdbool.h>
#include <sys/types.h>

struct child_spec {
    const char *path; /* argv[0] as found by command_lookup */
    char **argv;
    char **envp;
    const struct inherited_signals *sig;
    const struct caps_plan *caps;
    bool no_new_privs;
    /* Called in nccl-init right after the fork, with the child's pid. */
    void (*started)(pid_t pid, void *ctx);
    void *ctx;
};

/* The exit code for a command that could not be exec'd with errno err, as
 * a shell gives it: EXIT_NOT_FOUND (127) when nothing is there, else
 * EXIT_CANNOT_RUN (126). */
int exec_exit_code(int err);

/* In the child after vfork, in the parent's memory: process group,
 * terminal, capabilities, the inherited signal state, then exec. System
 * calls only, on data built before the vfork: no allocation, no global
 * written that the parent reads. Exits 127/126 when exec fails. */
_Noreturn void spawn_exec(const struct child_spec *c);

#endif
