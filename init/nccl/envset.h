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

/* envset_compose's flags. ENVSET_ENFORCE is 1, so that true still means
 * --enforce alone. */
enum {
    ENVSET_ENFORCE = 1, /* --enforce: the profile's values beat the environment's */
    ENVSET_STRICT = 2,  /* --strict: an environment value that beats a profile
                           line with one NCCL would not take is an error */
};

/* Builds the set. envp is the inherited environment. Environment values of
 * NCCL variables are checked too, as warnings (but see ENVSET_STRICT). */
void envset_compose(struct envset *s, char *const *envp, const struct profile *profiles,
                    size_t np, unsigned flags, const struct known_names *k, struct diag *d);

/* Is v part of the resolved set: a key the profiles define (with the
 * value the command gets), or nccl-init's NCCL_INIT_PROFILE and
 * NCCL_INIT_DIGEST? What the record carries and the digest covers; the
 * rest is the caller's environment, passed on as it is. */
bool envset_in_set(const struct var *v);

/* The value of key in the set, or NULL. */
const char *envset_get(const struct envset *s, const char *key);

/* A NULL-terminated "KEY=VALUE" array for execve: the inherited strings
 * where they are unchanged, and one block for the rest. */
char **envset_envp(const struct envset *s);

/* The one start-up line: profile, number of variables, overrides. */
void envset_log_summary(const struct envset *s);

void envset_free(struct envset *s);

#endif
