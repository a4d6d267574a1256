/* The physical floor of an init's start-up, for scripts/bench-startup.sh:
 * block every signal, fork, restore the mask in the child and exec, wait,
 * exit with the child's status. Nothing else: no options, no profile, no
 * forwarding. Built static with musl, as nccl-init is. */
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    sigset_t all, old;
    sigfillset(&all);
    sigprocmask(SIG_SETMASK, &all, &old);
    if (argc < 2)
        return 2;
    pid_t pid = fork();
    if (pid == 0) {
        sigprocmask(SIG_SETMASK, &old, NULL);
        execv(argv[1], argv + 1);
        _exit(127);
    }
    int status;
    if (pid < 0 || waitpid(pid, &status, 0) < 0)
        return 1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
