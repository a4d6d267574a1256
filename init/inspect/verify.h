/* nccl-init verify: which processes run with the resolved set, and how
 * each value reached them. What it finds is collected into rows first
 * (verify.c), then printed as a table or as JSON (verify_print.c). */
#ifndef NCCL_INIT_VERIFY_H
#define NCCL_INIT_VERIFY_H

#include "inspect/witness_read.h"
#include "lib/buf.h"

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct verify_options {
    const char *root; /* for RECORD_DIR and ETC_NCCL_CONF; /proc is the caller's */
    bool json, all;
    const pid_t *pids;
    size_t npids;
};

/* Where a process's value of a key comes from: its environment, the site
 * hook's record, the user's conf file (NCCL reads it before
 * /etc/nccl.conf; the first file with a key wins), /etc/nccl.conf, or
 * nccl-init's NCCL env plugin, which answers NCCL from the record it
 * holds. The order NCCL looks in is value_of's (verify.c). FROM_NCCL: no
 * guess at all, NCCL's own word in the process's witness (the ask that
 * decided is the value's nccl). */
enum verify_source { FROM_NONE, FROM_ENV, FROM_SITE, FROM_USER_CONF, FROM_CONF, FROM_PLUGIN,
                     FROM_NCCL };

struct verify_value {
    enum verify_source from;
    bool same;  /* the value the profile says */
    char *have; /* NULL with FROM_NONE */
    /* FROM_CONF where the env plugin's record has the key with another
     * value: NCCL applies /etc/nccl.conf with setenv before the plugin
     * answers, and the plugin gives the environment's value first */
    bool over_plugin;
    /* NCCL asked for the key (a trusted witness says so): the ask that
     * decides it, a copy's that read another value where one did, else
     * the first copy's. NULL: not asked yet, and judged as above. With it,
     * from is FROM_NCCL, or FROM_NONE where NCCL read nothing. */
    const struct witness_ask *nccl;
};

/* nccl-init's NCCL env plugin in a checked process. */
struct verify_env_plugin {
    bool shown;         /* the process maps a libnccl, or holds the plugin's record */
    const char *record; /* the digest of the record the plugin holds; NULL: none */
    bool enforce;       /* that record has NCCL_INIT_ENFORCE=1 */
    /* NCCL_ENV_PLUGIN as NCCL reads it (before any plugin: the environment,
     * the site hook, the conf files); from FROM_NONE when unset */
    struct verify_value setting;
};

enum verify_row_kind {
    ROW_NO_SUCH,    /* named with --pid, and /proc does not list it */
    ROW_EXITED,     /* named with --pid, and exited: before the check or during it */
    ROW_KTHREAD,    /* named with --pid, and a kernel thread: no program to check */
    ROW_OUTSIDE,    /* outside nccl-init's tree, and its memory map is unreadable:
                     * not checked, it may or may not have loaded NCCL */
    ROW_UNVERIFIED, /* checked, but what decides its values could not be read */
    ROW_CHECKED,    /* checked: values says how each key reaches it */
};

/* A process verify says something about. */
struct verify_row {
    enum verify_row_kind kind;
    pid_t pid;
    char comm[32];
    bool python, nccl;
    int lib; /* the libnccl.so it maps (index in the report's libs), or -1 */
    /* ROW_UNVERIFIED: a short reason for the table, and what failed;
     * ROW_EXITED: what the note says instead of "has exited", or NULL */
    const char *reason;
    char *detail;
    /* ROW_CHECKED */
    const char *site_digest;     /* of the record its site hook holds; NULL: none */
    struct verify_env_plugin env_plugin;
    char *conf_file;             /* the user's conf file, as NCCL names it; NULL: none */
    struct verify_value *values; /* one per key of the report */
    /* its witness (inspect/witness_read.h): NULL when it holds none;
     * else trusted or not, with why */
    struct witness *witness;
    bool ok;                     /* every value the profile's */
};

/* A libnccl.so that checked processes have mapped, read once however many
 * map it. */
struct verify_lib {
    char *id;      /* "DEV INODE", as /proc/PID/maps writes them */
    char *path;    /* as the process's map names it */
    char *version; /* from its .rodata ("2.28.9+cuda13.0"); NULL: unknown */
    int err;       /* why it could not be read (errno), or 0 */
};

struct verify_key {
    const char *name, *value;
};

struct verify_report {
    const char *digest, *profile; /* of the resolved set; NULL when it has none */
    struct verify_key *keys;      /* the resolved set but its NCCL_INIT_ entries */
    size_t nkeys;
    bool all; /* --all: a witness's reads of every name, not only the keys' */
    /* in the order their notes print: the --pid that /proc does not list;
     * then by pid those set aside at the walk of /proc (exited, outside);
     * then by pid those checked, and the named ones that exited meanwhile */
    struct verify_row *rows;
    size_t nrows, cap;
    unsigned checked, good, unverified, outside; /* rows of each */
    char *nothing; /* with checked 0: why, one line (no process checked is no pass) */
    struct verify_lib *libs;
    size_t nlibs, libcap;
};

/* Collects the rows. 0, or -errno when what verify needs cannot be read:
 * the resolved set (RECORD_ENV under o->root; -ENOENT, or -ENODATA when
 * it holds none) or /proc. *why then says which and why, for the
 * caller's message. */
int verify_collect(struct verify_report *r, const struct verify_options *o, struct buf *why);

/* The table, the notes under it and a summary line. */
void verify_print_text(struct buf *b, const struct verify_report *r);
void verify_print_json(struct buf *b, const struct verify_report *r);

/* verify's exit status, besides 2 (a usage error, no resolved set, or a
 * record another user could have written). */
enum {
    VERIFY_OK = 0,      /* processes checked, and each has every value */
    VERIFY_FAILED = 1,  /* one lacks a value, has another, or was not verified; or a
                         * process named with --pid was not checked */
    VERIFY_NOTHING = 3, /* no process checked: nothing was shown to have the set */
};

/* The processes named with --pid that were not checked: no such process,
 * exited (before the check or during it), a kernel thread. */
unsigned verify_named_unchecked(const struct verify_report *r);

/* VERIFY_OK, VERIFY_FAILED or VERIFY_NOTHING for a collected report. The
 * user asked about a process named with --pid, and one that was not
 * checked was not shown to have the set: VERIFY_FAILED. One that exited
 * while verify ran without --pid (--all, the tree) counts in none. */
int verify_status(const struct verify_report *r);

/* Collects the rows and prints the table (or JSON) into out. Returns
 * verify_status, or verify_collect's -errno with *why. */
int verify(const struct verify_options *o, struct buf *out, struct buf *why);

#endif
