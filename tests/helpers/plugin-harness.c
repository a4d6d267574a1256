/* plugin-harness: the env plugin (build/libnccl-env.so) as a C server
 * meets it, for tests/plugin.bats (issue 34).
 *
 *   plugin-harness uid LIBNCCL [closed-stdout | hold]
 *       A C server: dlopens the real libnccl.so.2 and calls ncclGetUniqueId
 *       (NCCL's first init: it loads and inits the env plugin), then prints
 *       "pid PID" and "uniqueid: ok" (or "uniqueid: failed RC") on stderr
 *       and ends with _exit: 0, or 1 when NCCL failed. SIGPIPE is at its
 *       default (death). With closed-stdout, its stdout is a pipe whose read
 *       end is closed, and NCCL's own lines (NCCL logs to stdout, through
 *       stdio, by design, unless NCCL_DEBUG_FILE is set) stay in a 1 MiB
 *       stdio buffer that is never flushed: only a direct write(2) to fd 1,
 *       which is what the plugin did, can raise SIGPIPE (exit 141 in the
 *       shell). Without it, stdout is flushed before the end. With hold,
 *       it prints "held PID" on stdout after NCCL's init and sleeps until
 *       killed, for verify to read it.
 *
 *   plugin-harness errno PLUGIN
 *       ncclEnvPlugin_v1 and ncclEnvPlugin_v2 of PLUGIN, as NCCL calls them:
 *       errno set to 12345 before each of init, getEnv(NCCL_SOCKET_IFNAME)
 *       and finalize, and printed after it ("v1.init errno=12345"); v2's
 *       init gets a logger stub that prints "log LEVEL FLAGS: MESSAGE"
 *       (NCCL_LOG_WARN = 2 is what NCCL copies into ncclLastError).
 *
 *   plugin-harness exit-race PLUGIN RUNS THREADS
 *       RUNS children, each: dlopen PLUGIN, v1 init, an atexit handler that
 *       calls finalize and dlcloses PLUGIN (NCCL 2.28.9's
 *       ncclEnvPluginFinalize, registered with atexit at init), THREADS
 *       threads calling getEnv in a loop, then exit(0) from main while they
 *       run, and more of the exit after NCCL's handler (rest_of_exit).
 *       Prints "crashes: K of RUNS" (children killed by a signal, the
 *       signals after it) and exits 0.
 *
 *   plugin-harness comm-init PLUGIN
 *       Not NCCL: PLUGIN's ncclEnvPlugin_v2 called as NCCL 2.30's
 *       communicator init calls it, on a machine without a GPU to run the
 *       real one. init(2, 30, 7) with a logger (as "log LEVEL FLAGS:
 *       MESSAGE"), then 4 threads (a grouped init's) each ask the six
 *       tuning keys (NCCL_PARAM: once per process; NCCL_PROTO and
 *       NCCL_ALGO at each communicator, src/graph/tuning.cc) for 3
 *       communicators; prints "held PID", then sleeps until killed.
 *
 *   plugin-harness threads PLUGIN THREADS
 *       v1 init, then THREADS threads that ask NCCL_SOCKET_IFNAME and
 *       NCCL_PROTO without end, and 300 names new to the witness each, one
 *       every 20 ms (NCCL_HARNESS_T<thread>_<n>): for 6 s, lines are being
 *       written while verify reads. Prints "held PID" at once; runs until killed.
 *
 *   plugin-harness fork PLUGIN
 *       v1 init and getEnv(NCCL_SOCKET_IFNAME); then a fork(3) child asks
 *       NCCL_CHILD_ASK, the parent NCCL_PARENT_ASK after the child ended,
 *       and a child made by a raw clone(2) (no atfork handlers) asks
 *       NCCL_CLONE_ASK. Each prints its own witness, every line as
 *       "parent: LINE", "child: LINE", "clone: LINE", and "PROC pid PID". */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <dirent.h>
#include <fcntl.h>
#include <time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../../plugin/nccl_env.h"

#define SENTINEL 12345

static void *open_or_die(const char *path)
{
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        fprintf(stderr, "dlopen: %s\n", dlerror());
        exit(2);
    }
    return h;
}

static void *sym_or_die(void *h, const char *name)
{
    void *s = dlsym(h, name);
    if (!s) {
        fprintf(stderr, "dlsym %s: %s\n", name, dlerror());
        exit(2);
    }
    return s;
}

static void held(void);

static int uid(const char *lib, int closed_stdout, int hold)
{
    static char big[1 << 20];
    setvbuf(stdout, big, _IOFBF, sizeof big);
    signal(SIGPIPE, SIG_DFL);
    if (closed_stdout) {
        int p[2];
        if (pipe(p) != 0 || dup2(p[1], 1) != 1) {
            perror("pipe");
            return 2;
        }
        close(p[0]);
        close(p[1]);
    }
    fprintf(stderr, "pid %d\n", (int)getpid());
    int (*get_unique_id)(void *) = (int (*)(void *))sym_or_die(open_or_die(lib), "ncclGetUniqueId");
    char id[128];
    int rc = get_unique_id(id);
    if (!closed_stdout)
        fflush(stdout);
    if (rc != 0)
        fprintf(stderr, "uniqueid: failed %d\n", rc);
    else
        fprintf(stderr, "uniqueid: ok\n");
    fflush(stderr);
    if (hold)
        held();
    _exit(rc != 0);
}

static void logger(ncclDebugLogLevel level, unsigned long flags, const char *file, int line,
                   const char *fmt, ...)
{
    (void)file, (void)line;
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    printf("log %d 0x%lx: %s\n", (int)level, flags, msg);
    errno = EBADF; /* NCCL's logger may change errno: the plugin restores it */
}

#define CHECK_ERRNO(what, call)                                                                   \
    do {                                                                                          \
        errno = SENTINEL;                                                                         \
        call;                                                                                     \
        int e_ = errno;                                                                           \
        printf("%s errno=%d\n", what, e_);                                                        \
    } while (0)

static int errno_mode(const char *plugin)
{
    void *h = open_or_die(plugin);
    const ncclEnv_v1_t *v1 = sym_or_die(h, "ncclEnvPlugin_v1");
    const ncclEnv_v2_t *v2 = sym_or_die(h, "ncclEnvPlugin_v2");
    const char *v = NULL;
    CHECK_ERRNO("v1.init", v1->init(2, 28, 9, ""));
    CHECK_ERRNO("v1.getEnv", v = v1->getEnv("NCCL_SOCKET_IFNAME"));
    printf("v1.getEnv: %s\n", v ? v : "NULL");
    CHECK_ERRNO("v1.finalize", v1->finalize());
    CHECK_ERRNO("v2.init", v2->init(2, 30, 7, "", logger));
    CHECK_ERRNO("v2.getEnv", v = v2->getEnv("NCCL_SOCKET_IFNAME"));
    printf("v2.getEnv: %s\n", v ? v : "NULL");
    CHECK_ERRNO("v2.finalize", v2->finalize());
    return 0;
}

static void *plugin_handle;
static const ncclEnv_v1_t *plugin;
static unsigned long calls;

static void close_plugin(void)
{
    plugin->finalize();
    dlclose(plugin_handle);
}

/* The rest of the process's exit, after NCCL's handler (registered before
 * it, so run after it): a server's exit goes on with other atexit handlers
 * and destructors while its threads still run. Here: until the readers
 * have called getEnv 1000 times more, 200 ms at most. */
static void rest_of_exit(void)
{
    unsigned long from = __atomic_load_n(&calls, __ATOMIC_RELAXED);
    for (int i = 0; i < 2000; i++) {
        if (__atomic_load_n(&calls, __ATOMIC_RELAXED) - from >= 1000)
            return;
        usleep(100);
    }
}

static void *reader(void *arg)
{
    (void)arg;
    for (;;) {
        (void)plugin->getEnv("NCCL_SOCKET_IFNAME");
        __atomic_add_fetch(&calls, 1, __ATOMIC_RELAXED);
    }
    return NULL;
}

static void race_once(const char *path, int threads)
{
    struct rlimit no_core = { 0, 0 };
    setrlimit(RLIMIT_CORE, &no_core);
    plugin_handle = open_or_die(path);
    plugin = sym_or_die(plugin_handle, "ncclEnvPlugin_v1");
    atexit(rest_of_exit);
    plugin->init(2, 28, 9, "");
    atexit(close_plugin);
    for (int i = 0; i < threads; i++) {
        pthread_t t;
        if (pthread_create(&t, NULL, reader, NULL) != 0)
            _exit(2);
    }
    /* every thread well inside its loop */
    while (__atomic_load_n(&calls, __ATOMIC_RELAXED) < (unsigned long)threads * 2000)
        sched_yield();
    exit(0);
}

static int exit_race(const char *path, int runs, int threads)
{
    int crashes = 0, other = 0, by_signal[65] = { 0 };
    for (int i = 0; i < runs; i++) {
        fflush(NULL);
        pid_t p = fork();
        if (p < 0) {
            perror("fork");
            return 2;
        }
        if (p == 0)
            race_once(path, threads);
        int st;
        if (waitpid(p, &st, 0) != p)
            return 2;
        if (WIFSIGNALED(st)) {
            crashes++;
            by_signal[WTERMSIG(st) & 63]++;
        } else if (WEXITSTATUS(st) != 0) {
            other++;
        }
    }
    printf("crashes: %d of %d", crashes, runs);
    for (int s = 1; s < 65; s++)
        if (by_signal[s])
            printf(" (SIG%s: %d)", sigabbrev_np(s) ? sigabbrev_np(s) : "?", by_signal[s]);
    printf("\n");
    if (other)
        printf("other failures: %d\n", other);
    return other ? 1 : 0;
}

static void *tuning_thread(void *arg)
{
    const ncclEnv_v2_t *v2 = arg;
    /* the six keys of the pcie-8gpu profile */
    static const char *const once[] = { "NCCL_P2P_LEVEL", "NCCL_MAX_NCHANNELS", "NCCL_BUFFSIZE",
                                        "NCCL_NTHREADS" };
    for (int comm = 0; comm < 3; comm++) {
        for (size_t i = 0; comm == 0 && i < sizeof once / sizeof once[0]; i++)
            (void)v2->getEnv(once[i]);
        (void)v2->getEnv("NCCL_PROTO");
        (void)v2->getEnv("NCCL_ALGO");
    }
    return NULL;
}

static void held(void)
{
    printf("held %d\n", (int)getpid());
    fflush(stdout);
    for (;;)
        pause();
}

static int comm_init(const char *path)
{
    const ncclEnv_v2_t *v2 = sym_or_die(open_or_die(path), "ncclEnvPlugin_v2");
    setvbuf(stdout, NULL, _IOLBF, 0);
    v2->init(2, 30, 7, "", logger);
    pthread_t t[4];
    for (int i = 0; i < 4; i++)
        if (pthread_create(&t[i], NULL, tuning_thread, (void *)v2) != 0)
            return 2;
    for (int i = 0; i < 4; i++)
        pthread_join(t[i], NULL);
    held();
    return 0;
}

static void *storm(void *arg)
{
    unsigned id = (unsigned)(uintptr_t)arg;
    char name[64];
    struct timespec next;
    clock_gettime(CLOCK_MONOTONIC, &next);
    for (unsigned n = 0;;) {
        (void)plugin->getEnv("NCCL_SOCKET_IFNAME");
        (void)plugin->getEnv("NCCL_PROTO");
        struct timespec now;
        clock_gettime(CLOCK_MONOTONIC, &now);
        if (n < 300 && (now.tv_sec > next.tv_sec ||
                         (now.tv_sec == next.tv_sec && now.tv_nsec >= next.tv_nsec))) {
            snprintf(name, sizeof name, "NCCL_HARNESS_T%u_%u", id, n++);
            (void)plugin->getEnv(name);
            next.tv_nsec += 20000000;
            if (next.tv_nsec >= 1000000000)
                next.tv_sec++, next.tv_nsec -= 1000000000;
        }
    }
    return NULL;
}

static int threads_mode(const char *path, int threads)
{
    plugin = sym_or_die(open_or_die(path), "ncclEnvPlugin_v1");
    plugin->init(2, 28, 9, "");
    for (int i = 0; i < threads; i++) {
        pthread_t t;
        if (pthread_create(&t, NULL, storm, (void *)(uintptr_t)i) != 0)
            return 2;
    }
    held();
    return 0;
}

/* This process's witness, each line after "WHO: ". */
static void print_witness(const char *who)
{
    char link[256], path[300];
    DIR *d = opendir("/proc/self/fd");
    struct dirent *e;
    printf("%s pid %d\n", who, (int)getpid());
    while (d && (e = readdir(d))) {
        snprintf(path, sizeof path, "/proc/self/fd/%s", e->d_name);
        ssize_t n = readlink(path, link, sizeof link - 1);
        if (n < 0)
            continue;
        link[n] = '\0';
        if (strcmp(link, "/memfd:nccl-init-witness (deleted)") != 0)
            continue;
        FILE *f = fopen(path, "r");
        char line[8192];
        while (f && fgets(line, sizeof line, f))
            printf("%s: %s", who, line);
        if (f)
            fclose(f);
    }
    if (d)
        closedir(d);
    fflush(stdout);
}

static int fork_mode(const char *path)
{
    plugin = sym_or_die(open_or_die(path), "ncclEnvPlugin_v1");
    plugin->init(2, 28, 9, "");
    (void)plugin->getEnv("NCCL_SOCKET_IFNAME");
    fflush(stdout);
    pid_t p = fork();
    if (p == 0) {
        (void)plugin->getEnv("NCCL_CHILD_ASK");
        print_witness("child");
        _exit(0);
    }
    waitpid(p, NULL, 0);
    (void)plugin->getEnv("NCCL_PARENT_ASK");
    print_witness("parent");
    /* clone(2) itself: the C library's fork handlers do not run */
    long c = syscall(SYS_clone, SIGCHLD, 0, NULL, NULL, 0);
    if (c == 0) {
        (void)plugin->getEnv("NCCL_CLONE_ASK");
        print_witness("clone");
        _exit(0);
    }
    waitpid((pid_t)c, NULL, 0);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc >= 3 && strcmp(argv[1], "uid") == 0)
        return uid(argv[2], argc > 3 && strcmp(argv[3], "closed-stdout") == 0,
                   argc > 3 && strcmp(argv[3], "hold") == 0);
    if (argc == 3 && strcmp(argv[1], "errno") == 0)
        return errno_mode(argv[2]);
    if (argc == 5 && strcmp(argv[1], "exit-race") == 0)
        return exit_race(argv[2], atoi(argv[3]), atoi(argv[4]));
    if (argc == 3 && strcmp(argv[1], "comm-init") == 0)
        return comm_init(argv[2]);
    if (argc == 4 && strcmp(argv[1], "threads") == 0)
        return threads_mode(argv[2], atoi(argv[3]));
    if (argc == 3 && strcmp(argv[1], "fork") == 0)
        return fork_mode(argv[2]);
    fprintf(stderr, "usage: plugin-harness uid LIBNCCL [closed-stdout] | errno PLUGIN | "
                    "exit-race PLUGIN RUNS THREADS | comm-init PLUGIN | threads PLUGIN THREADS | "
                    "fork PLUGIN\n");
    return 2;
}
