/* remove --root reads back, from the root's state.json, the files that the
 * starts under that root wrote: a --python or COMMAND interpreter's hook
 * is in no place the search looks. The file is input like any other: only
 * what nccl-init itself writes there is taken, and each path must stay in
 * the root. */
#ifndef NCCL_INIT_STATE_PATHS_H
#define NCCL_INIT_STATE_PATHS_H

#include <stddef.h>

struct state_path {
    char sink[16]; /* "python", "nccl-conf", "etc-environment" */
    char *path;    /* as recorded */
};

struct state_paths {
    struct state_path *v;
    size_t n, cap;
};

/* The entries of state.json's "sinks" list (text: NUL-terminated, as
 * state_text in sinks.c writes it) whose sink is one of those three and
 * whose outcome is "written" or "unchanged". An entry of any other shape,
 * or whose path has an escape other than \" and \\ (a control byte, bytes
 * that were not UTF-8), is left out. */
void state_paths_parse(struct state_paths *out, const char *text);
void state_paths_free(struct state_paths *p);

/* path as seen inside root: state.json under --root records it so; one
 * written by an older nccl-init has root's prefix in front (as root_len_in
 * in sinks.c finds it), which is taken off, and under a root that
 * collapses to "." (--root .) a relative one gets "/" in front. NULL
 * unless the result is
 * absolute and clean: no empty, "." or ".." component, shorter than
 * PATH_MAX. */
char *state_path_inside(const char *root, const char *path);

#endif
