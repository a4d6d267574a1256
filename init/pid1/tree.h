/* The process tree nccl-init is responsible for: as PID 1 every process in
 * the namespace; otherwise every descendant (a subreaper adopts orphans, so
 * they all stay below it).
 *
 * The walk allocates nothing: it reads /proc through one static buffer, and
 * decides ancestry by climbing parent links in /proc rather than building
 * a table. A supervising init calls it in the middle of a stop, where
 * memory may be short and must not grow. */
#ifndef NCCL_INIT_TREE_H
#define NCCL_INIT_TREE_H

#include <stdbool.h>
#include <sys/types.h>

struct tree_filter {
    pid_t skip_pgid;   /* leave this process group out; 0: none */
    pid_t skip_pid;    /* leave this process out (not its group); 0: none */
    bool stopped_only; /* only processes in the stopped state ('T') */
    /* Start times, in clock ticks after boot (starttime, field 22 of
     * /proc/PID/stat): only processes started before born_before (0: any)
     * and at or after born_from (0: any). */
    unsigned long long born_before, born_from;
};

/* Sends sig to every living process of the tree that passes f (NULL: all).
 * Returns how many were signalled, or -errno when /proc could not be read;
 * as PID 1, with no group or process to skip, the signal then still goes to
 * every process through kill(-1, sig), whatever their start times. SIGKILL
 * as PID 1 always ends with kill(-1), which also reaches processes forked
 * while /proc was being read. */
long tree_signal(int sig, const struct tree_filter *f);

#endif
