/* From options to validated profiles and the canonical environment: the
 * path shared by check, render and run. */
#ifndef NCCL_INIT_RESOLVE_H
#define NCCL_INIT_RESOLVE_H

#include "nccl/envset.h"
#include "nccl/nccl_lib.h"
#include "nccl/profile.h"

/* What resolve takes from the command line, built by the verbs: it needs
 * none of the rest. */
struct resolve_options {
    const char *const *profiles; /* NAME, PATH or "auto", in order; later layers win */
    size_t nprofiles;
    const char *profile_dir; /* where NAME.env and auto's rules are looked up */
    const char *root;        /* auto detects the hardware under it; NULL: / */
    const char *nccl_lib;    /* the known NCCL_* names and the release from it; NULL: the
                                built-in table */
    const char *nccl_version; /* the release whose rules apply; NULL: nccl_lib's, else all */
    bool enforce;            /* profile values win over the environment */
    bool strict;             /* an environment value NCCL would not take over a profile
                                line is an error (ENVSET_STRICT), and so is auto
                                without readable rules */
    bool each_alone;         /* check: each file's combinations judged on their own too */
    diag_collect_fn *collect; /* not NULL: the findings go here, not to stderr (check --json) */
    void *collect_ctx;
};

struct resolved {
    struct profile *profiles;
    size_t n;
    struct known_names known;
    struct diag diag;
    struct envset env;
};

/* Loads and validates the profiles of o (with combination checks per file
 * when o->each_alone), by the rules of the release o names (validate_release).
 * Returns the error count (the findings are in r->diag), or the -errno of
 * known_names_from_lib when o->nccl_lib cannot be read (-ENOENT too when
 * it has no NCCL_* names), -EINVAL when o->nccl_version is no known
 * release, -EPROTO when o->nccl_lib has no version string; r is then
 * empty but for resolved_free. */
int resolve_profiles(struct resolved *r, const struct resolve_options *o);

/* Composes the canonical environment from envp and checks the resolved
 * set's combinations. Call only when resolve_profiles found no error; an
 * error in r->diag afterwards is --strict's refusal of an environment
 * value. */
void resolve_environment(struct resolved *r, const struct resolve_options *o, char *const *envp);

/* Gives back everything resolve built. */
void resolved_free(struct resolved *r);

#endif
