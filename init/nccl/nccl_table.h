/* What NCCL 2.28.9 accepts: its parameter names and how it reads each value.
 * Pure data; validate.c is the one engine that interprets it. The names
 * are those of init/nccl/nccl_params.tsv (scripts/nccl-params.py over the source
 * tag v2.28.9-1), and tests/unit/nccl/test_validate.c holds the two together.
 * The rules after R_GRAPH_FILE are the later releases' readings (2.29.7,
 * 2.30.7); the generated releases table (releases.h) says which release
 * reads which key by them. */
#ifndef NCCL_INIT_NCCL_TABLE_H
#define NCCL_INIT_NCCL_TABLE_H

#include <stddef.h>

/* The NCCL release this table describes. */
#define NCCL_TABLE_VERSION "2.28.9"

enum value_kind {
    V_STRING, /* text NCCL takes as written (paths, names, interface lists) */
    V_INT,    /* an integer: ncclLoadParam's strtoll(s, NULL, 0), or a direct strtol */
    V_LIST,   /* parseList (graph/tuning.cc): "[func:]tok,tok;func:^tok" */
    V_LEVEL,  /* ncclGetLevel (graph/paths.cc): a path level, or a legacy number */
    V_ENUM,   /* exactly one of the tokens */
    V_MASK,   /* debug.cc's strtok lists: "[^]tok,tok", unknown names skipped */
    V_UNREAD, /* declared with NCCL_PARAM but never read: no effect at all */
    /* The later releases' readings (releases.h says which release uses which): */
    V_POLICY, /* a leading digit alone, or '|' tokens, unknown ones ignored (2.29.2 CTA policy) */
    V_BOOL,   /* the 2.30 registry's bool: exactly 1|T|TRUE|0|F|FALSE, letters in any case */
    V_HCA,    /* NCCL_IB_HCA: "[^][=]hca[:port...]" entries, comma-separated */
    V_NAMES,  /* NCCL_NO_CACHE: full names or one of the tokens, comma-separated */
};

/* The C type NCCL keeps an integer in once it has parsed it as int64. */
enum c_type { C_I64, C_I32, C_U32, C_U16, C_U8 };

/* What NCCL does with an integer below min or above max. */
enum out_of_range {
    O_NONE,    /* nothing: NCCL has no limit (only the C type applies) */
    O_CLAMP,   /* uses the nearest of min and max */
    O_AS,      /* uses the rule's fixed value (as_low below min, as_high above max) */
    O_DEFAULT, /* ignores it: its own default applies */
    O_FAIL,    /* communicator set-up fails (the rule's text says where) */
    O_UNDEF,   /* NCCL gives it no consistent meaning (the rule's text says why) */
};

enum rule_flags {
    F_FUNCS = 1,        /* V_LIST: per-collective "func:" prefixes */
    F_CASE = 2,         /* V_ENUM, V_LEVEL: tokens compared case-sensitively */
    F_STRTOL = 4,       /* V_INT read with a bare strtol: overflow gives LONG_MAX, not the default */
    F_EMPTY_ERR = 8,    /* V_STRING, V_MASK: an empty value changes what NCCL does (text says how) */
    F_HIGH_WARN = 16,   /* V_INT: above max is only a warning (NCCL reads it as max) */
    F_STEP_HIGH = 32,   /* V_INT: not a multiple of step: NCCL uses max (getNthreads) */
    F_NONPOS_DEF = 64,  /* V_INT: zero or negative: NCCL uses its default (getNthreads) */
    F_MIN2 = 128,       /* V_STRING: NCCL ignores values shorter than 2 bytes */
    F_POW2 = 256,       /* V_INT: not a power of two: NCCL uses its default */
    F_TRIM = 512,       /* V_ENUM, V_MASK, V_NAMES: white space around the value or each
                           token is trimmed (the 2.30 registry's parsers) */
    F_WHOLE = 1024,     /* V_MASK: one unknown token discards the whole value */
    F_P2C = 2048,       /* V_LEVEL: a level below P2C turns GDR off on CPU-attached NICs */
    F_ANYPORT = 4096,   /* V_HCA: an empty port means any port (else port 0) */
};

struct value_rule {
    unsigned char kind, ctype, low, high; /* low/high: enum out_of_range */
    unsigned short flags;
    unsigned char step;         /* V_INT: a multiple of this; 0 = any */
    int as_low, as_high;        /* O_AS: the value NCCL uses instead */
    long long min, max;         /* V_INT: what NCCL uses as written */
    int special_lo, special_hi; /* V_INT: also accepted (-2 "default", -1 "auto"); lo > hi: none */
    const char *tokens;         /* V_LIST, V_LEVEL, V_ENUM, V_MASK: comma-separated */
    const char *text;           /* what NCCL does with a bad (or empty, F_EMPTY_ERR) value */
};

/* Rule ids, one per distinct way of reading. Each rule in nccl_table.c says
 * where in NCCL 2.28.9 it comes from; those after R_RAS_ADDR are the later
 * releases' (and R_IB_HCA 2.28.9's port rule), which the generated
 * releases table assigns per release. */
enum rule_id {
    R_STRING, R_STRING_EMPTY_SAME, R_UNREAD,
    R_I64, R_I32, R_U32, R_U16, R_SIZE_I32,
    R_SWITCH_ONE, R_SWITCH, R_SWITCH_I32, R_SWITCH_AUTO1, R_SWITCH_DEFAULT2,
    R_P2P_DISABLE, R_COLLNET_ENABLE, R_WARN_DEBUG_INFO,
    R_BUFFSIZE, R_NTHREADS, R_LL128_NTHREADS, R_MIN_NCHANNELS, R_MAX_NCHANNELS, R_CTAS,
    R_MIN_P2P_NCHANNELS, R_MAX_P2P_NCHANNELS, R_CTA_POLICY, R_BLOCKING, R_CGA_CLUSTER,
    R_CONFIG_POSITIVE, R_CONFIG_01, R_SPLIT_SHARE, R_CUMEM, R_NVLS_ENABLE, R_MNNVL_ENABLE,
    R_PAT_ENABLE, R_CROSS_NIC, R_PXN_DISABLE, R_P2P_PXN_LEVEL, R_IGNORE_DISABLED_P2P,
    R_NET_GDR_READ, R_IB_TIMEOUT, R_IB_RETRY, R_IB_SL, R_IB_TC, R_IB_GID, R_IB_QPS, R_IB_ROCE,
    R_IB_RELAXED_ORDERING, R_IB_DATA_DIRECT, R_SHM_MEMCPY_MODE, R_SHM_LOCALITY,
    R_MEM_SYNC_DOMAIN, R_SOCKET_NTHREADS, R_SOCKET_NSOCKS, R_SOCKET_BUF, R_WORK_FIFO,
    R_GIN_POOL, R_GIN_TYPE, R_GIN_NCONTEXTS, R_GIN_QUEUE, R_MNNVL_CLIQUE, R_WIN_STRIDE,
    R_SIGNAL, R_NVLSTREE_CHUNK, R_CARVEOUT,
    R_PROTO, R_ALGO, R_LEVEL, R_DEBUG, R_SUBSYS, R_TS_LEVELS, R_TS_FORMAT, R_NET, R_NET_PLUGIN,
    R_HOSTID, R_COMM_ID, R_IFNAME, R_FAMILY, R_IB_FAMILY, R_LAUNCH_MODE, R_TOPO_FILE,
    R_PATH_WRITE, R_SYM_KERNEL, R_RAS_ADDR, R_GRAPH_FILE,
    R_IB_HCA, R_IB_HCA_ANYPORT, R_CTA_POLICY_ENUM, R_GDR_LEVEL_P2C, R_NO_CACHE,
    R_NO_CACHE_TRIM, R_DEBUG_TRIM, R_SUBSYS_BITSET, R_TS_LEVELS_BITSET, R_BOOL,
    R_COUNT
};

extern const struct value_rule value_rules[R_COUNT];

/* A name NCCL 2.28.9 reads ("NCCL_PROTO") and how it reads it. */
struct nccl_param {
    const char *name;
    enum rule_id rule;
};
/* Sorted by name (strcmp). */
extern const struct nccl_param nccl_params[];
extern const size_t nccl_params_count;

/* A parameter that does nothing, or less than it seems, under some
 * NCCL_PROTO restriction. */
struct noop_rule {
    long long min_value; /* the value at least this, */
    const char *key;
    const char *proto;   /* with this protocol excluded */
    const char *why;
};
extern const struct noop_rule noop_rules[];
extern const size_t noop_rules_count;

/* The collectives that may prefix a per-function NCCL_PROTO/NCCL_ALGO list,
 * in ncclFuncStr's order (src/enqueue.cc, NCCL_NUM_FUNCTIONS = 5). */
extern const char nccl_collectives[];

/* The entry for a name NCCL 2.28.9 reads ("NCCL_PROTO"), or NULL. */
const struct nccl_param *nccl_param_find(const char *name);

#endif
