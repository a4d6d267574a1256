#include "lib/log.h"

#include <errno.h>
#include "lib/fileio.h"
#include "lib/text.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int log_level = LOG_INFO;

static const char level_names[][6] = { "error", "warn", "info", "debug" };

/* A line's bytes in all (its newline included), and the room its cut
 * marker takes: " [+N bytes cut]", N a size_t, at most 20 digits. */
#define LOG_LINE 1024
#define LOG_MARK " [+%zu bytes cut]"
#define LOG_MARK_ROOM (sizeof " [+ bytes cut]" - 1 + 20)

/* Writes one line to stderr: prefix, then the message with its control
 * and spoofing characters and its backslashes escaped (a value from the
 * environment or a file must not reach an operator's terminal as an
 * escape sequence, nor read as one), then the newline. A message that
 * does not fit ends in " [+N bytes cut]", N the bytes of it left out,
 * cut between two characters. One write per line: lines from the init
 * and from its children that share stderr must not interleave mid-line.
 * No allocation: it runs while supervising. */
static void emit(const char *prefix, const char *fmt, va_list ap)
{
    char raw[4 * LOG_LINE], line[LOG_LINE];
    int full = vsnprintf(raw, sizeof raw, fmt, ap);
    size_t n = full < 0 ? 0 : (size_t)full < sizeof raw ? (size_t)full : sizeof raw - 1;
    struct buf b = BUF_FIXED(line);
    buf_str(&b, prefix);
    size_t at = b.len, limit = sizeof line - 2; /* the newline and the NUL */
    size_t took = buf_escaped_fit(&b, raw, n, true, limit);
    if (full > 0 && took < (size_t)full) {
        b.len = at;
        took = buf_escaped_fit(&b, raw, n, true, limit - LOG_MARK_ROOM);
        buf_printf(&b, LOG_MARK, (size_t)full - took);
    }
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
    buf_escaped_fit(&w, file, strlen(file), true, sizeof where - 32); /* room for :LINE: ... */
    if (line)
        buf_printf(&w, ":%u", line);
    buf_str(&w, severity == DIAG_ERROR ? ": error: " : ": warning: ");
    va_start(ap, fmt);
    emit(where, fmt, ap);
    va_end(ap);
}
