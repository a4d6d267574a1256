#include "atomic.h"

#include "util.h"

#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_TARGET (4 << 20)

/* Opens the directory of path and returns the last component in *name.
 * No allocation: the state record is written after the fork. */
static int open_dir(const char *path, const char **name)
{
    const char *slash = strrchr(path, '/');
    char dir[4096];
    size_t n = slash ? (slash == path ? 1 : (size_t)(slash - path)) : 1;
    if (n >= sizeof dir)
        return -ENAMETOOLONG;
    memcpy(dir, slash ? path : ".", n);
    dir[n] = '\0';
    *name = slash ? slash + 1 : path;
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    return fd < 0 ? -errno : fd;
}

/* Whether the regular file name in dfd holds exactly data, compared in
 * chunks through a stack buffer. */
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
    }
    close(fd);
    return same;
}

int read_target(const char *path, char **data, size_t *len)
{
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    if (fd < 0) {
        if (errno == ENOENT) {
            *data = xstrdup("");
            *len = 0;
            return 0;
        }
        return -errno;
    }
    /* Read through the descriptor that was checked, not the name again. */
    struct stat st;
    if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return -EINVAL;
    }
    return read_fd(fd, MAX_TARGET, data, len);
}

int atomic_write(const char *path, const char *data, size_t len, const char **step)
{
    const char *name;
    *step = "open directory";
    int dfd = open_dir(path, &name);
    if (dfd < 0)
        return dfd;

    struct stat st;
    *step = "check target";
    if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0) {
        if (S_ISLNK(st.st_mode)) {
            close(dfd);
            return -ELOOP;
        }
        if (!S_ISREG(st.st_mode)) {
            close(dfd);
            return -EINVAL;
        }
        /* Unchanged: no write, no fsync, so a restart costs nothing. */
        if ((size_t)st.st_size == len && same_content(dfd, name, data, len)) {
            close(dfd);
            return 1;
        }
    }

    char tmp[64 + 256];
    struct buf t = BUF_FIXED(tmp);
    int fd = -1;
    /* O_EXCL makes the name safe; pid and a counter make it unique enough
     * that a leftover from a crash is simply stepped over. */
    static unsigned counter;
    for (int attempt = 0; fd < 0 && attempt < 16; attempt++) {
        t.len = 0;
        buf_printf(&t, ".%.*s.nccl-init-%d-%u", 200, name, (int)getpid(), counter++);
        *step = "create temporary file";
        fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
        if (fd < 0 && errno != EEXIST) {
            int e = errno;
            close(dfd);
            return -e;
        }
    }
    if (fd < 0) {
        close(dfd);
        return -EEXIST;
    }
    int r = 0;
    /* 0644 whatever the umask: these files are read by every user. */
    if (fchmod(fd, 0644) < 0) {
        *step = "chmod";
        r = -errno;
    }
    if (!r && (r = write_all(fd, data, len)) < 0)
        *step = "write";
    if (!r && fsync(fd) < 0) {
        *step = "fsync";
        r = -errno;
    }
    if (close(fd) < 0 && !r) {
        *step = "close";
        r = -errno;
    }
    if (!r && renameat(dfd, tmp, dfd, name) < 0) {
        *step = "rename";
        r = -errno;
    }
    if (r < 0) {
        unlinkat(dfd, tmp, 0);
    } else if (fsync(dfd) < 0 && errno != EINVAL) {
        /* The new file is in place; only its durability is in doubt. */
        *step = "fsync directory";
        r = -errno;
    }
    close(dfd);
    return r;
}
