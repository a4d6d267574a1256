/* racer READY [MICROSECONDS]: a process that ignores SIGTERM and moves to a
 * new pid, again and again: each turn it waits MICROSECONDS (1000 unless
 * given; 0: not at all), forks, and the parent exits, so that the one
 * living process of the chain is a new child, orphaned at once. Under a
 * subreaper every link is adopted by it. It starts a session of its own
 * (no process group of its parent's holds it), and once SIGTERM is ignored
 * writes READY (atomically): its pid, which is the chain's process group,
 * for a test to clean up with kill -- -GROUP. Further arguments are
 * ignored: a marker for pgrep -f. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: racer READY [MICROSECONDS] [MARKER...]\n");
        return 2;
    }
    long us = argc > 2 ? atol(argv[2]) : 1000;
    signal(SIGTERM, SIG_IGN);
    if (setsid() < 0) {
        perror("setsid");
        return 1;
    }
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s.tmp", argv[1]);
    FILE *f = fopen(tmp, "w");
    if (!f || fprintf(f, "%d\n", (int)getpid()) < 0 || fclose(f) != 0 || rename(tmp, argv[1]) != 0) {
        perror(argv[1]);
        return 1;
    }
    struct timespec wait = { us / 1000000, us % 1000000 * 1000 };
    for (;;) {
        if (us > 0)
            nanosleep(&wait, NULL);
        pid_t p = fork();
        if (p > 0)
            _exit(0);
        /* p < 0: no pid to move to this turn; try again */
    }
}
