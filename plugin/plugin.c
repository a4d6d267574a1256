/* libnccl-env.so: an NCCL env plugin that serves nccl-init's record to
 * every NCCL process, whatever its environment holds.
 *
 * NCCL dlopens it at its first init (NCCL_ENV_PLUGIN unset:
 * "libnccl-env.so" from the loader's path; a path: that file; "none": no
 * plugin; src/plugin/env.cc and src/plugin/plugin_open.cc), calls init once,
 * then reads every parameter through getEnv (ncclGetEnv), from any thread.
 * init loads the record (record.c) into static tables; getEnv only reads
 * them:
 *
 *   a key of the record, and the record has NCCL_INIT_ENFORCE=1: the
 *       record's value;
 *   else the process's own getenv(name), when set;
 *   else the record's value; else NULL.
 *
 * NCCL_INIT_* lines are never served. A record that is missing, not trusted
 * or not parsable serves nothing (NCCL's own behaviour, getenv only), and
 * init says why in one log line; init always returns ncclSuccess, since a
 * failure would fail ncclGetUniqueId (NCCL 2.28.9). */
#include "nccl_env.h"
#include "record.h"

#include "lib/paths.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define EXPORT __attribute__((visibility("default")))

/* init and finalize in pairs: two NCCLs in one process (each dlopens the
 * same plugin) share one record, loaded by the first init and closed by
 * the last finalize. */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned users;
static struct record rec = { .fd = -1 };
/* The one line init logs, made when the record is loaded, said again to
 * each NCCL that inits after. */
static char message[768];
static ncclDebugLogLevel message_level;

struct text {
    char *s;
    size_t cap, len;
};

static void add(struct text *t, const char *s, size_t n)
{
    if (t->len + 1 >= t->cap)
        return;
    size_t room = t->cap - 1 - t->len;
    if (n > room)
        n = room;
    memcpy(t->s + t->len, s, n);
    t->len += n;
    t->s[t->len] = '\0';
}

static void adds(struct text *t, const char *s)
{
    add(t, s, strlen(s));
}

__attribute__((format(printf, 2, 3))) static void addf(struct text *t, const char *fmt, ...)
{
    if (t->len + 1 >= t->cap)
        return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(t->s + t->len, t->cap - t->len, fmt, ap);
    va_end(ap);
    if (n > 0)
        t->len += (size_t)n < t->cap - t->len ? (size_t)n : t->cap - 1 - t->len;
}

/* s with its control bytes, backslashes and every byte above ASCII (C1
 * controls come as UTF-8) as \xHH: anything that came from a file, so no
 * record can put a newline or an escape sequence into the log. At most max
 * bytes of s. */
static void add_escaped(struct text *t, const char *s, size_t max)
{
    for (size_t i = 0; s[i] && i < max; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c < 0x20 || c >= 0x7f || c == '\\')
            addf(t, "\\x%02x", c);
        else
            add(t, &s[i], 1);
    }
}

static void compose(int e)
{
    struct text t = { message, sizeof message, 0 };
    message[0] = '\0';
    if (e == 0) {
        message_level = NCCL_LOG_INFO;
        addf(&t, "nccl-init: %zu values from " RECORD_ENV " (profile ", rec.n);
        add_escaped(&t, rec.profile ? rec.profile : "?", 128);
        adds(&t, ", digest ");
        add_escaped(&t, rec.digest, 12);
        addf(&t, "), %s", rec.enforce ? "enforced" : "not enforced");
    } else if (e == -ENOENT) {
        message_level = NCCL_LOG_INFO;
        adds(&t, "nccl-init: no record (");
        add_escaped(&t, rec.why, sizeof rec.why);
        adds(&t, "): NCCL's own environment only");
    } else {
        message_level = NCCL_LOG_WARN;
        adds(&t, "nccl-init: record not used: ");
        add_escaped(&t, rec.why, sizeof rec.why);
        adds(&t, "; NCCL's own environment only");
    }
}

/* NCCL's level from NCCL_DEBUG, as ncclDebugInit parses it (src/debug.cc,
 * v2.28.9-1): VERSION 1 < WARN 2 < INFO 3 < ABORT 4 < TRACE 5, any case;
 * unset or anything else prints nothing (NONE). NCCL reads it with getenv,
 * before any plugin. */
static int debug_level(void)
{
    static const struct {
        const char *name;
        int level;
    } levels[] = {
        { "VERSION", NCCL_LOG_VERSION }, { "WARN", NCCL_LOG_WARN },   { "INFO", NCCL_LOG_INFO },
        { "ABORT", NCCL_LOG_ABORT },     { "TRACE", NCCL_LOG_TRACE },
    };
    const char *d = getenv("NCCL_DEBUG");
    for (size_t i = 0; d && i < sizeof levels / sizeof levels[0]; i++)
        if (strcasecmp(d, levels[i].name) == 0)
            return levels[i].level;
    return NCCL_LOG_NONE;
}

/* NCCL_DEBUG_FILE expanded as ncclDebugInit does: %h the host name (cut at
 * its first '.'), %p the pid, %% a '%', any other %X kept as it is, at most
 * PATH_MAX bytes. False when unset or empty: NCCL then logs to stdout, and
 * the plugin to stderr. */
static bool debug_file(const char *host, char *out, size_t cap)
{
    const char *f = getenv("NCCL_DEBUG_FILE");
    if (!f)
        return false;
    struct text t = { out, cap, 0 };
    out[0] = '\0';
    for (size_t i = 0; f[i]; i++) {
        if (f[i] != '%' || !f[i + 1]) {
            add(&t, &f[i], 1);
            continue;
        }
        char c = f[++i];
        if (c == '%')
            adds(&t, "%");
        else if (c == 'h')
            adds(&t, host);
        else if (c == 'p')
            addf(&t, "%d", (int)getpid());
        else
            add(&t, &f[i - 1], 2);
    }
    return t.len > 0;
}

struct linux_dirent64 {
    uint64_t d_ino;
    int64_t d_off;
    unsigned short d_reclen;
    unsigned char d_type;
    char d_name[];
};

/* The descriptor NCCL writes its debug file through, found among the
 * process's own (/proc/self/fd) by the file the path names now (followed
 * as fopen follows it) and its being open for writing; -1 when there is
 * none. NCCL opened it with fopen "w" at its first log line, before it
 * loaded the plugin ("Successfully loaded external env plugin ..."), with
 * no O_APPEND: a line the plugin appended through a descriptor of its own
 * would be overwritten by NCCL's next line, written at NCCL's own offset.
 * Through NCCL's descriptor, the plugin's line moves that offset on (NCCL's
 * stream is line-buffered: nothing of NCCL's is held back between lines).
 * fd 1, the server's stdout, is never taken. getdents64 by its syscall: no
 * allocation (opendir), and the wrapper is GLIBC_2.30. */
static int nccl_debug_fd(const char *path)
{
    struct statx want, st;
    if (statx(AT_FDCWD, path, 0, STATX_TYPE | STATX_INO, &want) < 0 || !S_ISREG(want.stx_mode))
        return -1;
    int dir = open("/proc/self/fd", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dir < 0)
        return -1;
    int found = -1;
    _Alignas(struct linux_dirent64) char buf[2048];
    long n;
    while (found < 0 && (n = syscall(SYS_getdents64, dir, buf, sizeof buf)) > 0) {
        for (long off = 0; off < n;) {
            const struct linux_dirent64 *d = (const void *)(buf + off);
            off += d->d_reclen;
            char *end;
            long fd = strtol(d->d_name, &end, 10);
            if (*end || end == d->d_name || fd == 1 || fd == dir || fd < 0 || fd > INT_MAX)
                continue;
            if (statx((int)fd, "", AT_EMPTY_PATH, STATX_TYPE | STATX_INO, &st) < 0 ||
                st.stx_ino != want.stx_ino || st.stx_dev_major != want.stx_dev_major ||
                st.stx_dev_minor != want.stx_dev_minor)
                continue;
            int fl = fcntl((int)fd, F_GETFL);
            if (fl < 0 || (fl & O_PATH) || (fl & O_ACCMODE) == O_RDONLY)
                continue;
            found = (int)fd;
            if (!(fl & O_APPEND))
                break; /* fopen "w": NCCL's own */
        }
    }
    close(dir);
    return found;
}

/* All of s[0..n) to fd, without SIGPIPE: a server whose stdout or stderr
 * is a closed pipe must not die of the plugin's line. SIGPIPE is blocked
 * in this thread around the write, and one the write raised (EPIPE) is
 * taken back with sigtimedwait before the mask is restored, unless one was
 * pending already (then it is the process's, and stays). A failed write is
 * dropped. */
static void write_quietly(int fd, const char *s, size_t n)
{
    sigset_t pipe_set, old, pending;
    sigemptyset(&pipe_set);
    sigaddset(&pipe_set, SIGPIPE);
    if (sigprocmask(SIG_BLOCK, &pipe_set, &old) != 0)
        return;
    bool was_pending = sigpending(&pending) == 0 && sigismember(&pending, SIGPIPE);
    bool broken = false;
    for (size_t off = 0; off < n;) {
        ssize_t k = write(fd, s + off, n - off);
        if (k < 0 && errno == EINTR)
            continue;
        if (k < 0 && errno == EPIPE)
            broken = true;
        if (k <= 0)
            break;
        off += (size_t)k;
    }
    if (broken && !was_pending) {
        struct timespec zero = { 0, 0 };
        while (sigtimedwait(&pipe_set, NULL, &zero) < 0 && errno == EINTR)
            ;
    }
    sigprocmask(SIG_SETMASK, &old, NULL);
}

/* The line through NCCL's logger (v2: NCCL decides where, and at which
 * NCCL_DEBUG it shows). With no logger (v1) the plugin writes it itself,
 * as NCCL's own lines look, when NCCL_DEBUG asks for its level (a refused
 * record at WARN and above, the rest at INFO and above): to NCCL_DEBUG_FILE
 * when set (through NCCL's descriptor of it, else appended through one of
 * its own: never truncated), else to stderr; never to stdout, the
 * server's. One write(2) of a stack buffer, no stdio. */
static void say(ncclDebugLogger_t log)
{
    if (log) {
        log(message_level, NCCL_INIT | NCCL_ENV, __FILE__, __LINE__, "%s", message);
        return;
    }
    int level = debug_level();
    if (level < (int)message_level)
        return;
    char host[256];
    if (gethostname(host, sizeof host) != 0)
        strcpy(host, "unknown");
    host[sizeof host - 1] = '\0';
    host[strcspn(host, ".")] = '\0'; /* NCCL cuts it at the first '.' */
    char line[1024];
    struct text t = { line, sizeof line - 1, 0 }; /* room kept for the newline */
    add_escaped(&t, host, sizeof host);
    addf(&t, ":%d:%ld NCCL %s ", (int)getpid(), (long)syscall(SYS_gettid),
         message_level == NCCL_LOG_WARN ? "WARN" : "INFO");
    adds(&t, message);
    line[t.len++] = '\n';
    char path[PATH_MAX + 1];
    int fd = 2, own = -1;
    if (debug_file(host, path, sizeof path)) {
        fd = nccl_debug_fd(path);
        if (fd < 0) {
            /* O_NONBLOCK: a FIFO with no reader fails (ENXIO) rather than
             * hold the server's init; no O_NOFOLLOW, as NCCL's fopen. */
            own = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOCTTY | O_NONBLOCK,
                       0666);
            fd = own >= 0 ? own : 2;
        }
    }
    write_quietly(fd, line, t.len);
    if (own >= 0)
        close(own);
}

/* init, getEnv and finalize leave errno as they found it: NCCL and the
 * server around it may look at errno after a call that did not fail (the
 * record's open leaves ENOENT when there is none). */
static void begin(ncclDebugLogger_t log)
{
    int saved = errno;
    pthread_mutex_lock(&lock);
    if (users++ == 0)
        compose(record_load(&rec, RECORD_ENV));
    say(log);
    pthread_mutex_unlock(&lock);
    errno = saved;
}

static ncclResult_t init_v1(uint8_t major, uint8_t minor, uint8_t patch, const char *suffix)
{
    (void)major, (void)minor, (void)patch, (void)suffix;
    begin(NULL);
    return ncclSuccess;
}

static ncclResult_t init_v2(uint8_t major, uint8_t minor, uint8_t patch, const char *suffix,
                            ncclDebugLogger_t log)
{
    (void)major, (void)minor, (void)patch, (void)suffix;
    begin(log);
    return ncclSuccess;
}

static ncclResult_t finalize(void)
{
    int saved = errno;
    pthread_mutex_lock(&lock);
    if (users > 0 && --users == 0)
        record_close(&rec);
    pthread_mutex_unlock(&lock);
    errno = saved;
    return ncclSuccess;
}

static const char *get_env(const char *name)
{
    if (!name)
        return NULL;
    int saved = errno;
    const char *mine = record_find(&rec, name);
    const char *theirs = mine && rec.enforce ? NULL : getenv(name);
    errno = saved;
    return theirs ? theirs : mine;
}

EXPORT const ncclEnv_v1_t ncclEnvPlugin_v1 = {
    .name = "nccl-init",
    .init = init_v1,
    .finalize = finalize,
    .getEnv = get_env,
};

EXPORT const ncclEnv_v2_t ncclEnvPlugin_v2 = {
    .name = "nccl-init",
    .init = init_v2,
    .finalize = finalize,
    .getEnv = get_env,
};
