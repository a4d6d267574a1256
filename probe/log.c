/* nccl-probe: init/log.h for the nccl-init sources the probe links
 * (detect.c and its helpers), which report through log_msg and die. Their
 * lines carry the probe's name, not the init's: init/log.c would print
 * "nccl-init:". die is common.c's, shared with the probe's own errors. */
#include "lib/log.h"
#include "lib/fileio.h"
#include "lib/text.h"

#include <errno.h>
#include <stdarg.h>
#include <string.h>
#include <unistd.h>

/* The probe has no --log-level: warnings and errors. */
int log_level = LOG_WARN;

/* One line on stderr, control bytes escaped, as init/log.c writes it: a
 * rules file's text must not reach a terminal as an escape sequence. */
void log_msg(int level, const char *fmt, ...)
{
    if (level > log_level)
        return;
    int saved = errno;
    char raw[1024], line[1024];
    struct buf m = BUF_FIXED(raw), b = BUF_FIXED(line);
    va_list ap;
    va_start(ap, fmt);
    buf_vprintf(&m, fmt, ap);
    va_end(ap);
    b.cap--; /* room for the newline even when truncated */
    buf_str(&b, level == LOG_ERROR  ? "nccl-probe: error: "
                : level == LOG_WARN ? "nccl-probe: warning: "
                                    : "nccl-probe: ");
    buf_escaped(&b, raw, m.len, false);
    line[b.len++] = '\n';
    write_all(STDERR_FILENO, line, b.len);
    errno = saved;
}

