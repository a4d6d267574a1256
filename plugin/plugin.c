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
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/syscall.h>
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

/* The line through NCCL's logger (v2), or, with no logger (v1), on stdout
 * as NCCL's own lines look, when NCCL_DEBUG asks for INFO: built in a stack
 * buffer and written with one write(2), no stdio. */
static void say(ncclDebugLogger_t log)
{
    if (log) {
        log(message_level, NCCL_INIT | NCCL_ENV, __FILE__, __LINE__, "%s", message);
        return;
    }
    const char *d = getenv("NCCL_DEBUG");
    if (!d || (strcasecmp(d, "INFO") != 0 && strcasecmp(d, "TRACE") != 0))
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
    for (size_t off = 0; off < t.len;) {
        ssize_t k = write(1, line + off, t.len - off);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            break;
        off += (size_t)k;
    }
}

static void begin(ncclDebugLogger_t log)
{
    pthread_mutex_lock(&lock);
    if (users++ == 0)
        compose(record_load(&rec, RECORD_ENV));
    say(log);
    pthread_mutex_unlock(&lock);
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
    pthread_mutex_lock(&lock);
    if (users > 0 && --users == 0)
        record_close(&rec);
    pthread_mutex_unlock(&lock);
    return ncclSuccess;
}

static const char *get_env(const char *name)
{
    if (!name)
        return NULL;
    const char *mine = record_find(&rec, name);
    if (mine && rec.enforce)
        return mine;
    const char *theirs = getenv(name);
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
