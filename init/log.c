#include "log.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int log_level = LOG_INFO;

static const char *const level_names[] = { "error", "warn", "info", "debug" };

static void vlog(int level, const char *fmt, va_list ap)
{
    /* One write per line: lines from the init and from its children that
     * share stderr must not interleave mid-line. */
    char buf[1024];
    int n = snprintf(buf, sizeof buf, "nccl-init: %s",
                     level == LOG_ERROR ? "error: " : level == LOG_WARN ? "warning: " : "");
    if (n < 0)
        return;
    int m = vsnprintf(buf + n, sizeof buf - (size_t)n, fmt, ap);
    if (m < 0)
        return;
    size_t len = (size_t)n + (size_t)m;
    if (len > sizeof buf - 2)
        len = sizeof buf - 2;
    buf[len++] = '\n';
    fwrite(buf, 1, len, stderr);
    fflush(stderr);
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
    char buf[1024];
    int n = line ? snprintf(buf, sizeof buf, "%s:%u: %s: ", file, line,
                            severity == DIAG_ERROR ? "error" : "warning")
                 : snprintf(buf, sizeof buf, "%s: %s: ", file,
                            severity == DIAG_ERROR ? "error" : "warning");
    if (n < 0 || (size_t)n >= sizeof buf)
        n = 0;
    va_list ap;
    va_start(ap, fmt);
    int m = vsnprintf(buf + n, sizeof buf - (size_t)n, fmt, ap);
    va_end(ap);
    if (m < 0)
        m = 0;
    size_t len = (size_t)n + (size_t)m;
    if (len > sizeof buf - 2)
        len = sizeof buf - 2;
    buf[len++] = '\n';
    fwrite(buf, 1, len, stderr);
    fflush(stderr);
}
