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

/* The most walks one chase makes (1 ms apart). */
#define TREE_CHASE_WALKS 50

struct tree_chase {
    int walks;       /* walks made */
    long alive;      /* living processes the last walk found (dying ones too) */
    long unkillable; /* of them, those kill() refused (EPERM) */
    bool settled;    /* the last walk SIGKILLed nothing new: what lives is dying */
};

/* SIGKILL for a subreaper's tree that a process changing its pid every
 * millisecond cannot outrun. tree_signal's walk of /proc reads the pids
 * once, at its start (procfs lists each pid once per directory read), and
 * spends time on every process of the host; a process that forks and exits
 * meanwhile is gone from its list and its successor is not in it. The
 * chase instead walks down from nccl-init's own children through each
 * living process's children (/proc/PID/task/TID/children, every thread's),
 * SIGKILLs what it finds alive, and walks again a millisecond later, until
 * a walk finds nothing alive that had not had its SIGKILL, at most
 * TREE_CHASE_WALKS walks. A process whose kill() has returned forks
 * nothing more (the kernel checks for a fatal signal under the lock that
 * attaches a new child), and an orphan comes to nccl-init's own list,
 * which each walk reads last again.
 *
 * The processes killed are remembered (pid and start time) for the whole
 * stop, from tree_chase_reset() on: returns how many this chase killed
 * that no earlier one of the stop had, or -errno when /proc, or nccl-init's
 * own children list (CONFIG_PROC_CHILDREN), cannot be read. Allocates
 * nothing. */
void tree_chase_reset(void);
long tree_kill_chase(struct tree_chase *c);

#endif
