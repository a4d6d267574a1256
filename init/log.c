#include "log.h"

#include <errno.h>
#include "util.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int log_level = LOG_INFO;

static const char *const level_names[] = { "error", "warn", "info", "debug" };

static void vlog(int level, const char *fmt, va_list ap)
{
    /* One write per line: lines from the init and from its children that
     * share stderr must not interleave mid-line. */
    char line[1024];
    struct buf b = BUF_FIXED(line);
    b.cap--; /* room for the newline even when truncated */
    buf_str(&b, "nccl-init: ");
    buf_str(&b, level == LOG_ERROR ? "error: " : level == LOG_WARN ? "warning: " : "");
    buf_vprintf(&b, fmt, ap);
    line[b.len++] = '\n';
    write_all(STDERR_FILENO, line, b.len);
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
    if (severity == DIAG_WARNING && log_level < LOG_WARN)
        return;
    char text[1024];
    struct buf b = BUF_FIXED(text);
    b.cap--; /* room for the newline even when truncated */
    buf_str(&b, file);
    if (line)
        buf_printf(&b, ":%u", line);
    buf_str(&b, severity == DIAG_ERROR ? ": error: " : ": warning: ");
    va_list ap;
    va_start(ap, fmt);
    buf_vprintf(&b, fmt, ap);
    va_end(ap);
    text[b.len++] = '\n';
    write_all(STDERR_FILENO, text, b.len);
}
