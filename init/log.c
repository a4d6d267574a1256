#include "log.h"

#include <errno.h>
#include "util.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int log_level = LOG_INFO;

static const char *const level_names[] = { "error", "warn", "info", "debug" };

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
    buf_escaped(&b, raw, m.len);
    line[b.len++] = '\n';
    write_all(STDERR_FILENO, line, b.len);
}

static void vlog(int level, const char *fmt, va_list ap)
{
    emit(level == LOG_ERROR ? "nccl-init: error: " : level == LOG_WARN ? "nccl-init: warning: "
                                                                         : "nccl-init: ",
         fmt, ap);
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

/* errno values and texts, one string: the number as a byte, then the text
 * (Linux's numbers; test_util checks them against <errno.h>). */
static const char errors[] =
    "\001Operation not permitted\0\002No such file or directory\0\003No such process\0"
    "\004Interrupted system call\0\005I/O error\0\007Argument list too long\0"
    "\010Exec format error\0\011Bad file descriptor\0\012No child process\0\013Try again\0"
    "\014Out of memory\0\015Permission denied\0\016Bad address\0\020Resource busy\0"
    "\021File exists\0\022Cross-device link\0\024Not a directory\0\025Is a directory\0"
    "\026Invalid argument\0\030Too many open files\0\032Text file busy\0\033File too large\0"
    "\034No space left on device\0\036Read-only file system\0\044Filename too long\0"
    "\046Function not implemented\0\050Symbolic link loop\0\172Quota exceeded\0";

const char *errstr(int err)
{
    static char other[24];
    for (const char *p = errors; *p; p += strlen(p) + 1)
        if ((unsigned char)p[0] == err)
            return p + 1;
    struct buf b = BUF_FIXED(other);
    buf_printf(&b, "error %d", err);
    return other;
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
    char where[512];
    struct buf w = BUF_FIXED(where);
    buf_escaped(&w, file, strlen(file));
    if (line)
        buf_printf(&w, ":%u", line);
    buf_str(&w, severity == DIAG_ERROR ? ": error: " : ": warning: ");
    va_list ap;
    va_start(ap, fmt);
    emit(where, fmt, ap);
    va_end(ap);
}
