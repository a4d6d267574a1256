/* pid1-reap: the main child of an init under test, in the orphan-storm
 * benchmark of scripts/bench-pid1.sh.
 *
 *   pid1-reap ORPHANS N TIMEOUT_MS
 *
 * Runs ORPHANS N (tests/helpers/orphans.c: N short-lived parents, each
 * leaving one orphan that exits at once, so the init inherits N zombies to
 * reap), waits for it, then scans /proc for zombies until none is left or
 * TIMEOUT_MS passed since the storm ended. Meant to run in a PID namespace
 * of its own (unshare --pid --fork --mount-proc), where /proc shows only the
 * init's tree and the init is PID 1.
 *
 * Prints one line:
 *   STORM_NS TAIL_NS TOTAL_NS ZOMBIES_LEFT SCANS INIT_CPU_NS
 * STORM: the storm (spawn to reap of ORPHANS); TAIL: from its end to the
 * first scan that found no zombie (or the timeout); TOTAL: both; ZOMBIES_LEFT:
 * zombies in the last scan; SCANS: how many scans it took; INIT_CPU_NS: the
 * CPU time PID 1 (the init) has used so far, from /proc/1/schedstat (-1 when
 * unreadable): nearly all of it spent reaping.
 * Exits 0 when no zombie was left, 1 otherwise, 2 on a usage or setup error.
 *
 * Build: gcc -O2 -o pid1-reap pid1-reap.c
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

static int64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Zombies in /proc, this process excluded (it is not one). */
static long count_zombies(void)
{
    DIR *d = opendir("/proc");
    if (!d)
        return -1;
    long z = 0;
    struct dirent *e;
    char path[300], buf[512];
    while ((e = readdir(d))) {
        if (e->d_name[0] < '1' || e->d_name[0] > '9')
            continue;
        snprintf(path, sizeof path, "/proc/%s/stat", e->d_name);
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
            continue; /* reaped between readdir and open */
        ssize_t n = read(fd, buf, sizeof buf - 1);
        close(fd);
        if (n <= 0)
            continue;
        buf[n] = '\0';
        /* "pid (comm) S ...": comm may hold ')', so the last one counts. */
        char *s = strrchr(buf, ')');
        if (s && s[1] == ' ' && s[2] == 'Z')
            z++;
    }
    closedir(d);
    return z;
}

/* CPU time of a process so far: the first field of /proc/PID/schedstat. */
static long long cpu_ns(const char *pid)
{
    char path[64], buf[128];
    snprintf(path, sizeof path, "/proc/%s/schedstat", pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0)
        return -1;
    buf[n] = '\0';
    return atoll(buf);
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: pid1-reap ORPHANS N TIMEOUT_MS\n");
        return 2;
    }
    int64_t timeout = atoll(argv[3]) * 1000000;
    char *args[] = { argv[1], argv[2], NULL };

    int64_t t0 = now_ns();
    pid_t pid;
    int e = posix_spawn(&pid, argv[1], NULL, NULL, args, environ);
    if (e) {
        fprintf(stderr, "pid1-reap: %s: %s\n", argv[1], strerror(e));
        return 2;
    }
    int st;
    while (waitpid(pid, &st, 0) < 0)
        if (errno != EINTR) {
            perror("pid1-reap: waitpid");
            return 2;
        }
    int64_t t1 = now_ns();
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
        fprintf(stderr, "pid1-reap: %s %s failed: status 0x%x\n", argv[1], argv[2], st);
        return 2;
    }

    long z, scans = 0;
    int64_t t2;
    for (;;) {
        z = count_zombies();
        scans++;
        t2 = now_ns();
        if (z <= 0 || t2 - t1 >= timeout)
            break;
        usleep(500);
    }
    printf("%lld %lld %lld %ld %ld %lld\n", (long long)(t1 - t0), (long long)(t2 - t1),
           (long long)(t2 - t0), z, scans, cpu_ns("1"));
    fflush(stdout);
    return z == 0 ? 0 : 1;
}
