/* Profiles: KEY=VALUE env-files read the same way by docker --env-file,
 * kubectl --from-env-file and NCCL's nccl.conf. */
#ifndef NCCL_INIT_PROFILE_H
#define NCCL_INIT_PROFILE_H

#include "lib/log.h"
#include "lib/strmap.h"

#include <stdbool.h>
#include <stddef.h>

#define PROFILE_MAX_LINE 4095       /* bytes, without the newline */
#define PROFILE_MAX_SIZE (1 << 20)  /* a profile is a handful of lines */

struct entry {
    const char *key, *value;
    const char *file; /* as named in diagnostics */
    unsigned line;
    const char *profile; /* name of the profile it came from */
};

struct profile {
    char *name; /* "pcie-8gpu" */
    char *path; /* where it was read */
    char *text; /* the file, split in place; entries point into it */
    struct entry *v;
    size_t n, cap;
    struct strmap keys; /* each key's index in v */
};

/* Parses text (len bytes, NUL-terminated, modified in place) into p->v.
 * Every problem is reported through d as PATH:LINE; returns the number of
 * errors found. p->path and p->name must already be set. check, when not
 * NULL, sees each accepted line at once, so that value errors come out in
 * line order with the syntax errors. */
typedef void entry_fn(const struct entry *e, void *ctx);
unsigned profile_parse(struct profile *p, char *text, size_t len, struct diag *d,
                       entry_fn *check, void *ctx);

/* Resolves SPEC (a name looked up as DIR/NAME.env, or a path when it has a
 * '/' or ends in ".env"), reads and parses it. Returns the number of
 * errors, reading failures included. */
unsigned profile_load(struct profile *p, const char *spec, const char *dir, struct diag *d,
                      entry_fn *check, void *ctx);

void profile_free(struct profile *p);

/* True for [A-Za-z_][A-Za-z0-9_]*: what docker, pam_env and shells accept. */
bool key_valid(const char *s, size_t n);

/* The one reader of KEY=VALUE text: profiles (profile_parse), and verify's
 * reading of the record and of nccl.conf files. It splits lines and the
 * first '=' and nothing more; what a line must be is each caller's rule. */
struct kv_reader {
    char *at, *end;
    unsigned line;
};

/* One line: neither empty nor a comment ('#' at column 0), which every
 * reader of these files skips. */
struct kv_line {
    char *key;        /* the line, NUL-terminated at the first '=' */
    size_t key_len;   /* bytes before the '='; the whole line when it has none */
    char *value;      /* after the '=', NUL-terminated; NULL: the line has no '=' */
    size_t value_len; /* a NUL inside the line is counted, not an end */
    size_t len;       /* the whole line, without its newline */
    unsigned line;    /* 1-based */
};

/* Reads text, len bytes, splitting it in place: each newline and the first
 * '=' of a line become NULs, and text[len] must be writable (a NUL). */
void kv_begin(struct kv_reader *r, char *text, size_t len);
/* The next line; false at the end of the text. */
bool kv_next(struct kv_reader *r, struct kv_line *l);

#endif
