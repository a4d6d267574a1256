/* orphans N: makes N orphans as fast as possible (each is the child of a
 * short-lived parent, so the init adopts it) and exits. The orphans exit
 * at once: the init must reap them all. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 1;
    for (long i = 0; i < n; i++) {
        pid_t p = fork();
        if (p < 0) {
            perror("fork");
            return 1;
        }
        if (p == 0) {
            if (fork() < 0)
                _exit(1);
            _exit(0); /* the grandchild is orphaned here */
        }
        waitpid(p, NULL, 0);
    }
    return 0;
}
