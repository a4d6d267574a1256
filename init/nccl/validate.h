/* Checks profile entries against what NCCL really does with them. */
#ifndef NCCL_INIT_VALIDATE_H
#define NCCL_INIT_VALIDATE_H

#include "lib/buf.h"
#include "lib/log.h"
#include "lib/paths.h"
#include "nccl/profile.h"

#include <stdbool.h>

/* nccl_lib.h: the names validate_entry checks a key against. */
struct known_names;

/* Would NCCL's nccl.conf reader cut KEY=VALUE (NCCL_CONF_MAX, lib/paths.h)? */
bool nccl_conf_cuts(const char *key, const char *value);

/* What NCCL 2.28.9 makes of one value: the reading every check is based
 * on, and what render --format json reports as "nccl". */
enum nccl_reads {
    NR_NONE,    /* a name NCCL does not read, or text it takes as written */
    NR_UNSET,   /* NCCL treats it as not set (empty, or a level it ignores) */
    NR_DEFAULT, /* ncclLoadParam: out of range for int64, "using default" */
    NR_INT,     /* value: what NCCL's parser returns ("set by environment to") */
    NR_LEVEL,   /* value: the index of the path level in the rule's tokens */
    NR_LIST,    /* matrix: the protocols or algorithms each collective may use */
    NR_INVALID, /* parseList fails: ncclInvalidUsage */
    NR_CRASH,   /* NCCL dereferences NULL or indexes out of bounds on it */
};
enum nccl_uses {
    NU_NONE,      /* nothing to say beyond the reading */
    NU_VALUE,     /* used: the integer NCCL ends up using */
    NU_DEFAULT,   /* NCCL's own default (or automatic choice) applies */
    NU_FAILS,     /* NCCL's set-up fails on it */
    NU_UNDEFINED, /* NCCL gives it no consistent meaning */
};
#define NCCL_FUNCS 5   /* Broadcast, Reduce, AllGather, ReduceScatter, AllReduce */
#define NCCL_TOKENS 7  /* the most tokens a list has (NCCL_ALGO) */
struct nccl_reading {
    int rule; /* enum rule_id, or -1 */
    unsigned char reads, uses;
    long long value, used;
    /* NR_LIST: 0 off, 1 on, 2 left to NCCL (LL128's default) */
    unsigned char matrix[NCCL_FUNCS][NCCL_TOKENS];
};

/* Fills r for KEY=VALUE; r->rule is -1 for a name NCCL 2.28.9 does not read. */
void nccl_read(const char *key, const char *value, struct nccl_reading *r);
/* Appends ', "nccl": {...}' for a value NCCL reads as a number, a level or
 * a list; nothing otherwise. */
void nccl_reading_json(struct buf *b, const char *key, const char *value);

/* Would a profile line KEY=VALUE be an error by NCCL's rules (a value NCCL
 * misreads, ignores or fails on)? If so, appends the finding's text (what
 * check says after "KEY=VALUE: ") to why. For an environment value that
 * beats the profile's under --strict. With every release applied: only a
 * value that each release reading the key refuses. */
bool nccl_refuses(const char *key, const char *value, struct buf *why);

/* The NCCL release the checks, the readings and the sinks apply: an index
 * into nccl_releases (releases.h), or RELEASE_ALL (every known release,
 * the default). Set once, from the command line, before any check. */
void validate_release(int release);
int validate_applied_release(void);

/* Checks one KEY=VALUE. severity is DIAG_ERROR for profiles; for values that
 * come from the environment the same findings are reported as warnings. */
void validate_entry(const struct entry *e, const struct known_names *k, int severity,
                    struct diag *d);

/* Warns when SGLang or vLLM set or remove e's key themselves
 * (servers.c): whether the profile's value still reaches them. */
void validate_servers(const struct entry *e, struct diag *d);

/* Checks a whole set for combinations that do nothing (warnings only). */
void validate_set(const struct entry *const *set, size_t n, struct diag *d);

#endif
