/* The NCCL_* names a particular libnccl reads (nccl_lib.c), and the
 * built-in table's names when no library is given. */
#ifndef NCCL_INIT_NCCL_LIB_H
#define NCCL_INIT_NCCL_LIB_H

#include <stdbool.h>
#include <stddef.h>

/* The NCCL_* names the workers' libnccl knows: the built-in table, or the
 * names found in a libnccl.so given with --nccl-lib. */
struct known_names {
    char **names; /* sorted; NULL: use the built-in table */
    size_t n;
};

/* Reads the NCCL_* names out of a libnccl shared object: the whole strings
 * of its .rodata that are exactly a name. Returns 0 or -errno; -ENOENT too
 * when the file has no NCCL_ names at all. */
int known_names_from_lib(struct known_names *k, const char *path);
/* The version a libnccl says it is, from its .rodata ("2.28.9+cuda13.0"),
 * or NULL. fd: the library, open for reading; left open. */
char *nccl_lib_version(int fd);

bool known_names_has(const struct known_names *k, const char *name);
void known_names_free(struct known_names *k);

#endif
