#include "pid1/tree.h"

#include "lib/buf.h"
#include "lib/proc_scan.h"
#include "lib/procfs.h"
#include "lib/text.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
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

/* The kill chase (tree_kill_chase): processes that got its SIGKILL in this
 * stop, by pid and start time, so that one still dying is not counted, or
 * chased, twice, and a pid reused by a new process of the tree is not
 * taken for the old one. */
#define CHASE_MAX 4096
static struct {
    pid_t pid;
    unsigned long long start;
} chased[CHASE_MAX];
static long n_chased;
static bool chase_overflow;
/* The processes a walk has found alive, whose children it reads next. */
static pid_t walk_queue[CHASE_MAX];
static char task_dents[4096] __attribute__((aligned(8)));
static char kids_text[4096];

/* PF_EXITING (include/linux/sched.h): the process is in do_exit and never
 * returns to user space, so it forks nothing more. */
#define PF_EXITING 0x00000004UL

struct walk {
    int proc_fd;    /* /proc */
    pid_t self;
    long queued;
    long alive;      /* living (not zombie) processes seen */
    long new_kills;  /* of them, those this walk SIGKILLed first */
    long unkillable; /* of them, those kill() refused (EPERM: not ours to signal) */
    bool last;       /* the second read of nccl-init's own list: only what is new */
};

static bool chased_before(const struct proc_stat *st)
{
    for (long i = 0; i < n_chased && i < CHASE_MAX; i++)
        if (chased[i].pid == st->pid && chased[i].start == st->start)
            return true;
    return false;
}

/* One process from parent's children list. A child listed there that has
 * since exited, been reaped by a living parent, and had its number taken
 * by a stranger is not signalled: its parent must be the one whose list
 * named it, or nccl-init, which adopts the orphans of one that died. */
static void visit(struct walk *w, pid_t pid, pid_t parent)
{
    if (w->last)
        for (long i = 0; i < w->queued; i++)
            if (walk_queue[i] == pid)
                return; /* seen in this walk already */
    struct proc_stat st;
    if (!proc_stat_read(pid, &st) || st.state == 'Z' || st.state == 'X')
        return; /* gone, or dead already */
    w->alive++;
    if (st.ppid != parent && st.ppid != w->self)
        return; /* moved under the walk (an inner subreaper's): the next pass */
    if (st.flags & PF_EXITING || chased_before(&st)) {
        /* dying already: it forks nothing more */
    } else if (kill(pid, SIGKILL) < 0) {
        if (errno == EPERM)
            w->unkillable++;
    } else {
        if (n_chased < CHASE_MAX) {
            chased[n_chased].pid = pid;
            chased[n_chased].start = st.start;
        } else {
            chase_overflow = true;
        }
        n_chased++;
        w->new_kills++;
    }
    if (w->queued < CHASE_MAX)
        walk_queue[w->queued++] = pid;
    else
        w->new_kills++; /* more than the walk can hold: walk again */
}

/* Reads /proc/PID/task/TID/children, visiting each pid in it. */
static int read_children(struct walk *w, int task_fd, const char *tid, pid_t pid)
{
    char path[40];
    struct buf b = BUF_FIXED(path);
    buf_printf(&b, "%s/children", tid);
    int fd = openat(task_fd, path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -errno;
    long long acc = 0;
    bool digits = false;
    for (;;) {
        ssize_t n = read(fd, kids_text, sizeof kids_text);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        for (ssize_t i = 0; i < n; i++) {
            char c = kids_text[i];
            if (c >= '0' && c <= '9') {
                acc = acc * 10 + (c - '0');
                digits = acc < 0x7fffffff;
            } else {
                if (digits)
                    visit(w, (pid_t)acc, pid);
                acc = 0;
                digits = false;
            }
        }
    }
    if (digits)
        visit(w, (pid_t)acc, pid);
    close(fd);
    return 0;
}

/* Visits the children of every thread of pid: a thread's fork is listed
 * under that thread. Returns -errno when its task directory or its main
 * thread's list cannot be read. */
static int walk_children(struct walk *w, pid_t pid)
{
    char path[24];
    struct buf b = BUF_FIXED(path);
    buf_printf(&b, "%d/task", (int)pid);
    int task_fd = openat(w->proc_fd, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (task_fd < 0)
        return -errno;
    int err = 0;
    for (;;) {
        long len = syscall(SYS_getdents64, task_fd, task_dents, sizeof task_dents);
        if (len <= 0)
            break;
        for (long off = 0; off < len;) {
            const struct linux_dirent64 *e = (const void *)(task_dents + off);
            off += e->d_reclen;
            if (e->d_name[0] < '1' || e->d_name[0] > '9')
                continue;
            int r = read_children(w, task_fd, e->d_name, pid);
            long long tid;
            if (r < 0 && parse_c_integer(e->d_name, &tid) && tid == pid)
                err = r;
        }
    }
    close(task_fd);
    return err;
}

/* One walk: nccl-init's own children, then down through every living
 * process found, then nccl-init's own list once more, for a process
 * orphaned (and so adopted) after its parent's list was read. */
static int walk_tree(struct walk *w)
{
    w->queued = w->alive = w->new_kills = w->unkillable = 0;
    w->last = false;
    int err = walk_children(w, w->self);
    if (err < 0)
        return err;
    for (long i = 0; i < w->queued; i++)
        walk_children(w, walk_queue[i]);
    w->last = true;
    walk_children(w, w->self);
    return 0;
}

void tree_chase_reset(void)
{
    n_chased = 0;
    chase_overflow = false;
}

long tree_kill_chase(struct tree_chase *c)
{
    memset(c, 0, sizeof *c);
    struct proc_scan scan;
    int err = proc_scan_open(&scan, dents, sizeof dents, true);
    if (err < 0)
        return err;
    struct walk w = { .proc_fd = scan.fd, .self = scan.self };
    long before = n_chased;
    for (;;) {
        err = walk_tree(&w);
        if (err < 0)
            break;
        c->walks++;
        c->alive = w.alive;
        c->unkillable = w.unkillable;
        /* Done when nothing is alive, or when every living process had
         * its SIGKILL in an earlier walk: once kill() has returned, the
         * process forks nothing more (copy_process() gives up on a
         * pending fatal signal, checked under the lock that the SIGKILL
         * takes), and what it forked before is in a list this walk read. */
        if (w.alive == 0 || w.new_kills == 0 || c->walks >= TREE_CHASE_WALKS)
            break;
        /* What was just killed needs a moment to die and hand its
         * children to nccl-init. */
        struct timespec ts = { 0, 1000000 };
        nanosleep(&ts, NULL);
    }
    proc_scan_close(&scan);
    if (err < 0 && c->walks == 0)
        return err;
    c->settled = err == 0 && w.new_kills == 0 && w.unkillable == 0 && !chase_overflow;
    return n_chased - before;
}
