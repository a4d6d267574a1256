/* A process's witness (lib/witness.h; doc/env-plugin.md, "The witness"):
 * found among its descriptors, read and parsed, for verify to judge by.
 * What another program wrote is input: every read and every allocation
 * is bounded by WITNESS_SIZE_MAX + WITNESS_LINE_MAX bytes of text, and a
 * witness that does not parse, or that another process made, is kept as
 * "not trusted", with why, never used. Nothing here prints. */
#ifndef NCCL_INIT_WITNESS_READ_H
#define NCCL_INIT_WITNESS_READ_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* What NCCL got for a name (an "ask" line's from=). */
enum witness_from { WITNESS_RECORD, WITNESS_ENFORCED, WITNESS_OWN, WITNESS_NONE };

/* An "nccl" line: a libnccl copy that initialised the plugin. */
struct witness_copy {
    unsigned copy;
    const char *version, *suffix, *interface, *lib;
    bool finalized; /* a "finalize" line followed */
};

/* An "ask" line. The strings are decoded (\xHH undone); value is NULL
 * with WITNESS_NONE, own and record NULL where the line has none. */
struct witness_ask {
    unsigned copy; /* 0: asked from outside every copy */
    const char *name, *value, *own, *record;
    enum witness_from from;
    bool cut; /* value was cut at WITNESS_VALUE_KEEP bytes */
};

enum witness_state { WITNESS_ABSENT, WITNESS_TRUSTED, WITNESS_UNTRUSTED };

struct witness {
    enum witness_state state;
    char *why;      /* WITNESS_UNTRUSTED: why, one line; else NULL */
    long long pid;  /* the header's pid; -1 before one parsed */
    long long parent; /* a "fork parent=" line's (the last); -1: none */
    /* the last "record" line, or the last "no-record" line's why */
    bool record;
    const char *rec_path, *rec_digest, *rec_profile;
    bool rec_enforced;
    unsigned long rec_values;
    const char *no_record;
    struct witness_copy *copies; /* in the order of their first line */
    size_t ncopies;
    struct witness_ask *asks; /* in the witness's order */
    size_t nasks;
    /* the other witness descriptors the process holds, one line each
     * ("fd 5: made by pid 12 (inherited)"); NULL: none */
    char *others;
    char *text; /* what the strings above point into */
};

/* Parses a witness's text (len bytes, modified in place and kept in
 * w->text, which takes it): the process that should have made it is pid,
 * as its own PID namespace numbers it, started at start (field 22 of its
 * stat). A last line without '\n' is being written and is left out. Sets
 * w->state to WITNESS_TRUSTED, or to WITNESS_UNTRUSTED with w->why:
 * "unknown format", "made by pid X (inherited)", "malformed at line N:
 * ...", "truncated". Never fails otherwise. */
void witness_parse(struct witness *w, char *text, size_t len, long long pid,
                   unsigned long long start);

/* The witness of the process whose /proc directory is dir (/proc/PID, or
 * /proc/PID/task/TID for one whose main thread has exited), started at
 * start: each descriptor whose link reads WITNESS_LINK, read only when it
 * is a regular file and has O_CLOEXEC (one without crossed an exec: not
 * trusted). With several, the first that is trusted is w, the rest are in
 * w->others. WITNESS_ABSENT when it holds none. 0, or -errno when its
 * descriptors cannot be listed. */
int witness_read(struct witness *w, const char *dir, unsigned long long start);

/* The last ask of name by copy, or NULL: what that copy of NCCL read last. */
const struct witness_ask *witness_last_ask(const struct witness *w, unsigned copy,
                                           const char *name);

/* The copy numbered copy, or NULL. */
const struct witness_copy *witness_copy(const struct witness *w, unsigned copy);

void witness_free(struct witness *w);

#endif
