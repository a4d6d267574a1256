/* Files and paths: whole-file reads that open nothing but regular files,
 * complete writes, lexical path joins. */
#ifndef NCCL_INIT_FILEIO_H
#define NCCL_INIT_FILEIO_H

#include <stddef.h>
#include <sys/types.h>

/* Writes all of p, retrying on EINTR and short writes. 0 or -errno. */
int write_all(int fd, const void *p, size_t n);

/* Opens path for reading only if it is a regular file, and returns the
 * descriptor or -errno (-EINVAL: not a regular file). Start-up runs with
 * every signal blocked: a FIFO would block it for good, and opening a
 * device can act (a watchdog, a tape). stat() first, so that nothing else
 * is opened at all; fstat() after, against a swap in between. */
int open_regular(const char *path);

/* Reads a whole regular file (at most max bytes) into a NUL-terminated
 * buffer. Returns 0, or -errno (-EFBIG when larger than max, -EINVAL when
 * not a regular file). */
int read_file(const char *path, size_t max, char **data, size_t *len);
/* The same from an open descriptor, which it closes; size is what the
 * caller's fstat said of it (a first guess for /proc and sysfs files). */
int read_fd(int fd, off_t size, size_t max, char **data, size_t *len);

/* Joins a and b with exactly one '/' between them, then drops "." and
 * "dir/.." components (lexically: for paths whose links were followed). */
char *path_join(const char *a, const char *b);

#endif
