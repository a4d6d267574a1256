/* Checks profile entries against what NCCL really accepts. */
#ifndef NCCL_INIT_VALIDATE_H
#define NCCL_INIT_VALIDATE_H

#include "log.h"
#include "profile.h"

#include <stdbool.h>

/* The NCCL_* names the workers' libnccl knows: the built-in table, or the
 * names found in a libnccl.so given with --nccl-lib. */
struct known_names {
    char **names; /* sorted; NULL: use the built-in table */
    size_t n;
};

/* Reads the NCCL_* names out of a libnccl shared object. Returns 0 or -errno;
 * -ENOENT too when the file has no NCCL_ names at all. */
int known_names_from_lib(struct known_names *k, const char *path);
bool known_names_has(const struct known_names *k, const char *name);
void known_names_free(struct known_names *k);

/* Checks one KEY=VALUE. severity is DIAG_ERROR for profiles; for values that
 * come from the environment the same findings are reported as warnings. */
void validate_entry(const struct entry *e, const struct known_names *k, int severity,
                    struct diag *d);

/* Checks a whole set for combinations that do nothing (warnings only). */
void validate_set(const struct entry *const *set, size_t n, struct diag *d);


#endif
