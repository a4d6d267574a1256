/* Supervising the command: forwarding, reaping, and the stop.
 *
 * The rule of this file: from the fork on, nccl-init must not die and must
 * not allocate (init/README.md, "After the fork"; lib/mem.c's seal
 * enforces the second). The command and its tree depend on it for reaping and for
 * their stop; as PID 1 its exit takes the whole namespace down, and as a
 * subreaper it leaves orphans behind. So every error after the fork is
 * logged and lived with, and everything an event needs (the signalfd, the
 * /proc buffer of tree.c, the log line's buffer) exists before the fork.
 * The one way out of the loop is an empty tree.
 *
 * The stop is Docker's contract, which vLLM and SGLang are built on: the
 * stop signal goes to the main process alone, and the main process shuts
 * its own tree down in its own order (vLLM drains requests, then tells its
 * engine, which tells its workers). The rest of the tree gets SIGTERM once
 * the main process has exited, and SIGKILL at the grace deadline.
 *
 * Between the two, the cleanup stage: a cleanup window before the deadline
 * the rest of the tree gets SIGTERM even while the main process lives. A
 * main process that exits on SIGTERM through sys.exit() runs
 * multiprocessing's exit handler, which joins its non-daemon workers; a
 * worker that stops only on SIGTERM then waits for one that nobody in the
 * tree sends, and without the stage both would be killed mid-cleanup. A
 * server whose own shutdown ends before the stage never sees it. The main
 * process is left out: it has had its stop signal, and a second one could
 * cut its own shutdown short. When the main process exits after the stage,
 * what it forked since gets its SIGTERM then, and nothing gets a second:
 * the two passes split the tree at a clock tick of the processes' start
 * times (tick_boundary()).
 *
 * --signal-group keeps the older whole-group stop for trees that need it. */
#include "pid1/supervise.h"

#include "lib/buf.h"
#include "lib/log.h"
#include "pid1/tree.h"

#include <errno.h>
#include <poll.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* How often the deadline's SIGKILL looks again for what survived it (a
 * worker that forked between the walk and the kill, one in an
 * uninterruptible sleep). */
#define KILL_PASS_MS 100
/* Events handled per turn of the loop, so that neither a flood of signals
 * nor a storm of exits can starve the other. */
#define SIGNAL_BATCH 16
#define REAP_BATCH 1024

void stop_policy_init(struct stop_policy *p)
{
    memset(p, 0, sizeof *p);
    memset(p->rewrite, -1, sizeof p->rewrite);
    p->grace_ms = DEFAULT_GRACE_MS;
    p->cleanup_ms = -1;
    p->kill_exit_code = -1;
}

unsigned stop_cleanup_ms(const struct stop_policy *p)
{
    if (p->cleanup_ms >= 0)
        return (unsigned)p->cleanup_ms;
    return p->grace_ms / 4 < DEFAULT_CLEANUP_MS ? p->grace_ms / 4 : DEFAULT_CLEANUP_MS;
}

enum phase { RUNNING, STOPPING, KILLING };

struct state {
    pid_t self;
    pid_t child;         /* the main child, 0 once reaped */
    int status;          /* its wait status */
    enum phase phase;
    /* Times in ms of CLOCK_MONOTONIC; -1: not (yet) */
    long long start;      /* the grace's start: the first stop signal or the main child's exit */
    long long cleanup_at; /* STOPPING: the cleanup stage; -1: no stage */
    long long deadline;   /* STOPPING: the end of the grace */
    long long next_pass;  /* KILLING: when to look for survivors again */
    long long child_gone; /* when the main child was reaped */
    long long told_at;    /* when the rest of the tree last got a SIGTERM pass */
    long long stage_at;   /* when the cleanup stage's pass ended */
    long long kill_at;    /* when KILLING began */
    long stage_n;         /* processes the cleanup stage's SIGTERM reached; -errno: no /proc */
    /* A SIGTERM pass while the main child lived (the cleanup stage, or -g at
     * the stop signal) reached the processes started before this clock tick
     * (tick_boundary()); the pass at the main child's exit takes those
     * started at or after it. 0: no such pass, the exit's takes them all. */
    unsigned long long told_before;
    unsigned stops;       /* stop signals received */
    bool by_signal;       /* the grace started at a stop signal, not at the main child's exit */
    bool staged;          /* the cleanup stage has come */
    bool exit_told;       /* the pass at the main child's exit has run */
    bool by_cleanup;      /* the cleanup stage SIGTERMed at least one process */
    bool cut_short;       /* KILLING began at a second stop signal, not the deadline */
    long killed;          /* processes the SIGKILL reached (kill_pass()); -1: unknown */
};

static long long now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static bool is_stop_signal(int sig)
{
    return sig == SIGTERM || sig == SIGINT;
}

/* Faults a process can send with kill(2). A real fault never reaches the
 * signalfd: the kernel forces it on the init (signals.c). */
static bool is_fault(int sig)
{
    return sig == SIGSEGV || sig == SIGBUS || sig == SIGILL || sig == SIGFPE || sig == SIGABRT ||
           sig == SIGTRAP || sig == SIGSYS;
}

static const char *plural(long n)
{
    return n == 1 ? "" : "es";
}

/* The grace clock starts once, at the first stop signal or at the main
 * child's own exit, whichever comes first. */
static void start_grace(struct state *st, const struct stop_policy *p, bool by_signal)
{
    if (st->phase != RUNNING)
        return;
    st->by_signal = by_signal;
    unsigned cleanup = stop_cleanup_ms(p);
    st->phase = STOPPING;
    st->start = now_ms();
    st->deadline = st->start + p->grace_ms;
    st->cleanup_at = cleanup ? st->deadline - cleanup : -1;
}

/* The clock tick that splits the tree between a SIGTERM pass now and the
 * one at the main child's exit, so that each process gets one of the two.
 * starttime (field 22 of /proc/PID/stat) is the fork's CLOCK_BOOTTIME in
 * clock ticks, recorded just before the kernel makes the new process
 * visible (copy_process() in kernel/fork.c). Returning only once the tick
 * after the boundary has begun (at most two ticks: 20 ms at 100 Hz) means
 * that a process started before the boundary has had a whole tick to
 * appear in /proc when the walk begins, and one started after the walk
 * began has a starttime at or past it. */
static unsigned long long tick_boundary(void)
{
    long hz = sysconf(_SC_CLK_TCK);
    unsigned long long tick = 1000000000ULL / (unsigned long long)(hz > 0 ? hz : 100);
    struct timespec ts;
    clock_gettime(CLOCK_BOOTTIME, &ts);
    unsigned long long boundary =
        ((unsigned long long)ts.tv_sec * 1000000000ULL + (unsigned long long)ts.tv_nsec) / tick + 1;
    unsigned long long wake = (boundary + 1) * tick;
    struct timespec until = { (time_t)(wake / 1000000000ULL), (long)(wake % 1000000000ULL) };
    while (clock_nanosleep(CLOCK_BOOTTIME, TIMER_ABSTIME, &until, NULL) == EINTR)
        ;
    return boundary;
}

/* SIGTERM to the rest of the tree, then SIGCONT to whatever is stopped so
 * that it can act on it; returns how many got the SIGTERM, or -errno. With
 * the main child alive it is left out, having had the stop signal itself
 * (at the cleanup stage the main child alone, under --signal-group its
 * whole group, which had the signal too), and the pass takes what started
 * before a tick boundary. Once the main child is gone, what an earlier pass
 * did not take. */
static long stop_rest(struct state *st, const struct stop_policy *p, const char *when)
{
    struct tree_filter f = { 0 };
    if (st->child && p->signal_group)
        f.skip_pgid = st->child;
    else if (st->child)
        f.skip_pid = st->child;
    if (st->child)
        f.born_before = tick_boundary();
    else
        f.born_from = st->told_before;
    long n = tree_signal(SIGTERM, &f);
    f.stopped_only = true;
    tree_signal(SIGCONT, &f);
    st->told_at = now_ms();
    if (st->child && n >= 0)
        st->told_before = f.born_before;
    if (n < 0)
        log_warn("cannot read /proc: %s; %s", strerror((int)-n),
                 st->self == 1 && !st->child ? "SIGTERM went to every process through kill(-1)"
                                             : "the rest of the tree gets no SIGTERM");
    else
        log_debug("stopping at %s: SIGTERM to %ld more process%s, %lld ms into the grace of %u ms",
                  when, n, plural(n), st->told_at - st->start, p->grace_ms);
    return n;
}

/* One SIGKILL pass over what is left; adds what it reached to st->killed
 * (-1: unknown, /proc unreadable). As PID 1, the walk of /proc and
 * kill(-1), which reaches everything at once. As a subreaper, the chase
 * (tree_kill_chase()), which a process moving to a new pid every
 * millisecond cannot outrun; without the children lists, the walk of
 * /proc; without /proc, the main child's group is all that can still be
 * reached. */
static void kill_pass(struct state *st)
{
    long n = -1;
    bool chased = false;
    if (st->self != 1) {
        struct tree_chase c;
        long long t0 = now_ms();
        n = tree_kill_chase(&c);
        chased = n >= 0;
        if (n < 0)
            log_debug("SIGKILL: cannot walk the children lists (%s); walking /proc instead",
                      strerror((int)-n));
        else if (n > 0 || !c.settled)
            log_debug("SIGKILL to %ld more process%s of the tree in %d walk%s of its children "
                      "lists (%lld ms); %ld left alive%s", n, plural(n), c.walks,
                      c.walks == 1 ? "" : "s", now_ms() - t0, c.alive,
                      !c.alive       ? ""
                      : c.unkillable ? ", some not ours to signal (EPERM)"
                      : c.settled    ? ", all of them dying"
                                     : ", still forking at the last walk: again in 100 ms");
    }
    if (n < 0)
        n = tree_signal(SIGKILL, NULL);
    if (n < 0 && st->self != 1 && st->child)
        kill(-st->child, SIGKILL);
    if (n < 0 && st->child)
        kill(st->child, SIGKILL);
    st->next_pass = now_ms() + KILL_PASS_MS;
    /* The chase counts each process once over the whole stop; the walk of
     * /proc may count a dying one again, so only its first count that
     * reached anything is kept. */
    if (chased && st->killed >= 0)
        st->killed += n;
    else if (!chased && st->killed == 0)
        st->killed = n < 0 ? -1 : n;
}

static void begin_kill(struct state *st, bool cut_short)
{
    st->phase = KILLING;
    st->cut_short = cut_short;
    st->kill_at = now_ms();
    st->killed = 0;
    tree_chase_reset();
    kill_pass(st);
}

/* A signal for the tree goes to the main child (or its group); once the
 * main child is gone, to whatever is left. */
static void forward(struct state *st, const struct stop_policy *p, int sig, int to)
{
    if (!st->child) {
        long n = tree_signal(to, NULL);
        log_debug("signal %d forwarded as %d to the %ld process%s left", sig, to, n, plural(n));
        return;
    }
    log_debug("signal %d forwarded as %d to %s %d", sig, to,
              p->signal_group ? "process group" : "process", (int)st->child);
    /* The group first; when the child has moved to another (setpgid), the child. */
    if (!p->signal_group || kill(-st->child, to) < 0)
        kill(st->child, to);
}

static void on_signal(struct state *st, const struct stop_policy *p,
                      const struct signalfd_siginfo *si)
{
    int sig = (int)si->ssi_signo;
    if (sig == SIGCHLD)
        return; /* the loop reaps after every wake-up */
    /* A signal the init raised itself: SIGPIPE from a log line to a reader
     * that went away, SIGXFSZ. Forwarding it, or even logging it, could
     * raise it again, forever. */
    if (si->ssi_code == SI_USER && (pid_t)si->ssi_pid == st->self)
        return;
    if (is_fault(sig) && si->ssi_code != SI_USER && si->ssi_code != SI_QUEUE &&
        si->ssi_code != SI_TKILL) {
        log_warn("signal %d with code %d is not from a process: not forwarded", sig,
                 (int)si->ssi_code);
        return;
    }
    int to = p->rewrite[sig] >= 0 ? p->rewrite[sig] : sig;
    if (to == 0) {
        log_debug("signal %d dropped (--rewrite)", sig);
        return;
    }
    bool stop = is_stop_signal(sig) || is_stop_signal(to);
    if (stop && st->stops++ > 0) {
        /* A second stop request (Ctrl-C twice, docker kill after stop): no
         * more waiting. */
        if (st->phase != KILLING)
            begin_kill(st, true);
        return;
    }
    forward(st, p, sig, to);
    if (!stop)
        return;
    start_grace(st, p, true);
    if (p->signal_group && st->child)
        stop_rest(st, p, "the stop signal (--signal-group)");
}

enum reaped { TREE_EMPTY, CHILDREN_LEFT, MORE_ZOMBIES };

/* Reaps up to REAP_BATCH zombies. The tree is empty when no child is left:
 * a subreaper (or PID 1) inherits every orphan, so a living descendant
 * always has a living ancestor among its children. The main child's exit
 * is noticed here, not from SIGCHLD: several exits coalesce into one
 * SIGCHLD, and the main one may hide among orphans. */
static enum reaped reap(struct state *st)
{
    for (int i = 0; i < REAP_BATCH; i++) {
        int status;
        pid_t pid = waitpid(-1, &status, WNOHANG);
        if (pid < 0) {
            if (errno == EINTR)
                continue;
            if (errno != ECHILD)
                log_warn("waitpid: %s", strerror(errno));
            return errno == ECHILD ? TREE_EMPTY : CHILDREN_LEFT;
        }
        if (pid == 0)
            return CHILDREN_LEFT;
        if (pid == st->child) {
            st->child = 0;
            st->status = status;
            st->child_gone = now_ms();
        }
    }
    return MORE_ZOMBIES;
}

/* Whether the cleanup stage is still to come: the main child runs, and no
 * pass has reached the rest of the tree yet. */
static bool stage_due(const struct state *st)
{
    return st->phase == STOPPING && st->child && !st->staged && !st->told_before &&
           st->cleanup_at >= 0;
}

/* How long poll may wait: until the next deadline, or not at all. */
static int poll_timeout(const struct state *st, bool more)
{
    if (more)
        return 0;
    long long until = st->phase == KILLING    ? st->next_pass
                      : st->phase != STOPPING ? -1
                      : stage_due(st)          ? st->cleanup_at
                                               : st->deadline;
    if (until < 0)
        return -1;
    long long left = until - now_ms();
    return left <= 0 ? 0 : left > 1000000 ? 1000000 : (int)left;
}

/* How the cleanup window in effect was chosen, for the log. The cap is
 * DEFAULT_CLEANUP_MS. */
static const char *window_kind(const struct stop_policy *p)
{
    if (p->cleanup_ms >= 0)
        return "as set";
    return p->grace_ms / 4 < DEFAULT_CLEANUP_MS ? "the default, a quarter of the grace"
                                                : "the default, at most 2 s";
}

static void on_clock(struct state *st, const struct stop_policy *p)
{
    /* The cleanup stage: only a main child that still runs is left to wait
     * on, and the window before the deadline is what the rest has left. */
    if (stage_due(st) && now_ms() >= st->cleanup_at) {
        char when[112];
        struct buf b = BUF_FIXED(when);
        buf_printf(&b, "the cleanup stage (a window of %u ms: %s)", stop_cleanup_ms(p),
                   window_kind(p));
        st->staged = true;
        st->stage_n = stop_rest(st, p, when);
        st->stage_at = st->told_at;
        /* Credited in the log only when it reached a process: with /proc
         * unreadable and the main child to leave out it sent nothing. */
        st->by_cleanup = st->stage_n > 0;
    }
    long long now = now_ms();
    if (st->phase == STOPPING && now >= st->deadline)
        begin_kill(st, false);
    else if (st->phase == KILLING && now >= st->next_pass)
        kill_pass(st);
}

/* The poll and read errors the loop can meet (ENOMEM, a signalfd gone
 * bad): logged once for each new error, then a short sleep instead of a
 * busy loop. */
static void survive(const char *what, int err, int *logged)
{
    if (*logged != err)
        log_error("%s: %s; still supervising", what, strerror(err));
    *logged = err;
    struct timespec ts = { 0, 10 * 1000000 };
    nanosleep(&ts, NULL);
}

static int exit_code(const struct state *st, const struct stop_policy *p)
{
    int s = st->status, code = WIFEXITED(s) ? WEXITSTATUS(s) : WIFSIGNALED(s) ? 128 + WTERMSIG(s) : 1;
    if (st->phase != KILLING || st->killed == 0)
        return code;
    char what[64];
    struct buf b = BUF_FIXED(what);
    if (st->killed > 0)
        buf_printf(&b, "killed %ld process%s still running", st->killed, plural(st->killed));
    else
        buf_str(&b, "killed what was still running (no /proc to count it)");
    if (st->cut_short)
        log_warn("a second stop signal: %s, without waiting for the grace", what);
    else
        log_warn("the grace time of %u ms is over: %s", p->grace_ms, what);
    return p->kill_exit_code >= 0 ? p->kill_exit_code : code;
}

/* What the cleanup stage did, for the end of the stop's line. */
static void describe_stage(const struct state *st, struct buf *b)
{
    long long at = st->stage_at - st->start;
    if (st->by_cleanup)
        buf_printf(b, "; the cleanup stage SIGTERMed %ld process%s at %lld ms", st->stage_n,
                   plural(st->stage_n), at);
    else if (st->staged && st->stage_n == 0)
        buf_printf(b, "; the cleanup stage at %lld ms found no process to SIGTERM", at);
    else if (st->staged)
        buf_printf(b, "; the cleanup stage at %lld ms could not read /proc", at);
}

/* One line on which stage ended the stop, in ms from its start. A main
 * child that exits by itself, with no stop signal and nothing killed, is
 * the normal end of a batch job: that line is for -v. */
static void log_stop(const struct state *st, const struct stop_policy *p)
{
    if (st->phase == RUNNING)
        return;
    /* As exit_code(): a SIGKILL that reached nothing ended nothing. */
    bool killed = st->phase == KILLING && st->killed != 0;
    long long end = now_ms() - st->start;
    int level = st->by_signal || killed ? LOG_INFO : LOG_DEBUG;
    const char *since = st->by_signal ? "the stop signal" : "the main child's exit";
    char stage[96] = "";
    struct buf b = BUF_FIXED(stage);
    describe_stage(st, &b);
    if (killed)
        log_msg(level, "stop: ended by SIGKILL %s, %lld ms after %s; the tree was empty at "
                "%lld ms%s", st->cut_short ? "at a second stop signal" : "at the deadline",
                st->kill_at - st->start, since, end, stage);
    else if (st->by_cleanup)
        log_msg(level, "stop: ended at the cleanup stage: the tree got SIGTERM (%ld process%s) "
                "%lld ms after %s, %lld ms before the deadline (a window of %u ms: %s); the main "
                "child exited at %lld ms, the tree was empty at %lld ms", st->stage_n,
                plural(st->stage_n), st->stage_at - st->start, since, st->deadline - st->stage_at,
                stop_cleanup_ms(p), window_kind(p), st->child_gone - st->start, end);
    else if (st->by_signal)
        log_msg(level, "stop: ended by the main child's own exit after %lld ms; the rest of the "
                "tree was empty at %lld ms%s", st->child_gone - st->start, end, stage);
    else
        log_msg(level, "the main child exited by itself; the rest of the tree was empty %lld ms "
                "later", end);
}

/* The loop: signals and exits until the tree is empty, its one way out. */
static void watch(struct state *st, int sfd, const struct stop_policy *p)
{
    bool more = false;
    int poll_err = 0, read_err = 0;
    for (;;) {
        struct pollfd pfd = { sfd, POLLIN, 0 };
        if (poll(&pfd, 1, poll_timeout(st, more)) < 0 && errno != EINTR)
            survive("poll", errno, &poll_err);
        struct signalfd_siginfo si[SIGNAL_BATCH];
        ssize_t n = read(sfd, si, sizeof si);
        if (n < 0 && errno != EAGAIN && errno != EINTR)
            survive("reading signals", errno, &read_err);
        for (ssize_t i = 0; i < n / (ssize_t)sizeof si[0]; i++)
            on_signal(st, p, &si[i]);
        /* A full batch may have left more behind: come straight back. */
        more = n == (ssize_t)sizeof si;
        enum reaped r = reap(st);
        if (st->child == 0 && r == TREE_EMPTY)
            break;
        more = more || r == MORE_ZOMBIES;
        /* The main child is gone: now the rest, or what an earlier pass
         * did not reach. */
        if (st->child == 0 && !st->exit_told && st->phase != KILLING) {
            start_grace(st, p, false);
            st->exit_told = true;
            stop_rest(st, p, "the main child's exit");
        }
        on_clock(st, p);
    }
}

int supervise(const struct child_spec *c, const struct stop_policy *p)
{
    /* Not PID 1: adopt orphaned descendants, so that they are reaped and
     * stopped here and not by whoever is PID 1 outside. */
    pid_t self = getpid();
    if (self != 1)
        prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
    int sfd = signalfd(-1, &c->sig->taken, SFD_CLOEXEC | SFD_NONBLOCK);
    if (sfd < 0)
        return -errno;
    /* vfork, not fork: the child borrows the init's memory until its exec,
     * so no page table is copied and the init takes no copy-on-write fault
     * afterwards; on the VMs measured that is a fifth of the start-up
     * (README, "Measured"). The price is what the child may do before the
     * exec, which spawn.c keeps to: nothing but system calls on data built
     * before this point, no allocation, no return from this function, no
     * signal handler (every signal is blocked until just before the exec,
     * and the init installs none). The init resumes once the child has
     * exec'd or exited. The signalfd is close-on-exec. */
    pid_t pid = vfork();
    if (pid < 0) {
        int err = -errno;
        close(sfd);
        return err;
    }
    if (pid == 0)
        spawn_exec(c);
    /* From here on: no exit, no allocation but started()'s (see the top of
     * this file). */
    if (c->started)
        c->started(pid, c->ctx);
    /* The init outlives everything; it must not keep a mount busy. */
    if (chdir("/") < 0)
        log_debug("chdir /: %s", strerror(errno));

    struct state st = { .self = self, .child = pid, .phase = RUNNING, .start = -1,
                        .cleanup_at = -1, .child_gone = -1, .told_at = -1, .stage_at = -1, .kill_at = -1 };
    watch(&st, sfd, p);
    close(sfd);
    int code = exit_code(&st, p);
    log_stop(&st, p);
    return code;
}
