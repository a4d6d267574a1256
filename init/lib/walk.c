#include "lib/walk.h"
#include "lib/buf.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* nccl-init never changes its user: asked once, not once per directory. */
static uid_t my_euid(void)
{
    static uid_t me = (uid_t)-1;
    if (me == (uid_t)-1)
        me = geteuid();
    return me;
}

/* Whether a directory may hold or lead to a sink (walk.h says which);
 * fills why, with len, when it may not. */
static bool dir_trusted(const struct stat *st, size_t len, bool shared, struct refusal *why)
{
    uid_t me = my_euid();
    *why = (struct refusal){ REFUSED_NOTHING, len, 0 };
    if (S_ISLNK(st->st_mode)) {
        why->kind = REFUSED_SYMLINK;
    } else if (st->st_uid != 0 && (me == 0 || st->st_uid != me)) {
        /* Not as root, a directory of our own is as safe as root's: we
         * could write anything there ourselves. */
        why->kind = REFUSED_OWNER;
        why->n = st->st_uid;
    } else if ((st->st_mode & (S_IWGRP | S_IWOTH)) && !(st->st_mode & S_ISVTX) && !shared) {
        why->kind = REFUSED_WRITABLE;
        why->n = st->st_mode & 07777;
    }
    return why->kind == REFUSED_NOTHING;
}

/* Checks the directory (or link) that fd, an O_PATH descriptor, names;
 * shared: it is the file's own directory under WALK_SHARED_DIR. */
static int check_dir(int fd, size_t len, bool shared, struct refusal *why)
{
    struct stat st;
    if (fstat(fd, &st) < 0)
        return -errno;
    if (!S_ISDIR(st.st_mode) && !S_ISLNK(st.st_mode))
        return -ENOTDIR;
    return dir_trusted(&st, len, shared, why) ? 0 : -EPERM;
}

/* The walk's first directory, as an O_PATH descriptor; *at: where the
 * components to walk begin. */
static int open_start(const char *path, size_t root_len, size_t *at, bool shared,
                      struct refusal *why)
{
    *at = root_len;
    if (root_len) {
        char root[PATH_MAX];
        if (root_len >= sizeof root)
            return -ENAMETOOLONG;
        memcpy(root, path, root_len);
        root[root_len] = '\0';
        int fd = openat(AT_FDCWD, root, O_PATH | O_DIRECTORY | O_CLOEXEC);
        return fd < 0 ? -errno : fd;
    }
    int fd = openat(AT_FDCWD, path[0] == '/' ? "/" : ".", O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return -errno;
    if (path[0] == '/') {
        *at = 1;
        int e = check_dir(fd, 1, shared, why);
        if (e < 0) {
            close(fd);
            return e;
        }
    }
    return fd;
}

void walk_release(int fd)
{
    close(fd);
}

int walk_parent(const char *path, size_t root_len, const char **name, struct refusal *why)
{
    return walk_parent_flags(path, root_len, 0, name, why);
}

int walk_parent_flags(const char *path, size_t root_len, unsigned flags, const char **name,
                      struct refusal *why)
{
    const bool shared = flags & WALK_SHARED_DIR;
    *why = (struct refusal){ 0 };
    const char *last = strrchr(path, '/');
    last = last ? last + 1 : path;
    if (!*last || strcmp(last, ".") == 0 || strcmp(last, "..") == 0)
        return -EISDIR;
    if ((size_t)(last - path) < root_len)
        return -EINVAL; /* the root would swallow the name: a caller's bug */
    *name = last;

    size_t at;
    /* "/" is the file's own directory when nothing but slashes and dots
     * lie between them. */
    bool top = true;
    for (const char *c = path + 1; c < last; c++)
        top = top && (*c == '/' || *c == '.');
    int fd = open_start(path, root_len, &at, shared && top, why);
    if (fd < 0)
        return fd;
    for (const char *c = path + at; c < last;) {
        size_t n = strcspn(c, "/");
        if (n == 0 || (n == 1 && c[0] == '.')) {
            c += n + (n == 0);
            continue;
        }
        char comp[NAME_MAX + 1];
        if (n >= sizeof comp) {
            close(fd);
            return -ENAMETOOLONG;
        }
        memcpy(comp, c, n);
        comp[n] = '\0';
        c += n;
        /* The file's own directory is opened for real at once: O_NOFOLLOW
         * refuses a link there, and a directory can be opened without
         * side effects. Only a failure goes the O_PATH way below, for its
         * precise refusal ("is a symlink"). */
        bool own = c + strspn(c, "/") >= last;
        if (own) {
            int dfd = openat(fd, comp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
            if (dfd >= 0) {
                int e = check_dir(dfd, (size_t)(c - path), shared, why);
                close(fd);
                if (e < 0)
                    close(dfd);
                return e < 0 ? e : dfd;
            }
        }
        /* O_PATH|O_NOFOLLOW opens a link itself rather than failing, so
         * that the check below can say "is a symlink"; ".." is never one. */
        int next = openat(fd, comp, O_PATH | O_NOFOLLOW | O_CLOEXEC);
        int e = next < 0 ? -errno : check_dir(next, (size_t)(c - path), shared && own, why);
        close(fd);
        if (e < 0) {
            if (next >= 0)
                close(next);
            return e;
        }
        fd = next;
    }
    /* "." of a checked directory is that directory: no link to follow. */
    int dfd = openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    int e = dfd < 0 ? -errno : dfd;
    close(fd);
    return e;
}

void refusal_text(struct buf *out, const char *path, const struct refusal *why)
{
    const int len = (int)why->len;
    const unsigned long n = why->n;
    switch (why->kind) {
    case REFUSED_NOTHING:
        break;
    case REFUSED_SYMLINK:
        buf_printf(out, "parent %.*s is a symlink", len, path);
        break;
    case REFUSED_OWNER:
        buf_printf(out, "parent %.*s is owned by uid %lu, not by root", len, path, n);
        if (my_euid() != 0)
            buf_printf(out, " or uid %u", (unsigned)my_euid());
        break;
    case REFUSED_WRITABLE:
        buf_printf(out, "parent %.*s is writable by %s (mode %c%c%c%c)", len, path,
                   n & S_IWGRP ? (n & S_IWOTH ? "group and others" : "group") : "others",
                   (int)('0' + (n >> 9 & 7)), (int)('0' + (n >> 6 & 7)),
                   (int)('0' + (n >> 3 & 7)), (int)('0' + (n & 7)));
        break;
    case REFUSED_LINKS:
        buf_printf(out, "it has %lu hard links; replacing it would split them", n);
        break;
    }
}
