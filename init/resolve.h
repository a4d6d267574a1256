/* From options to validated profiles and the canonical environment: the
 * path shared by check, render and run. */
#ifndef NCCL_INIT_RESOLVE_H
#define NCCL_INIT_RESOLVE_H

#include "cli.h"
#include "envset.h"
#include "nccl_lib.h"
#include "profile.h"

struct resolved {
    struct profile *profiles;
    size_t n;
    struct known_names known;
    struct diag diag;
    struct envset env;
};

/* Loads and validates the profiles named by specs (with combination checks
 * per file when each_alone, as check does). Returns the error count. */
unsigned resolve_profiles(struct resolved *r, const struct options *o, const char *const *specs,
                          size_t n, bool each_alone);

/* Composes the canonical environment from envp and checks the resolved
 * set's combinations. Call only when resolve_profiles found no error. */
void resolve_environment(struct resolved *r, const struct options *o, char *const *envp);

#endif
