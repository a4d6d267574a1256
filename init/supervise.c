#include "supervise.h"

#include "log.h"
#include "spawn.h"
#include "tree.h"

#include <errno.h>
#include <poll.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

void stop_policy_init(struct stop_policy *p)
{
    memset(p, 0, sizeof *p);
    memset(p->rewrite, -1, sizeof p->rewrite);
    p->grace_ms = DEFAULT_GRACE_MS;
    p->kill_exit_code = -1;
}

struct state {
    pid_t child;       /* the main child, 0 once reaped */
    int status;        /* its wait status */
    int phase;         /* RUNNING, STOPPING (grace), KILLING */
    long long deadline; /* ms, CLOCK_MONOTONIC: end of the grace time */
    unsigned killed;   /* stragglers that got SIGKILL */
};

enum { RUNNING, STOPPING, KILLING };

/* The system call itself: the vDSO lookup behind clock_gettime would cost
 * the binary a kilobyte, and the init asks the time only while stopping. */
static long long now_ms(void)
{
    struct timespec ts;
    syscall(SYS_clock_gettime, CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static bool is_stop_signal(int sig)
{
    return sig == SIGTERM || sig == SIGINT || sig == SIGQUIT;
}

/* The grace period starts: everything still running gets SIGTERM, then
 * SIGCONT so that a stopped process can act on it. The child's group is
 * skipped when it already got the stop signal itself. */
static void begin_stop(struct state *st, const struct stop_policy *p, pid_t skip_pgid)
{
    st->phase = STOPPING;
    st->deadline = now_ms() + p->grace_ms;
    unsigned n = tree_signal(SIGTERM, skip_pgid);
    tree_signal(SIGCONT, 0);
    log_debug("stopping: SIGTERM to %u more process%s, grace %u ms", n, n == 1 ? "" : "es",
              p->grace_ms);
}

static void kill_all(struct state *st)
{
    st->phase = KILLING;
    st->killed += tree_signal(SIGKILL, 0);
}

static void on_signal(struct state *st, const struct stop_policy *p, int sig)
{
    int to = p->rewrite[sig] >= 0 ? p->rewrite[sig] : sig;
    if (to == 0) {
        log_debug("signal %d dropped (--rewrite)", sig);
        return;
    }
    if (is_stop_signal(to) && st->phase != RUNNING) {
        /* A second stop request (Ctrl-C twice): no more waiting. */
        log_info("signal %d during the stop: killing what is left", sig);
        kill_all(st);
        return;
    }
    if (st->child) {
        log_debug("forwarding signal %d as %d to %s %d", sig, to,
                  p->signal_child ? "process" : "process group", (int)st->child);
        /* The group first; when the child has left it (setsid), the child. */
        if (p->signal_child || kill(-st->child, to) < 0)
            kill(st->child, to);
    } else {
        tree_signal(to, 0);
    }
    if (is_stop_signal(to) && st->phase == RUNNING)
        begin_stop(st, p, st->child && !p->signal_child ? st->child : 0);
}

/* Reaps every zombie; returns true when no child is left, which means the
 * whole tree is gone: a subreaper (or PID 1) inherits every orphan, so a
 * living descendant always has a living ancestor among its children. The
 * main child's exit is noticed here, not from SIGCHLD: several exits can
 * coalesce into one SIGCHLD, and the main one may hide among orphans. */
static bool reap(struct state *st)
{
    for (;;) {
        int status;
        pid_t pid = waitpid(-1, &status, WNOHANG);
        if (pid < 0)
            return errno == ECHILD;
        if (pid == 0)
            return false;
        if (pid == st->child) {
            st->child = 0;
            st->status = status;
        }
    }
}

static int exit_code(int status)
{
    if (WIFEXITED(status))
        return WEXITSTATUS(status);
    if (WIFSIGNALED(status))
        return 128 + WTERMSIG(status);
    return 1;
}

int supervise(const struct child_spec *c, const struct stop_policy *p)
{
    /* Not PID 1: adopt orphaned descendants, so that they are reaped and
     * stopped here and not by whoever is PID 1 outside. */
    if (getpid() != 1)
        prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
    int sfd = signalfd(-1, &c->sig->taken, SFD_CLOEXEC | SFD_NONBLOCK);
    if (sfd < 0)
        die(EXIT_CANNOT_RUN, "signalfd: %s", errstr(errno));
    /* _Fork: the system call without fork()'s atfork handlers and locks,
     * which only threaded programs need and which would bring timed
     * rwlocks and the vDSO into a single-threaded init. */
    pid_t pid = _Fork();
    if (pid < 0)
        die(EXIT_CANNOT_RUN, "fork: %s", errstr(errno));
    if (pid == 0) {
        close(sfd);
        spawn_exec(c);
    }
    setpgid(pid, pid);
    if (c->started)
        c->started(pid, c->ctx);
    /* The init outlives everything; it must not keep a mount busy. */
    if (chdir("/") < 0)
        log_debug("chdir /: %s", errstr(errno));

    struct state st = { .child = pid, .phase = RUNNING };
    for (;;) {
        int timeout = -1;
        if (st.phase == STOPPING) {
            long long left = st.deadline - now_ms();
            if (left <= 0) {
                kill_all(&st);
                continue;
            }
            timeout = left > 1000000 ? 1000000 : (int)left;
        }
        struct pollfd pfd = { sfd, POLLIN, 0 };
        if (poll(&pfd, 1, timeout) < 0 && errno != EINTR)
            die(1, "poll: %s", errstr(errno));
        struct signalfd_siginfo si;
        while (read(sfd, &si, sizeof si) == (ssize_t)sizeof si)
            if (si.ssi_signo != SIGCHLD)
                on_signal(&st, p, (int)si.ssi_signo);
        bool empty = reap(&st);
        if (st.child == 0 && empty)
            break;
        /* The main child is gone but others remain: stop them too. */
        if (st.child == 0 && st.phase == RUNNING)
            begin_stop(&st, p, 0);
    }
    close(sfd);
    int code = exit_code(st.status);
    if (st.killed) {
        log_warn("grace time of %u ms over: killed %u process%s still running", p->grace_ms,
                 st.killed, st.killed == 1 ? "" : "es");
        if (p->kill_exit_code >= 0)
            code = p->kill_exit_code;
    }
    return code;
}
