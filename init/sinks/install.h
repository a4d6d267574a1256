/* nccl-init install: the parts that do not change from one start to the
 * next, put in place once (at an image's build, or on a host after make
 * install): the Python hook in every stdlib, and the env plugin linked onto
 * the loader's default path, so that NCCL's dlopen("libnccl-env.so") finds
 * it without NCCL_ENV_PLUGIN or nccl.conf. */
#ifndef NCCL_INIT_INSTALL_H
#define NCCL_INIT_INSTALL_H

#include <stddef.h>

/* Where the link goes, under the root: the first system directory of the
 * loader's search path (Debian's multiarch directory). */
#define INSTALL_LINK_DIR "/usr/lib/" /* + ENV_PLUGIN_TRIPLET */

struct install_options {
    const char *root;                /* NULL: / */
    const char *const *interpreters; /* --python, and PATH's python3 without --root */
    size_t ninterpreters;
    const char *exe;                 /* the running binary; NULL: /proc/self/exe */
};

/* The hooks and the link. One info line per path (written or unchanged),
 * one warning per path that could not be written or was left alone.
 * Returns how many of those there were (the verb exits 1 for any). */
unsigned install_run(const struct install_options *o);

/* remove's share: the link, when it is a link to ours (as install makes
 * it); anything else at its name is left alone. Returns the failures. */
unsigned install_remove_link(const char *root, const char *exe);

#endif
