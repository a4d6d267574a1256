/* /proc/PID/stat, read once for the tree walk and for verify. */
#ifndef NCCL_INIT_PROCFS_H
#define NCCL_INIT_PROCFS_H

#include <stdbool.h>
#include <sys/types.h>

struct proc_stat {
    pid_t pid, ppid, pgrp;
    char state;               /* R S D Z T t ...: 'T' is stopped */
    unsigned long long start; /* clock ticks after boot */
    unsigned long flags;      /* the kernel's PF_* bits (PF_KTHREAD: a kernel thread) */
    char comm[32];
};

/* Reads and parses /proc/PID/stat (pid 0: /proc/self/stat, this process
 * whichever PID namespace that /proc belongs to); false when the process
 * is gone. */
bool proc_stat_read(pid_t pid, struct proc_stat *st);

#endif
