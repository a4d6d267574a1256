#include "pid1/tree.h"

#include "lib/proc_scan.h"
#include "lib/procfs.h"

#include <signal.h>
#include <unistd.h>

/* A chain of parents longer than this is a pid-reuse loop, not a tree. */
#define MAX_DEPTH 4096

/* Static, so that a walk during a stop allocates nothing (opendir would
 * malloc its own buffer). */
static char dents[16384] __attribute__((aligned(8)));

/* Whether a process whose parent is ppid descends from self. One /proc read
 * per level: no table to build, and trees are shallow. A chain that ends at
 * PID 1, at 0 (a parent outside the namespace) or at a process that is gone
 * does not reach us. */
static bool descends(pid_t ppid, pid_t self)
{
    for (int depth = 0; depth < MAX_DEPTH; depth++) {
        if (ppid == self)
            return true;
        struct proc_stat up;
        if (ppid <= 1 || !proc_stat_read(ppid, &up))
            return false;
        ppid = up.ppid;
    }
    return false;
}

static bool wanted(const struct proc_stat *st, pid_t self, const struct tree_filter *f)
{
    if (st->state == 'Z' || st->state == 'X')
        return false; /* dead already: its parent reaps it */
    if (f && f->skip_pgid && st->pgrp == f->skip_pgid)
        return false;
    if (f && f->skip_pid && st->pid == f->skip_pid)
        return false;
    if (f && f->stopped_only && st->state != 'T')
        return false;
    if (f && f->born_before && st->start >= f->born_before)
        return false;
    if (f && st->start < f->born_from)
        return false;
    return self == 1 || descends(st->ppid, self);
}

long tree_signal(int sig, const struct tree_filter *f)
{
    pid_t self = getpid();
    /* Only our own namespace's /proc: the numbers of another are not ours
     * to signal. */
    struct proc_scan scan;
    int err = proc_scan_open(&scan, dents, sizeof dents, true);
    if (err < 0) {
        if (self == 1 && !(f && (f->skip_pgid || f->skip_pid)))
            kill(-1, sig);
        return err;
    }
    long count = 0;
    for (pid_t pid; (pid = proc_scan_next(&scan));) {
        struct proc_stat st;
        if (proc_stat_read(pid, &st) && wanted(&st, self, f) && kill(pid, sig) == 0)
            count++;
    }
    proc_scan_close(&scan);
    if (sig == SIGKILL && self == 1)
        kill(-1, SIGKILL);
    return count;
}
