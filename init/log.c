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

static const struct {
    unsigned char err;
    char text[27];
} errors[] = {
    { EPERM, "Operation not permitted" },   { ENOENT, "No such file or directory" },
    { ESRCH, "No such process" },           { EINTR, "Interrupted system call" },
    { EIO, "I/O error" },                   { E2BIG, "Argument list too long" },
    { ENOEXEC, "Exec format error" },       { EBADF, "Bad file descriptor" },
    { ECHILD, "No child process" },         { EAGAIN, "Try again" },
    { ENOMEM, "Out of memory" },            { EACCES, "Permission denied" },
    { EFAULT, "Bad address" },              { EBUSY, "Resource busy" },
    { EEXIST, "File exists" },              { EXDEV, "Cross-device link" },
    { ENOTDIR, "Not a directory" },         { EISDIR, "Is a directory" },
    { EINVAL, "Invalid argument" },         { EMFILE, "Too many open files" },
    { ETXTBSY, "Text file busy" },          { EFBIG, "File too large" },
    { ENOSPC, "No space left on device" },  { EROFS, "Read-only file system" },
    { ENAMETOOLONG, "Filename too long" },  { ELOOP, "Symbolic link loop" },
    { EDQUOT, "Quota exceeded" },           { ENOSYS, "Function not implemented" },
};

const char *errstr(int err)
{
    static char other[24];
    for (size_t i = 0; i < ARRAY_SIZE(errors); i++)
        if (errors[i].err == err)
            return errors[i].text;
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
