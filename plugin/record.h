/* The record (/run/nccl-init/profile.env) as the env plugin takes it: opened
 * only through directories no one else can change, checked before anything
 * can block, read once into static storage and parsed strictly. Nothing here
 * allocates: the plugin runs inside every NCCL process, at its first init. */
#ifndef NCCL_INIT_PLUGIN_RECORD_H
#define NCCL_INIT_PLUGIN_RECORD_H

#include <stdbool.h>
#include <stddef.h>

/* Room for the reason a record was not used, and for its path. */
#define RECORD_WHY_MAX 256

struct record_entry {
    const char *key;
    const char *value;
};

struct record {
    /* The values served: every line but NCCL_INIT_*, sorted by key (strcmp),
     * pointing into the static text. */
    const struct record_entry *v;
    size_t n;
    bool enforce;        /* NCCL_INIT_ENFORCE=1 */
    const char *profile; /* NCCL_INIT_PROFILE, or NULL */
    const char *digest;  /* NCCL_INIT_DIGEST */
    const char *writer;  /* NCCL_INIT_PID, or NULL */
    const char *start;   /* NCCL_INIT_START, or NULL */
    int fd;              /* O_PATH of the record while it is used, else -1 */
    char why[RECORD_WHY_MAX]; /* why not, when it is not used */
};

/* Opens, checks, reads and parses the record at the absolute path, and
 * checks that its writer still runs (record_writer_runs). Returns 0 when
 * it is used (r->fd holds it), -ENOENT when there is none (no file, or a
 * directory on the way is missing), another -errno when it is there but
 * refused; r->why says why in either case. Whatever fails, r serves
 * nothing (r->n == 0) and holds no descriptor. */
int record_load(struct record *r, const char *path);

/* Whether the process the parsed record names as its writer
 * (NCCL_INIT_PID, NCCL_INIT_START) runs: PROC/PID/stat is there, not a
 * zombie, with that start time. 0, or -ESRCH (it does not: a run that has
 * ended, or an older record put back) or another -errno (it cannot be
 * told), with r->why. proc is "/proc" but in the unit tests. */
int record_writer_runs(struct record *r, const char *proc);

/* Field 22 of a /proc/PID/stat line (the start time), and its state (field
 * 3): after the last ')', since the command name may hold ')' and spaces.
 * The witness takes its own process's start time with it too. */
bool record_stat_start(const char *line, char *state, unsigned long long *start);

/* Parses text[0..len) in place (values NUL-terminated where the '=' and the
 * newlines were) into r's tables: 0, or -EINVAL with r->why. r->v is the
 * module's static index: one parsed record at a time. */
int record_parse(struct record *r, char *text, size_t len);

/* The record's value of a served key, or NULL. Reads only. */
const char *record_find(const struct record *r, const char *key);

/* Closes r's descriptor and serves nothing. */
void record_close(struct record *r);

#endif
