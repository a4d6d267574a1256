#include "pid1/lookup.h"

#include "lib/buf.h"
#include "lib/mem.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* musl's execvp uses this when PATH is unset. */
#define DEFAULT_PATH "/usr/local/bin:/bin:/usr/bin"

/* 0 when path can be exec'd, else the -errno exec would most likely give. */
static int runnable(const char *path)
{
    struct stat st;
    if (stat(path, &st) < 0)
        return -errno;
    if (S_ISDIR(st.st_mode))
        return -EISDIR;
    if (!S_ISREG(st.st_mode))
        return -EACCES; /* execve refuses anything but a regular file */
    return access(path, X_OK) == 0 ? 0 : -errno;
}

/* Like execvp: the first runnable hit in path wins; a hit that exists but
 * cannot be run is remembered (126), and only when nothing exists is it
 * "not found" (127). */
static int search_path(const char *name, const char *path, char **out)
{
    int err = -ENOENT;
    for (;;) {
        const char *c = strchr(path, ':');
        size_t l = c ? (size_t)(c - path) : strlen(path);
        struct buf full = { 0 };
        buf_add(&full, l ? path : ".", l ? l : 1);
        buf_str(&full, "/");
        buf_str(&full, name);
        int e = runnable(full.data);
        if (!e) {
            *out = full.data;
            return 0;
        }
        buf_free(&full);
        if (e != -ENOENT && e != -ENOTDIR)
            err = e;
        if (!c)
            return err;
        path = c + 1;
    }
}

int command_lookup(const char *name, const char *path_env, char **out)
{
    *out = NULL;
    if (!*name)
        return -ENOENT;
    if (strchr(name, '/')) {
        int err = runnable(name);
        if (!err)
            *out = xstrdup(name);
        return err;
    }
    return search_path(name, path_env ? path_env : DEFAULT_PATH, out);
}
