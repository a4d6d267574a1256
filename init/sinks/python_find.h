/* Finding the Python interpreters of an image without running Python. */
#ifndef NCCL_INIT_PYTHON_FIND_H
#define NCCL_INIT_PYTHON_FIND_H

#include <stdbool.h>
#include <stddef.h>

struct python_home {
    char *stdlib;  /* .../lib/python3.X, where sitecustomize goes (under a
                      root: the root in front, no link in the rest) */
    char *version; /* "3.11" */
    char *binary;  /* an interpreter of that stdlib, to byte-compile with;
                      NULL under a root, whose interpreter is never run */
    char *root;    /* the prefix the stdlib was found under ("" for /) */
    char *prefix;  /* the installation prefix, as the root's processes see
                      it: sys.prefix, which site's directories hang off */
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

/* A sitecustomize.py further down sys.path than h's stdlib (site-packages,
 * or Debian's dist-packages), which a hook in the stdlib shadows: its path
 * as the root's processes see it (under a root, where it is looked at
 * with its links resolved inside the root), or NULL for none. */
char *python_shadowed(const struct python_home *h);

/* remove --root: the stdlib whose hook hook names (inside root, as
 * state.json records it: <prefix>/lib/python3.X/sitecustomize.py, clean),
 * added as python_find adds one. False when hook is not such a path or
 * there is no stdlib there. */
bool python_find_hook(struct python_homes *out, const char *root, const char *hook);

#endif
