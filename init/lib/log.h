/* Logging: one function, one prefix, stderr only. */
#ifndef NCCL_INIT_LOG_H
#define NCCL_INIT_LOG_H

enum log_level { LOG_ERROR = 0, LOG_WARN = 1, LOG_INFO = 2, LOG_DEBUG = 3 };

extern int log_level;

/* Prints "NAME: [warning: |error: ]MESSAGE\n" when level is enabled;
 * NAME is "nccl-init" unless log_set_name said otherwise. */
void log_msg(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The program name of the lines: nccl-probe links this log too, and its
 * lines must carry its own name. name must outlive the program. */
void log_set_name(const char *name);

/* The single exit path for fatal errors: logs at error level, exits with code. */
_Noreturn void die(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Parses "error|warn|info|debug" (or 0..3); returns -1 when unknown. */
int log_level_parse(const char *s);

#define log_error(...) log_msg(LOG_ERROR, __VA_ARGS__)
#define log_warn(...) log_msg(LOG_WARN, __VA_ARGS__)
#define log_info(...) log_msg(LOG_INFO, __VA_ARGS__)
#define log_debug(...) log_msg(LOG_DEBUG, __VA_ARGS__)

/* Documented exit codes. */
enum {
    EXIT_USAGE = 2,       /* bad option, bad or invalid profile: nothing started */
    EXIT_CANNOT_RUN = 126, /* command found but not executable, or its set-up failed */
    EXIT_NOT_FOUND = 127, /* command not found */
};


/* Diagnostics about a file: "FILE:LINE: error: MSG" (compiler style, so that
 * editors and CI annotators can jump to the line). Counts what it printed.
 * With collect set, each finding goes to it instead of stderr (check
 * --json), with key: the key the findings are about, where the reader
 * knows it (NULL for a line's shape or the file as a whole). */
typedef void diag_collect_fn(void *ctx, int severity, const char *file, unsigned line,
                             const char *key, const char *msg);
struct diag {
    unsigned errors, warnings;
    const char *key;
    diag_collect_fn *collect;
    void *ctx;
};
enum diag_severity { DIAG_ERROR, DIAG_WARNING };
void diag(struct diag *d, int severity, const char *file, unsigned line, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

#endif
