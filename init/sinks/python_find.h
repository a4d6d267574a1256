/* Finding the Python interpreters of an image without running Python. */
#ifndef NCCL_INIT_PYTHON_FIND_H
#define NCCL_INIT_PYTHON_FIND_H

#include <stddef.h>

struct python_home {
    char *stdlib;  /* .../lib/python3.X, where sitecustomize goes */
    char *version; /* "3.11" */
    char *binary;  /* an interpreter of that stdlib, to byte-compile with; or NULL */
    char *root;    /* the prefix the stdlib was found under ("" for /) */
    size_t prefix_len; /* stdlib[0..prefix_len) is the installation prefix */
    unsigned long dev, ino; /* the stdlib directory, to drop duplicates */
};

struct python_homes {
    struct python_home *v;
    size_t n, cap;
};

/* The standard prefixes under root (/usr/lib, /usr/local/lib, /opt/conda
 * and its envs), then each interpreter path given (a Python binary, a venv's
 * python, or a script whose shebang names one; a name without '/' is looked
 * up in path_env). Duplicates are dropped. */
void python_find(struct python_homes *out, const char *root, const char *const *interpreters,
                 size_t n, const char *path_env);

#endif
