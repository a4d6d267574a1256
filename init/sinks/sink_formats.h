/* The text of each sink's managed block, from the resolved set. Pure
 * functions: render prints them, sinks write them. */
#ifndef NCCL_INIT_SINK_FORMATS_H
#define NCCL_INIT_SINK_FORMATS_H

#include "nccl/envset.h"
#include "lib/buf.h"

/* Calls skip(key, why) for each value a format cannot carry exactly; such a
 * value is left out of that sink, never written wrong. */
typedef void skip_fn(const char *sink, const char *key, const char *why);
/* The skip_fn of the sinks and of render: one warning, "sink S: KEY left out: WHY". */
void sink_skip_warn(const char *sink, const char *key, const char *why);

/* pam_env syntax for /etc/environment. */
void format_etc_environment(struct buf *b, const struct envset *s, skip_fn *skip);
/* Where pam_env stops reading a file (pam_env_scan). */
struct pam_env_stop {
    size_t at;       /* the start of the line where it stops (of the first of
                        the lines a '\' joins to it): the last place a block
                        is read at; the file's length when it reads it all */
    unsigned line;   /* that line's number, 1 the first; 0 when none */
    const char *why; /* what stops it there, or NULL */
    size_t len;      /* the bytes from at to the end of the line where it
                        stops (of the lines a '\' joins, all of them),
                        without that line's newline */
    bool joined;     /* the line at offset probe is joined to the one before
                        it (that one ends in '\'): a block there would not
                        be read as its own lines */
};
/* Reads text s[0..n) as Linux-PAM's pam_env reads /etc/environment
 * (1.5.2, Debian 12's: modules/pam_env/pam_env.c, _parse_env_file and
 * _assemble_line): true when it reads every line. pam_env stops for good
 * at a line longer than it takes, at a NUL byte (but for one in a last
 * line without a newline, which ends that line there), and drops a last
 * line that ends in '\'; the lines before stay set. */
bool pam_env_scan(const char *s, size_t n, size_t probe, struct pam_env_stop *st);

/* NCCL's nccl.conf: KEY=VALUE, NCCL_* keys only; first, when plugin is
 * not NULL, NCCL_ENV_PLUGIN=plugin (sinks/env_plugin.h), unless the set
 * carries NCCL_ENV_PLUGIN itself. */
void format_nccl_conf(struct buf *b, const struct envset *s, const char *plugin, skip_fn *skip);
/* The process that writes the record (lib/paths.h, RECORD_WRITER_PID). */
struct record_writer {
    long pid;
    unsigned long long start;
};
/* The record's env-file: every carried variable, RECORD_ENFORCE=1 when
 * s->enforce, and the writer's two lines, each where its key sorts and
 * within RECORD_LINE_MAX (a longer one is skipped). Returns 0, or -EFBIG
 * (more than RECORD_SIZE_MAX bytes) or -E2BIG (more than RECORD_LINES_MAX
 * lines) for a record its readers would refuse: b then holds it all the
 * same, and the caller writes nothing. */
int format_env_file(struct buf *b, const struct envset *s, const struct record_writer *w,
                    skip_fn *skip);
/* The Python site hook; chain: the file is the hook alone (no sitecustomize
 * of the stdlib's own), so after it the hook runs the sitecustomize that it
 * shadows, found at each start on the interpreter's sys.path; record is the
 * path of the record that the hook keeps open (NULL: RECORD_ENV,
 * lib/paths.h). */
void format_python(struct buf *b, const struct envset *s, bool chain, const char *record,
                   skip_fn *skip);

/* Does the variable belong to the resolved set that the sinks carry? */
bool sink_carries(const struct var *v);

#endif
