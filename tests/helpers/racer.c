/* racer READY [MICROSECONDS]: a process that ignores SIGTERM and moves to a
 * new pid, again and again: each turn it waits MICROSECONDS (1000 unless
 * given; 0: not at all), forks, and the parent exits, so that the one
 * living process of the chain is a new child, orphaned at once. Under a
 * subreaper every link is adopted by it. It writes READY once SIGTERM is
 * ignored. Further arguments are ignored: a marker for pgrep -f. */
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
    FILE *f = fopen(argv[1], "w");
    if (!f || fclose(f) != 0) {
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
