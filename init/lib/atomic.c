#include "lib/atomic.h"

#include "lib/buf.h"
#include "lib/fileio.h"
#include "lib/mem.h"

#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_TARGET (4 << 20)

int target_open(struct target *t, const char *path, size_t root_len)
{
    return target_open_flags(t, path, root_len, 0);
}

int target_open_flags(struct target *t, const char *path, size_t root_len, unsigned flags)
{
    *t = (struct target){ .path = path, .root_len = root_len, .dfd = -1, .name = path };
    t->step = "open directory";
    int fd = walk_parent_flags(path, root_len, flags, &t->name, &t->why);
    if (fd < 0)
        return fd;
    t->dfd = fd;
    return 0;
}

void target_close(struct target *t)
{
    if (t->dfd >= 0)
        walk_release(t->dfd);
    t->dfd = -1;
}

/* Whether the regular file name in dfd, which fstatat found len bytes
 * long, holds exactly data, compared in chunks through a stack buffer. The
 * comparison stops at len bytes rather than reading on to the end: a file
 * that changes in between is a race with or without that read. */
static bool same_content(int dfd, const char *name, const char *data, size_t len)
{
    int fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    if (fd < 0)
        return false;
    char chunk[4096];
    size_t at = 0;
    bool same = true;
    for (;;) {
        ssize_t n = read(fd, chunk, sizeof chunk);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            same = n == 0 && at == len;
            break;
        }
        if ((size_t)n > len - at || memcmp(chunk, data + at, (size_t)n) != 0) {
            same = false;
            break;
        }
        at += (size_t)n;
        if (at == len)
            break;
    }
    close(fd);
    return same;
}

int target_read(struct target *t, char **data, size_t *len)
{
    t->step = "read";
    int fd = openat(t->dfd, t->name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    if (fd < 0) {
        if (errno == ENOENT) {
            *data = xstrdup("");
            *len = 0;
            return 1;
        }
        return -errno;
    }
    /* Read through the descriptor that was checked, not the name again. */
    struct stat st;
    if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return -EINVAL;
    }
    return read_fd(fd, st.st_size, MAX_TARGET, data, len);
}

int target_mkdir(struct target *t, mode_t mode)
{
    t->step = "mkdir";
    if (mkdirat(t->dfd, t->name, mode) < 0)
        return errno == EEXIST ? 0 : -errno;
    /* Ours, just made: give it the bits the umask took away. */
    int fd = openat(t->dfd, t->name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return -errno;
    t->step = "chmod";
    int e = fchmod(fd, mode) < 0 ? -errno : 0;
    close(fd);
    return e;
}

/* Gives the temporary file the target's owner, group and mode (old), or a
 * new file's: the writer's own and 0644, whatever the umask or a setgid
 * directory. Done before any data goes in, so that a 0600 file's contents
 * are never readable by others, not even for a moment. */
static int take_over(int fd, const struct stat *old, const char **step)
{
    struct stat now;
    *step = "stat temporary file";
    if (fstat(fd, &now) < 0)
        return -errno;
    uid_t uid = old ? old->st_uid : geteuid();
    gid_t gid = old ? old->st_gid : getegid();
    /* Not as root, another user's file cannot be given back to them: the
     * EPERM fails the write, and the file is left as it was. */
    *step = "chown";
    if ((now.st_uid != uid || now.st_gid != gid) && fchown(fd, uid, gid) < 0)
        return -errno;
    /* After the chown, which clears the set-id bits. */
    *step = "chmod";
    if (fchmod(fd, old ? old->st_mode & 07777 : 0644) < 0)
        return -errno;
    return 0;
}

/* The target as it is: 0 missing (*exists false), 1 holding data already,
 * or -errno / a refusal for what must not be replaced. */
static int check_target(struct target *t, struct stat *st, bool *exists, const char *data,
                        size_t len)
{
    t->step = "check target";
    *exists = fstatat(t->dfd, t->name, st, AT_SYMLINK_NOFOLLOW) == 0;
    if (!*exists)
        return errno == ENOENT ? 0 : -errno;
    if (S_ISLNK(st->st_mode))
        return -ELOOP;
    if (!S_ISREG(st->st_mode))
        return -EINVAL;
    /* Unchanged: no write, no fsync, so a restart costs nothing. The
     * writer's own file only when it is still its own, alone. */
    bool mine = !t->own_file || (st->st_uid == geteuid() && (st->st_mode & 07777) == 0644 &&
                                 st->st_nlink == 1);
    if (mine && (size_t)st->st_size == len && same_content(t->dfd, t->name, data, len))
        return 1;
    /* The writer's own file is replaced by a new inode: the other links,
     * someone else's, keep theirs. */
    if (st->st_nlink > 1 && !t->own_file) {
        t->why = (struct refusal){ REFUSED_LINKS, strlen(t->path), (unsigned long)st->st_nlink };
        return -EPERM;
    }
    return 0;
}

void target_temp_name(const struct target *t, char *buf, size_t size)
{
    static unsigned counter;
    unsigned long long rnd = 0;
    if (getrandom(&rnd, sizeof rnd, GRND_NONBLOCK) != (ssize_t)sizeof rnd)
        rnd ^= (unsigned long long)(uintptr_t)&rnd * 0x9e3779b97f4a7c15ULL + counter;
    struct buf b = { .data = buf, .cap = size, .fixed = true };
    buf_printf(&b, ".%.*s.nccl-init-%d-%x%016llx", 200, t->name, (int)getpid(), counter++, rnd);
}

int atomic_write(struct target *t, const char *data, size_t len)
{
    struct stat st;
    bool exists;
    int r = check_target(t, &st, &exists, data, len);
    if (r != 0)
        return r;

    int dfd = t->dfd;
    char tmp[64 + 256];
    int fd = -1;
    /* O_EXCL makes the name safe; pid, a counter and random bits make it
     * unique enough that a leftover from a crash, or a name someone else
     * made first in a shared directory, is simply stepped over. 0600 until
     * take_over() gives it the target's owner and mode. */
    for (int attempt = 0; fd < 0 && attempt < 16; attempt++) {
        target_temp_name(t, tmp, sizeof tmp);
        t->step = "create temporary file";
        fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
        if (fd < 0 && errno != EEXIST)
            return -errno;
    }
    if (fd < 0)
        return -EEXIST;
    r = take_over(fd, exists && !t->own_file ? &st : NULL, &t->step);
    if (!r && (r = write_all(fd, data, len)) < 0)
        t->step = "write";
    if (!r && !t->no_sync && fsync(fd) < 0) {
        t->step = "fsync";
        r = -errno;
    }
    if (close(fd) < 0 && !r) {
        t->step = "close";
        r = -errno;
    }
    if (!r && renameat(dfd, tmp, dfd, t->name) < 0) {
        t->step = "rename";
        r = -errno;
    }
    if (r < 0) {
        unlinkat(dfd, tmp, 0);
    } else if (!t->no_sync && fsync(dfd) < 0 && errno != EINVAL) {
        /* The new file is in place; only its durability is in doubt. */
        t->step = "fsync directory";
        r = -errno;
    }
    return r;
}
