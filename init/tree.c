#include "tree.h"

#include "procfs.h"
#include "util.h"

#include <dirent.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct proc {
    pid_t pid, ppid, pgrp;
    signed char mine; /* -1 unknown, 0 no, 1 yes */
};

static int cmp_pid(const void *a, const void *b)
{
    pid_t x = ((const struct proc *)a)->pid, y = ((const struct proc *)b)->pid;
    return (x > y) - (x < y);
}

static bool read_stat(pid_t pid, struct proc *p)
{
    struct proc_stat st;
    if (!proc_stat_read(pid, &st))
        return false;
    *p = (struct proc){ pid, st.ppid, st.pgrp, -1 };
    return true;
}

unsigned tree_signal(int sig, pid_t skip_pgid)
{
    pid_t self = getpid();
    DIR *d = opendir("/proc");
    if (!d)
        return 0;
    struct proc *v = NULL;
    size_t n = 0, cap = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        long long pid;
        if (e->d_name[0] < '1' || e->d_name[0] > '9' || !parse_c_integer(e->d_name, &pid) ||
            pid == self)
            continue;
        grow((void **)&v, &cap, n + 1, sizeof *v);
        if (read_stat((pid_t)pid, &v[n]))
            n++;
    }
    closedir(d);
    /* As PID 1 everything in the namespace is ours. Otherwise a process is
     * ours when its parent chain reaches us: climb until an answer is known,
     * then write it down the chain (each process is settled once). */
    sort(v, n, sizeof *v, cmp_pid);
    for (size_t i = 0; i < n; i++) {
        size_t k = i, depth = 0;
        signed char answer = self == 1;
        while (self != 1 && v[k].mine < 0 && depth++ < n) {
            if (v[k].ppid == self) {
                answer = 1;
                break;
            }
            struct proc key = { .pid = v[k].ppid };
            struct proc *parent = bsearch(&key, v, n, sizeof *v, cmp_pid);
            if (!parent) {
                answer = 0;
                break;
            }
            k = (size_t)(parent - v);
            answer = v[k].mine;
        }
        if (answer < 0)
            answer = 0; /* a parent loop: only a race with pid reuse makes one */
        for (k = i; v[k].mine < 0;) {
            v[k].mine = answer;
            struct proc key = { .pid = v[k].ppid };
            struct proc *parent = v[k].ppid == self ? NULL : bsearch(&key, v, n, sizeof *v, cmp_pid);
            if (!parent)
                break;
            k = (size_t)(parent - v);
        }
    }
    unsigned count = 0;
    for (size_t i = 0; i < n; i++)
        if (v[i].mine == 1 && (!skip_pgid || v[i].pgrp != skip_pgid) && kill(v[i].pid, sig) == 0)
            count++;
    free(v);
    return count;
}
