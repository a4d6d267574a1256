/* The channels that carry the resolved set beyond the child's environment:
 * /etc/environment, the Python site hook, NCCL's conf file, and a record
 * under /run/nccl-init for verify and for people. */
#ifndef NCCL_INIT_SINKS_H
#define NCCL_INIT_SINKS_H

#include "nccl/envset.h"
#include "lib/buf.h"
#include "sinks/env_plugin.h"

#include <stdbool.h>
#include <sys/stat.h>
#include <sys/types.h>

enum {
    SINK_ETC_ENVIRONMENT = 1,
    SINK_PYTHON = 2,
    SINK_NCCL_CONF = 4,
    SINK_RECORD = 8,
    SINK_ALL = 15,
};

struct sink_result {
    const char *sink;
    char *path;
    const char *outcome; /* "written", "unchanged", "failed" */
    char *reason;        /* for failures, and notes */
};

/* One file an --enforce run takes back when it ends (sinks_retract),
 * made ready before the fork: its directory kept open, its identity as
 * written, and for nccl.conf the file as it is to become, so that taking
 * it back allocates nothing. */
struct sink_retract_file {
    bool kept;        /* false: nothing to take back */
    int dfd;
    char name[256];   /* in dfd */
    char *path;       /* for messages */
    struct stat st;   /* as this start left it */
    struct buf text;  /* nccl.conf: the file without the plugin's line */
};

/* What ends with an --enforce run that is not a container's PID 1: the
 * record, and the NCCL_ENV_PLUGIN line the nccl.conf block gained. */
struct sink_retract {
    struct sink_retract_file record, conf;
};

struct sink_report {
    struct sink_result *v;
    size_t n, cap;
    unsigned failures;
    bool record_failed;
    bool record_refused;     /* larger than its readers take: not written */
    struct buf record_text;  /* profile.env as this start renders it */
    char *record_path;
    size_t record_root_len;
    struct sink_retract retract; /* made ready for an --enforce start */
};

struct sink_options {
    unsigned mask;
    const char *root;                /* NULL: / */
    const char *const *interpreters; /* --python paths and COMMAND */
    size_t ninterpreters;
    bool strict;                     /* a failure found before any write (the
                                        record's bounds) writes nothing at all */
};

/* "etc-environment,python", "all", "none" -> *mask: 0, or -EINVAL with
 * the unknown name at *bad (*badlen bytes of list). */
int sinks_parse(const char *list, unsigned *mask, const char **bad, size_t *badlen);

/* Writes every sink in o->mask but the record's pid, the record
 * (/run/nccl-init/profile.env) first; failures are logged as one warning
 * each and counted in r->failures. A record larger than its
 * readers take (lib/paths.h) is one of them, found before anything is
 * written: with o->strict nothing is, else the others are and the
 * previous start's record is deleted, so that no reader takes
 * it for this start's. The nccl-conf sink adds an "env-plugin" result
 * when env_plugin_find has an outcome: its path, "named" or "left out",
 * and a note. With s NULL (remove), takes
 * each block out of the same files instead: /etc/environment,
 * $NCCL_CONF_FILE of the process's own environment or else /etc/nccl.conf,
 * and the hook of each stdlib python_find finds. */
void sinks_write(struct sink_report *r, const struct sink_options *o, const struct envset *s);

/* The nccl-conf block for s as the sink writes it (render prints it):
 * the sink's file is $NCCL_CONF_FILE of s or /etc/nccl.conf under root,
 * and the block names nccl-init's env plugin when env_plugin_find says so
 * (*p, to give back with env_plugin_free). */
void sink_nccl_conf_block(struct buf *body, const char *root, const struct envset *s,
                          struct env_plugin *p);

/* remove: every block out of its file (sinks_write with no set; a file
 * nccl-init created and that holds nothing else is deleted, and so is its
 * .pyc); under --root also of each file the root's state.json names, as
 * seen inside the root and never outside it; then the record's files and
 * its directory when empty. */
void sinks_remove(struct sink_report *r, const struct sink_options *o);

/* The python sink alone, putting the hook in place (install): into every
 * stdlib python_find finds under o->root (o->interpreters too, PATH of the
 * process's own environment), with the same writes, chain and .pyc as
 * sinks_write; o->mask is not looked at. A stdlib whose hook is current is
 * only read. */
void sinks_install_hooks(struct sink_report *r, const struct sink_options *o);

/* /run/nccl-init/state.json, with every sink's outcome and the child's
 * pid (under --root each path as seen inside the root). Rendered before the fork, with room kept for the pid, and written
 * after it, while the child already runs: the record is for verify, and
 * nothing the child does waits for it. No allocation after the fork
 * (init/README.md). */
struct record_state {
    char *path;      /* NULL: no record to write */
    size_t root_len; /* path[0..root_len) is --root (atomic.h) */
    struct buf text; /* all but the pid */
    size_t pid_at;   /* where in text the pid goes */
};
void record_state_prepare(struct record_state *rs, const struct sink_report *r,
                          const struct sink_options *o, const struct envset *s);
void record_state_commit(struct record_state *rs, pid_t child);

/* Takes back what an --enforce run made ready (struct sink_retract): the
 * record is deleted, and nccl.conf rewritten without the plugin's line,
 * each only when it is still the file this start left (the same inode,
 * size and time), with one log line each. Allocates nothing: it runs when
 * the supervised tree has ended. */
void sinks_retract(struct sink_retract *x);
void sink_retract_free(struct sink_retract *x);

void sink_report_free(struct sink_report *r);
void record_state_free(struct record_state *rs);

#endif
