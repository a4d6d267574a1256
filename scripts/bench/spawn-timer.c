/* spawn-timer: time how long commands take to spawn, run and be reaped.
 *
 *   spawn-timer ROUNDS WARMUP :: LABEL [--pid1] CMD [ARGS...] [:: LABEL ...]...
 *
 * Each round runs every command once, in an order that changes from round to
 * round (the start rotates and the direction flips every K rounds, so with
 * K commands all rotations in both directions come up equally often), which
 * spreads slow phases of a noisy machine over all commands alike. Each run
 * is posix_spawn() + waitpid(), timed with CLOCK_MONOTONIC, with the child's
 * stdin, stdout and stderr on /dev/null. CMD must be a path (no PATH lookup).
 * --pid1 runs the command as PID 1 of a new PID namespace, as a container's
 * init is (clone(CLONE_NEWPID), then execve; root only): compare such a
 * command with an anchor run the same way, since the namespace costs too.
 * The first WARMUP rounds are run but not recorded.
 *
 * Prints, per command, one line:
 *   LABEL N MIN_NS MEDIAN_NS P90_NS P99_NS MEAN_NS
 * Exits 1 if any run fails to spawn or exits non-zero.
 *
 * Build: gcc -O2 -o spawn-timer spawn-timer.c
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

#define SEP "::"

struct cmd {
    const char *label;
    char **argv;
    int pid1;
    int64_t *ns;
};

/* The command as PID 1 of a new PID namespace. Raw clone: fork-like, the
 * child only sets up its descriptors and execs. */
static int spawn_pid1(pid_t *pid, char **argv)
{
    *pid = (pid_t)syscall(SYS_clone, CLONE_NEWPID | SIGCHLD, 0, 0, 0, 0);
    if (*pid < 0)
        return errno;
    if (*pid == 0) {
        int fd = open("/dev/null", O_RDWR);
        if (fd < 0 || dup2(fd, 0) < 0 || dup2(fd, 1) < 0 || dup2(fd, 2) < 0)
            _exit(126);
        if (fd > 2)
            close(fd);
        execve(argv[0], argv, environ);
        _exit(127);
    }
    return 0;
}

static int64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* Nearest-rank percentile of a sorted array, p in (0, 100]. */
static int64_t pct(const int64_t *s, long n, int p)
{
    long r = (long)(((int64_t)n * p + 99) / 100);
    return s[(r < 1 ? 1 : r) - 1];
}

static int64_t median(const int64_t *s, long n)
{
    return n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

static void usage(void)
{
    fprintf(stderr, "usage: spawn-timer ROUNDS WARMUP " SEP " LABEL [--pid1] CMD [ARGS...] [" SEP
                    " LABEL ...]...\n");
    exit(2);
}

static long parse_count(const char *s)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || *s == '\0' || *end != '\0' || v < 0 || v > 10000000)
        usage();
    return v;
}

int main(int argc, char **argv)
{
    if (argc < 6 || strcmp(argv[3], SEP) != 0)
        usage();
    long rounds = parse_count(argv[1]), warmup = parse_count(argv[2]);
    if (rounds < 1)
        usage();

    /* Split argv at "::" in place: each group is LABEL CMD [ARGS...]. */
    struct cmd *cmds = calloc((size_t)argc, sizeof *cmds);
    if (!cmds)
        return perror("calloc"), 1;
    int k = 0;
    for (int i = 3; i < argc;) {
        argv[i] = NULL; /* the "::" ends the previous group's argv */
        int start = ++i;
        while (i < argc && strcmp(argv[i], SEP) != 0)
            i++;
        if (i - start < 2)
            usage();
        cmds[k].label = argv[start];
        cmds[k].argv = &argv[start + 1];
        if (strcmp(cmds[k].argv[0], "--pid1") == 0) {
            if (i - start < 3)
                usage();
            cmds[k].pid1 = 1;
            cmds[k].argv++;
        }
        cmds[k].ns = malloc((size_t)rounds * sizeof(int64_t));
        if (!cmds[k].ns)
            return perror("malloc"), 1;
        k++;
    }

    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    for (int fd = 0; fd <= 2; fd++)
        posix_spawn_file_actions_addopen(&fa, fd, "/dev/null", fd ? O_WRONLY : O_RDONLY, 0);

    for (long r = -warmup; r < rounds; r++) {
        long rr = r + warmup;
        int first = (int)(rr % k);
        int dir = (rr / k) % 2 ? -1 : 1;
        for (int j = 0; j < k; j++) {
            struct cmd *c = &cmds[((first + dir * j) % k + k) % k];
            pid_t pid;
            int st;
            int64_t t0 = now_ns();
            int e = c->pid1 ? spawn_pid1(&pid, c->argv)
                            : posix_spawn(&pid, c->argv[0], &fa, NULL, c->argv, environ);
            if (e != 0) {
                fprintf(stderr, "spawn-timer: %s: cannot run %s: %s\n", c->label, c->argv[0],
                        strerror(e));
                return 1;
            }
            while (waitpid(pid, &st, 0) < 0)
                if (errno != EINTR)
                    return perror("waitpid"), 1;
            int64_t t1 = now_ns();
            if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
                fprintf(stderr, "spawn-timer: %s: %s exited with status 0x%x (round %ld)\n",
                        c->label, c->argv[0], st, r);
                return 1;
            }
            if (r >= 0)
                c->ns[r] = t1 - t0;
        }
    }

    for (int i = 0; i < k; i++) {
        struct cmd *c = &cmds[i];
        int64_t sum = 0;
        for (long j = 0; j < rounds; j++)
            sum += c->ns[j];
        qsort(c->ns, (size_t)rounds, sizeof *c->ns, cmp_i64);
        printf("%s %ld %lld %lld %lld %lld %lld\n", c->label, rounds, (long long)c->ns[0],
               (long long)median(c->ns, rounds), (long long)pct(c->ns, rounds, 90),
               (long long)pct(c->ns, rounds, 99), (long long)(sum / rounds));
    }
    return 0;
}
