/* Files and paths. */
#include "lib/fileio.h"

#include "lib/buf.h"
#include "lib/mem.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int write_all(int fd, const void *p, size_t n)
{
    const char *s = p;
    while (n) {
        ssize_t w = write(fd, s, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0)
            return -errno;
        s += w;
        n -= (size_t)w;
    }
    return 0;
}

/* stat first: opening a device can act (a watchdog starts, a tape
 * rewinds), so only a regular file is opened; the fstat after the open
 * catches a swap in between. openat rather than open: musl's open() adds
 * an fcntl for O_CLOEXEC on every call, for kernels before 2.6.23. */
static int open_regular_st(const char *path, struct stat *st)
{
    if (stat(path, st) < 0)
        return -errno;
    if (!S_ISREG(st->st_mode))
        return S_ISDIR(st->st_mode) ? -EISDIR : -EINVAL;
    int fd = openat(AT_FDCWD, path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    if (fd < 0)
        return -errno;
    if (fstat(fd, st) < 0 || !S_ISREG(st->st_mode)) {
        close(fd);
        return -EINVAL;
    }
    return fd;
}

int open_regular(const char *path)
{
    struct stat st;
    return open_regular_st(path, &st);
}

int read_file(const char *path, size_t max, char **data, size_t *len)
{
    struct stat st;
    int fd = open_regular_st(path, &st);
    return fd < 0 ? fd : read_fd(fd, st.st_size, max, data, len);
}

/* size is what fstat said. /proc and sysfs report 0 or 4096 whatever they
 * hold, so it is only a first guess for the buffer; the end is a read of 0
 * bytes. */
int read_fd(int fd, off_t size, size_t max, char **data, size_t *len)
{
    /* Straight into the heap: an init's stack pages count in its RSS. */
    size_t guess = size > 0 && (size_t)size < max ? (size_t)size + 1 : 256;
    struct buf b = { .data = xmalloc(guess), .cap = guess };
    for (;;) {
        if (b.cap - b.len < 2)
            grow((void **)&b.data, &b.cap, b.cap * 2, 1);
        ssize_t n = read(fd, b.data + b.len, b.cap - b.len - 1);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0 || b.len + (size_t)n > max) {
            int e = n < 0 ? errno : EFBIG;
            if (n == 0)
                break;
            close(fd);
            buf_free(&b);
            return -e;
        }
        b.len += (size_t)n;
    }
    close(fd);
    b.data[b.len] = '\0';
    *data = b.data;
    *len = b.len;
    return 0;
}

char *path_join(const char *a, const char *b)
{
    size_t la = strlen(a);
    while (la > 1 && a[la - 1] == '/')
        la--;
    while (*b == '/')
        b++;
    /* One allocation, as long as both and a '/': collapsing only shortens. */
    size_t lb = strlen(b);
    char *s = xmalloc(la + lb + 2), *w = s;
    memcpy(s, a, la);
    size_t at = la;
    if (!(la == 1 && a[0] == '/'))
        s[at++] = '/';
    memcpy(s + at, b, lb + 1);
    /* Collapse in place; base is where the first component starts. */
    size_t base = *s == '/';
    w += base;
    for (char *p = s + base; *p;) {
        while (*p == '/')
            p++;
        size_t n = strcspn(p, "/");
        bool dotdot = n == 2 && p[0] == '.' && p[1] == '.';
        /* For a "..", the start of the last component written. */
        char *prev = w;
        while (dotdot && prev > s + base && prev[-1] != '/')
            prev--;
        if (n == 0 || (n == 1 && p[0] == '.')) {
            /* nothing */
        } else if (dotdot && (w > s + base || base) &&
                   !(w - prev == 2 && prev[0] == '.' && prev[1] == '.')) {
            w = prev > s + base ? prev - 1 : s + base; /* drop it (at / there is none) */
        } else {
            if (w > s + base)
                *w++ = '/';
            memmove(w, p, n);
            w += n;
        }
        p += n;
    }
    if (w == s)
        *w++ = '.';
    *w = '\0';
    return s;
}
