#include "supervise.h"

#include "log.h"

#include <errno.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

static _Noreturn void child_exec(const struct child_spec *c)
{
    /* Its own group, so that a signal for "the server" reaches its workers
     * too; set here and in the parent, whichever runs first. */
    setpgid(0, 0);
    /* Foreground of the terminal, if there is one, so that Ctrl-C reaches
     * the group. SIGTTOU is still blocked here, so a background caller may
     * do this. Without a terminal it fails with ENOTTY, which is fine. */
    if (isatty(STDIN_FILENO))
        tcsetpgrp(STDIN_FILENO, getpid());
    if (caps_apply(c->caps) < 0)
        _exit(EXIT_CANNOT_RUN);
    if (c->no_new_privs && prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0) {
        log_error("cannot set no_new_privs: %s", strerror(errno));
        _exit(EXIT_CANNOT_RUN);
    }
    /* execvp looks COMMAND up in the PATH of the current environment: make
     * that the canonical one, so lookup and the child agree. */
    environ = c->envp;
    signals_restore(c->sig);
    execvp(c->argv[0], c->argv);
    int e = errno;
    log_error("cannot run '%s': %s", c->argv[0], strerror(e));
    _exit(e == ENOENT || e == ENOTDIR ? EXIT_NOT_FOUND : EXIT_CANNOT_RUN);
}

static int exit_code(int status)
{
    if (WIFEXITED(status))
        return WEXITSTATUS(status);
    if (WIFSIGNALED(status))
        return 128 + WTERMSIG(status);
    return 1;
}

/* Reaps every zombie. Returns true once the main child has been reaped.
 * The main child's exit is noticed here rather than from SIGCHLD: several
 * exits can coalesce into one SIGCHLD, and the main one may hide among
 * reparented orphans. */
static bool reap(pid_t main_pid, int *status)
{
    bool main_done = false;
    for (;;) {
        int st;
        pid_t p = waitpid(-1, &st, WNOHANG);
        if (p <= 0)
            return main_done;
        if (p == main_pid) {
            *status = st;
            main_done = true;
        }
    }
}

static void forward(pid_t pid, int sig)
{
    if (kill(-pid, sig) < 0 && errno == ESRCH)
        kill(pid, sig); /* the child left its group (setsid) */
}

int supervise(const struct child_spec *c)
{
    /* Not PID 1: adopt orphaned descendants so they are reaped here and not
     * by whoever is PID 1 outside. */
    if (getpid() != 1)
        prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
    int sfd = signalfd(-1, &c->sig->taken, SFD_CLOEXEC);
    if (sfd < 0)
        die(EXIT_CANNOT_RUN, "signalfd: %s", strerror(errno));
    pid_t pid = fork();
    if (pid < 0)
        die(EXIT_CANNOT_RUN, "fork: %s", strerror(errno));
    if (pid == 0) {
        close(sfd);
        child_exec(c);
    }
    setpgid(pid, pid);
    if (c->started)
        c->started(pid, c->ctx);
    /* The init outlives everything; it must not keep a mount busy. */
    if (chdir("/") < 0)
        log_debug("chdir /: %s", strerror(errno));
    int status = 0;
    for (;;) {
        struct signalfd_siginfo si;
        ssize_t n = read(sfd, &si, sizeof si);
        if (n == (ssize_t)sizeof si && si.ssi_signo != SIGCHLD) {
            log_debug("forwarding signal %u to process group %d", si.ssi_signo, (int)pid);
            forward(pid, (int)si.ssi_signo);
        } else if (n < 0 && errno != EINTR && errno != EAGAIN) {
            die(1, "reading signals: %s", strerror(errno));
        }
        if (reap(pid, &status))
            break;
    }
    close(sfd);
    return exit_code(status);
}
