/* What NCCL 2.28.9 accepts: its parameter names and how it parses values.
 * Pure data; validate.c interprets it. */
#ifndef NCCL_INIT_NCCL_TABLE_H
#define NCCL_INIT_NCCL_TABLE_H

#include <stddef.h>

enum value_kind {
    V_STRING, /* free text (paths, interface lists, plugin names): not checked */
    V_INT,    /* strtoll(s, NULL, 0) with no end check: must be plain decimal */
    V_LIST,   /* comma list of tokens, case-insensitive, optional '^' */
    V_LEVEL,  /* one case-sensitive path level, or a legacy integer >= 0 */
    V_ENUM,   /* one token, case-insensitive */
};

enum rule_flags {
    F_RANGE = 1,      /* min..max apply */
    F_NEGATE = 2,     /* a leading '^' excludes the listed tokens */
    F_FUNCS = 4,      /* "[func:]list;func:list" per-collective syntax (>= 2.24) */
};

struct value_rule {
    unsigned char kind, flags;
    short step;           /* multiple of, for integers; 0 = any */
    long long min, max;
    const char *tokens;   /* comma-separated, for V_LIST, V_LEVEL, V_ENUM */
    const char *on_bad;   /* what NCCL does with a bad value */
};

enum rule_id {
    R_STRING, R_INT, R_BYTES, R_NTHREADS, R_LL128_NTHREADS, R_CHANNELS, R_MIN_CHANNELS,
    R_BOOL, R_0_2, R_IB_TIMEOUT, R_IB_RETRY, R_IB_SL, R_IB_TC, R_IB_QPS, R_GID, R_CUMEM,
    R_PROTO, R_ALGO, R_LEVEL, R_DEBUG, R_SUBSYS,
};

extern const struct value_rule value_rules[];
/* Sorted; each entry: rule id + 1, the name without "NCCL_", NUL. An empty
 * entry ends the list. */
extern const char nccl_names[];

/* A parameter that has no effect under some NCCL_PROTO restriction. */
struct noop_rule {
    const char *key;
    const char *proto;    /* protocol that must be excluded */
    long long min_value;  /* and the value at least this */
    const char *why;
};
extern const struct noop_rule noop_rules[];
extern const size_t noop_rules_count;

/* The collectives that may prefix a per-function NCCL_PROTO/NCCL_ALGO list. */
extern const char nccl_collectives[];

/* The rule id for a name NCCL 2.28.9 reads, or -1. */
int nccl_param_rule(const char *name);

#endif
