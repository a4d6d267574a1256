/* Finding the Python interpreters of an image without running Python. */
#ifndef NCCL_INIT_PYTHON_FIND_H
#define NCCL_INIT_PYTHON_FIND_H

#include <stdbool.h>
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
 * up in path_env). Duplicates are dropped. Under a root (not NULL) every
 * path is the root's: an interpreter's path as its processes see it
 * (ROOT/usr/bin/python3 and /usr/bin/python3 are both ROOT's
 * /usr/bin/python3), pyvenv.cfg's home and each link resolved inside the
 * root and never out of it; one warning for an interpreter named python*
 * whose stdlib is not there (nothing is hooked for it). */
void python_find(struct python_homes *out, const char *root, const char *const *interpreters,
                 size_t n, const char *path_env);

/* remove --root: the stdlib whose hook hook names (inside root, as
 * state.json records it: <prefix>/lib/python3.X/sitecustomize.py, clean),
 * added as python_find adds one. False when hook is not such a path or
 * there is no stdlib there. */
bool python_find_hook(struct python_homes *out, const char *root, const char *hook);

#endif
