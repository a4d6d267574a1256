/* The child's side of the fork: from nccl-init's state to the command's. */
#include "pid1/spawn.h"

#include "lib/log.h"

#include <errno.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

int exec_exit_code(int err)
{
    return err == ENOENT || err == ENOTDIR ? EXIT_NOT_FOUND : EXIT_CANNOT_RUN;
}

_Noreturn void spawn_exec(const struct child_spec *c)
{
    /* Its own group, so that a signal for "the server" reaches its workers
     * too. Set here only: the parent resumes after the exec (vfork), when
     * the group exists already. */
    setpgid(0, 0);
    /* Foreground of the terminal, if there is one, so that Ctrl-C reaches
     * the group. SIGTTOU is still blocked here, so a background caller may
     * do this. Without a terminal it fails with ENOTTY, which is fine. */
    if (isatty(STDIN_FILENO))
        tcsetpgrp(STDIN_FILENO, getpid());
    const char *what;
    int err = caps_apply(c->caps, &what);
    if (err < 0) {
        log_error("cannot %s: %s", what, strerror(-err));
        _exit(EXIT_CANNOT_RUN);
    }
    if (c->no_new_privs && prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0) {
        log_error("cannot set no_new_privs: %s", strerror(errno));
        _exit(EXIT_CANNOT_RUN);
    }
    /* The canonical environment; the path was found in its PATH before
     * anything was written (lookup.c), so execve, not execvpe: with a '/'
     * in the path musl's execvpe is execve, while glibc's (the sanitizer
     * build) would run a script without a "#!" line with /bin/sh; both
     * builds say ENOEXEC, exit 126, as musl does. environ is left alone:
     * the parent shares this memory until the exec. */
    /* Last: from here on a signal acts on the child as it would have on
     * whoever started nccl-init. */
    signals_restore(c->sig);
    execve(c->path, c->argv, c->envp);
    int e = errno;
    log_error("cannot run '%s': %s", c->argv[0], strerror(e));
    _exit(exec_exit_code(e));
}
