#include "lib/log.h"

#include <errno.h>
#include "lib/fileio.h"
#include "lib/text.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int log_level = LOG_INFO;

static const char level_names[][6] = { "error", "warn", "info", "debug" };

/* Writes one line to stderr: prefix, then the message with its control
 * bytes escaped (a value from the environment or a file must not reach an
 * operator's terminal as an escape sequence), then the newline. One write
 * per line: lines from the init and from its children that share stderr
 * must not interleave mid-line. No allocation: it runs while supervising. */
static void emit(const char *prefix, const char *fmt, va_list ap)
{
    char raw[1024], line[1024];
    struct buf m = BUF_FIXED(raw), b = BUF_FIXED(line);
    buf_vprintf(&m, fmt, ap);
    b.cap--; /* room for the newline even when truncated */
    buf_str(&b, prefix);
    buf_escaped(&b, raw, m.len, false);
    line[b.len++] = '\n';
    write_all(STDERR_FILENO, line, b.len);
}

static const char *log_name = "nccl-init";

void log_set_name(const char *name)
{
    log_name = name;
}

static void vlog(int level, const char *fmt, va_list ap)
{
    char prefix[64];
    struct buf p = BUF_FIXED(prefix);
    buf_printf(&p, "%s: %s", log_name,
               level == LOG_ERROR ? "error: " : level == LOG_WARN ? "warning: " : "");
    emit(prefix, fmt, ap);
}

void log_msg(int level, const char *fmt, ...)
{
    if (level > log_level)
        return;
    int saved = errno;
    va_list ap;
    va_start(ap, fmt);
    vlog(level, fmt, ap);
    va_end(ap);
    errno = saved;
}

void die(int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vlog(LOG_ERROR, fmt, ap);
    va_end(ap);
    exit(code);
}

int log_level_parse(const char *s)
{
    for (int i = 0; i < (int)(sizeof level_names / sizeof level_names[0]); i++)
        if (strcmp(s, level_names[i]) == 0 || (s[0] == '0' + i && s[1] == '\0'))
            return i;
    if (strcmp(s, "warning") == 0)
        return LOG_WARN;
    return -1;
}

void diag(struct diag *d, int severity, const char *file, unsigned line, const char *fmt, ...)
{
    if (severity == DIAG_ERROR)
        d->errors++;
    else
        d->warnings++;
    va_list ap;
    if (d->collect) {
        char msg[2048] = "";
        struct buf m = BUF_FIXED(msg);
        va_start(ap, fmt);
        buf_vprintf(&m, fmt, ap);
        va_end(ap);
        d->collect(d->ctx, severity, file, line, d->key, msg);
        return;
    }
    if (severity == DIAG_WARNING && log_level < LOG_WARN)
        return;
    char where[512];
    struct buf w = BUF_FIXED(where);
    buf_escaped(&w, file, strlen(file), false);
    if (line)
        buf_printf(&w, ":%u", line);
    buf_str(&w, severity == DIAG_ERROR ? ": error: " : ": warning: ");
    va_start(ap, fmt);
    emit(where, fmt, ap);
    va_end(ap);
}
