/* The canonical environment: what the child gets, computed from the
 * inherited environment and the profiles, deterministically. */
#ifndef NCCL_INIT_ENVSET_H
#define NCCL_INIT_ENVSET_H

#include "lib/log.h"
#include "nccl/nccl_lib.h"
#include "nccl/profile.h"

#include <stdbool.h>

enum var_source { SRC_ENV, SRC_PROFILE, SRC_INIT };

/* The strings are borrowed, not copied: a key from the set's own keys
 * buffer or a profile's text, a value from the inherited environment, a
 * profile's text or the set itself. The environment and the profiles must
 * outlive the set. */
struct var {
    const char *key;
    const char *value;
    const char *inherited; /* the inherited "KEY=VALUE", when the child gets
                              exactly that; NULL when it gets a new value */
    int source;          /* enum var_source: where the value came from */
    const struct entry *entry; /* the profile line for this key, if any */
    bool resolved;       /* a key the profiles define: part of the resolved set */
    bool overridden;     /* the environment's value beat the profile's */
    bool enforced;       /* the profile's value replaced the environment's */
};

struct envset {
    struct var *v; /* sorted by key, unique */
    size_t n, cap;
    char digest[65];
    char *names;   /* "pcie-8gpu,extra" */
    char *keys;    /* the inherited keys, NUL-terminated, one after another */
    size_t resolved, overrides;
    bool enforce;  /* --enforce: the profile's values beat the environment's
                      here, and the record says so (RECORD_ENFORCE) */
};

/* Builds the set. envp is the inherited environment. Environment values of
 * NCCL variables are checked too, as warnings. */
void envset_compose(struct envset *s, char *const *envp, const struct profile *profiles,
                    size_t np, bool enforce, const struct known_names *k, struct diag *d);

/* The value of key in the set, or NULL. */
const char *envset_get(const struct envset *s, const char *key);

/* A NULL-terminated "KEY=VALUE" array for execve: the inherited strings
 * where they are unchanged, and one block for the rest. */
char **envset_envp(const struct envset *s);

/* The one start-up line: profile, number of variables, overrides. */
void envset_log_summary(const struct envset *s);

void envset_free(struct envset *s);

#endif
