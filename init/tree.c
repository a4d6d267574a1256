#include "tree.h"

#include "procfs.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <unistd.h>

/* A chain of parents longer than this is a pid-reuse loop, not a tree. */
#define MAX_DEPTH 4096

struct linux_dirent64 {
    uint64_t d_ino;
    int64_t d_off;
    unsigned short d_reclen;
    unsigned char d_type;
    char d_name[];
};

/* Reserved at load time, so that a walk during a stop allocates nothing
 * (opendir would malloc its own buffer). */
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
    if (f && f->stopped_only && st->state != 'T')
        return false;
    return self == 1 || descends(st->ppid, self);
}

/* /proc, when it is the procfs of our own PID namespace: "self" names our
 * pid. A tmpfs over /proc has no "self"; a procfs of another namespace
 * names another pid, and its numbers are not ours to signal. */
static int open_proc(pid_t self)
{
    int fd = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    char link[24];
    ssize_t n = readlinkat(fd, "self", link, sizeof link - 1);
    long long pid = 0;
    if (n > 0) {
        link[n] = '\0';
        parse_c_integer(link, &pid);
    }
    if (pid != self) {
        close(fd);
        errno = n > 0 ? EXDEV : ENOENT;
        return -1;
    }
    return fd;
}

long tree_signal(int sig, const struct tree_filter *f)
{
    pid_t self = getpid();
    int fd = open_proc(self);
    if (fd < 0) {
        int e = errno;
        if (self == 1 && !(f && f->skip_pgid))
            kill(-1, sig);
        errno = e;
        return -1;
    }
    long count = 0;
    for (;;) {
        long n = syscall(SYS_getdents64, fd, dents, sizeof dents);
        if (n <= 0)
            break;
        for (long off = 0; off < n;) {
            struct linux_dirent64 *e = (struct linux_dirent64 *)(dents + off);
            off += e->d_reclen;
            long long pid;
            struct proc_stat st;
            if (e->d_name[0] < '1' || e->d_name[0] > '9' || !parse_c_integer(e->d_name, &pid) ||
                pid == self || !proc_stat_read((pid_t)pid, &st) || !wanted(&st, self, f))
                continue;
            if (kill((pid_t)pid, sig) == 0)
                count++;
        }
    }
    close(fd);
    if (sig == SIGKILL && self == 1)
        kill(-1, SIGKILL);
    return count;
}
