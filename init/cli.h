/* Command line: verbs and options. */
#ifndef NCCL_INIT_CLI_H
#define NCCL_INIT_CLI_H

#include "pid1/supervise.h"

#include <stdbool.h>
#include <stddef.h>

enum verb {
    VERB_RUN, VERB_CHECK, VERB_RENDER, VERB_VERIFY, VERB_DETECT, VERB_REMOVE, VERB_INSTALL, VERB_HELP,
    VERB_VERSION
};

struct options {
    int verb;
    const char **profiles; /* -p, in order */
    size_t nprofiles;
    const char *profile_dir; /* NULL: <root>/etc/nccl-init/profiles */
    const char *root;        /* NULL: / */
    const char *nccl_lib;
    const char *nccl_version; /* --nccl-version X.Y.Z: the release whose rules apply */
    const char *format; /* render: env (default), json, etc-environment, python, nccl-conf */
    bool enforce;
    const char **cap_drop, **cap_add; /* raw docker-style lists */
    size_t ncap_drop, ncap_add;
    bool no_new_privs;
    unsigned sinks; /* SINK_* mask; default all */
    bool strict;    /* a sink that cannot be written stops the start */
    const char **python; /* --python interpreters (run, install) */
    size_t npython;
    struct stop_policy stop; /* --signal-group, --rewrite, --grace, --cleanup, --kill-exit-code */
    bool grace_given;        /* --grace was given: NCCL_INIT_GRACE is not read */
    const char *cleanup_from, *cleanup_text; /* "--cleanup " or "NCCL_INIT_CLEANUP=", and the
                                                value: for the error when it is too long */
    bool json, all;          /* json: check, verify, detect; all: render, verify */
    pid_t *pids;             /* verify --pid */
    size_t npids;
    char **operands; /* run: COMMAND [ARGS...]; check: FILE|NAME...; NULL-terminated */
    size_t noperands;
};

/* Parses argv into o; a usage error exits 2 with one message. */
void cli_parse(int argc, char **argv, struct options *o);

/* The profile directory in effect: --profile-dir, or the default under --root. */
char *cli_profile_dir(const struct options *o);

void cli_usage(void);
void cli_version(void);

#endif
