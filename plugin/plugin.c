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
 * failure would fail ncclGetUniqueId (NCCL 2.28.9).
 *
 * Every answer, once computed, goes to the witness (witness.c): the
 * process's own record of what NCCL asked and got, which verify reads.
 * It never changes an answer. */
#include "nccl_env.h"
#include "record.h"
#include "text.h"
#include "witness.h"

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
 * each NCCL that inits after. Both are only used under lock. */
static char message[768];
static ncclDebugLogLevel message_level;

static void compose(int e)
{
    struct text t = { message, sizeof message, 0 };
    message[0] = '\0';
    if (e == 0) {
        message_level = NCCL_LOG_INFO;
        text_addf(&t, "nccl-init: %zu values from " RECORD_ENV " (profile ", rec.n);
        text_escaped(&t, rec.profile ? rec.profile : "?", 128, false);
        text_adds(&t, ", digest ");
        text_escaped(&t, rec.digest, 12, false);
        text_addf(&t, "), %s", rec.enforce ? "enforced" : "not enforced");
    } else if (e == -ENOENT || e == -ESRCH) {
        /* None, or one whose run has ended (record_writer_runs): what a
         * host shows once nccl-init has stopped, not a fault; INFO, so
         * nothing reaches ncclLastError (v2) or a WARN-level log. */
        message_level = NCCL_LOG_INFO;
        text_adds(&t, "nccl-init: no record (");
        text_escaped(&t, rec.why, sizeof rec.why, false);
        text_adds(&t, "): NCCL's own environment only");
    } else {
        message_level = NCCL_LOG_WARN;
        text_adds(&t, "nccl-init: record not used: ");
        text_escaped(&t, rec.why, sizeof rec.why, false);
        text_adds(&t, "; NCCL's own environment only");
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
            text_add(&t, &f[i], 1);
            continue;
        }
        char c = f[++i];
        if (c == '%')
            text_adds(&t, "%");
        else if (c == 'h')
            text_adds(&t, host);
        else if (c == 'p')
            text_addf(&t, "%d", (int)getpid());
        else
            text_add(&t, &f[i - 1], 2);
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
static void say(ncclDebugLogger_t log, ncclDebugLogLevel level, const char *text)
{
    if (log) {
        log(level, NCCL_INIT | NCCL_ENV, __FILE__, __LINE__, "%s", text);
        return;
    }
    if (debug_level() < (int)level)
        return;
    char host[256];
    if (gethostname(host, sizeof host) != 0)
        strcpy(host, "unknown");
    host[sizeof host - 1] = '\0';
    host[strcspn(host, ".")] = '\0'; /* NCCL cuts it at the first '.' */
    char line[1024];
    struct text t = { line, sizeof line - 1, 0 }; /* room kept for the newline */
    text_escaped(&t, host, sizeof host, false);
    text_addf(&t, ":%d:%ld NCCL %s ", (int)getpid(), (long)syscall(SYS_gettid),
         level == NCCL_LOG_WARN ? "WARN" : "INFO");
    text_adds(&t, text);
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

/* Said once, at the first init after the witness could not be made. */
static char no_witness[128];

/* The witness, made at the first init of the process: when it cannot be,
 * the answers are the same, and one WARN line says that verify cannot see
 * them. */
static void open_witness(void)
{
    static bool tried;
    if (tried)
        return;
    tried = true;
    int e = witness_open();
    if (e < 0)
        snprintf(no_witness, sizeof no_witness,
                 "nccl-init: no witness (memfd_create: %s): verify cannot show what NCCL reads",
                 strerror(-e));
}

/* init, getEnv and finalize leave errno as they found it: NCCL and the
 * server around it may look at errno after a call that did not fail (the
 * record's open leaves ENOENT when there is none). caller: the code of the
 * NCCL copy that called init, which the witness names. */
static void begin(ncclDebugLogger_t log, const void *caller, int interface, uint8_t major,
                  uint8_t minor, uint8_t patch, const char *suffix)
{
    int saved = errno;
    pthread_mutex_lock(&lock);
    if (users++ == 0) {
        int e = record_load(&rec, RECORD_ENV);
        compose(e);
        open_witness();
        witness_record(&rec, e, message_level == NCCL_LOG_WARN);
    }
    say(log, message_level, message);
    if (no_witness[0]) {
        say(log, NCCL_LOG_WARN, no_witness);
        no_witness[0] = '\0';
    }
    witness_nccl(caller, interface, major, minor, patch, suffix);
    pthread_mutex_unlock(&lock);
    errno = saved;
}

/* The caller's address, as the witness takes it: in the NCCL copy whose
 * code called (NCCL's calls into its plugin are not tail calls: it checks
 * what they return). */
#define CALLER __builtin_extract_return_addr(__builtin_return_address(0))

static ncclResult_t init_v1(uint8_t major, uint8_t minor, uint8_t patch, const char *suffix)
{
    begin(NULL, CALLER, 1, major, minor, patch, suffix);
    return ncclSuccess;
}

static ncclResult_t init_v2(uint8_t major, uint8_t minor, uint8_t patch, const char *suffix,
                            ncclDebugLogger_t log)
{
    begin(log, CALLER, 2, major, minor, patch, suffix);
    return ncclSuccess;
}

static ncclResult_t finalize(void)
{
    int saved = errno;
    pthread_mutex_lock(&lock);
    witness_finalize(CALLER);
    if (users > 0 && --users == 0)
        record_close(&rec);
    pthread_mutex_unlock(&lock);
    errno = saved;
    return ncclSuccess;
}

/* The answer, as before the witness; then the witness writes it down. The
 * process's own value is read even when the record is enforced, for the
 * witness's own=. */
static const char *get_env(const char *name)
{
    if (!name)
        return NULL;
    int saved = errno;
    const char *mine = record_find(&rec, name);
    const char *theirs = getenv(name);
    const char *answer;
    enum witness_from from;
    if (mine && rec.enforce)
        answer = mine, from = theirs ? WITNESS_ENFORCED : WITNESS_RECORD;
    else if (theirs)
        answer = theirs, from = WITNESS_OWN;
    else if (mine)
        answer = mine, from = WITNESS_RECORD;
    else
        answer = NULL, from = WITNESS_NONE;
    witness_ask(CALLER, name, from, theirs, mine);
    errno = saved;
    return answer;
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
