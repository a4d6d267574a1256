/* exec-with-env K=V... -- COMMAND ARGS: runs COMMAND with exactly the given
 * environment entries, duplicates and malformed ones included. No shell,
 * env(1) or Python can build such an environment. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    int i = 1;
    while (i < argc && strcmp(argv[i], "--") != 0)
        i++;
    if (i + 1 >= argc) {
        fputs("usage: exec-with-env [ENTRY...] -- COMMAND [ARGS...]\n", stderr);
        return 2;
    }
    char *envp[256];
    int n = 0;
    for (int j = 1; j < i && n < 255; j++)
        envp[n++] = argv[j];
    envp[n] = NULL;
    execve(argv[i + 1], argv + i + 1, envp);
    perror(argv[i + 1]);
    return 127;
}
