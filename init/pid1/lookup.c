#include "pid1/lookup.h"

#include "lib/log.h"
#include "lib/buf.h"
#include "lib/mem.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* musl's execvp uses this when PATH is unset. */
#define DEFAULT_PATH "/usr/local/bin:/bin:/usr/bin"

/* 0 when path can be exec'd, else the errno exec would most likely give. */
static int runnable(const char *path)
{
    struct stat st;
    if (stat(path, &st) < 0)
        return errno;
    if (S_ISDIR(st.st_mode))
        return EISDIR;
    if (!S_ISREG(st.st_mode))
        return EACCES; /* execve refuses anything but a regular file */
    return access(path, X_OK) == 0 ? 0 : errno;
}

int command_lookup(const char *name, const char *path_env, char **out)
{
    *out = NULL;
    int err;
    if (!*name) {
        err = ENOENT;
    } else if (strchr(name, '/')) {
        err = runnable(name);
        if (!err)
            *out = xstrdup(name);
    } else {
        /* Like execvp: the first runnable hit wins; a hit that exists but
         * cannot be run is remembered (126), and only when nothing exists
         * is it "not found" (127). */
        err = ENOENT;
        const char *p = path_env ? path_env : DEFAULT_PATH;
        for (;;) {
            const char *c = strchr(p, ':');
            size_t l = c ? (size_t)(c - p) : strlen(p);
            struct buf full = { 0 };
            buf_add(&full, l ? p : ".", l ? l : 1);
            buf_str(&full, "/");
            buf_str(&full, name);
            int e = runnable(full.data);
            if (!e) {
                *out = full.data;
                return 0;
            }
            buf_free(&full);
            if (e != ENOENT && e != ENOTDIR)
                err = e;
            if (!c)
                break;
            p = c + 1;
        }
    }
    if (!err)
        return 0;
    log_error("cannot run '%s': %s", name, strerror(err));
    return err == ENOENT || err == ENOTDIR ? EXIT_NOT_FOUND : EXIT_CANNOT_RUN;
}
