/* Small helpers shared by every module: allocation that cannot fail,
 * a growable byte buffer, file slurping and UTF-8 checks. */
#ifndef NCCL_INIT_UTIL_H
#define NCCL_INIT_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdarg.h>
#include <sys/types.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

void *xmalloc(size_t n);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
/* Grows *v (of element size sz) so that it holds at least need elements. */
void grow(void **v, size_t *cap, size_t need, size_t sz);

/* A growable byte buffer, or, with fixed set, a caller's array that
 * truncates instead of growing (for logging without allocating). data is
 * always NUL-terminated once anything was added. */
struct buf {
    char *data;
    size_t len, cap;
    bool fixed;
};
#define BUF_FIXED(arr) ((struct buf){ (arr), 0, sizeof(arr), true })
void buf_add(struct buf *b, const void *p, size_t n);
void buf_str(struct buf *b, const char *s);
/* printf into the buffer (vsnprintf underneath); a fixed buffer truncates. */
void buf_printf(struct buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void buf_vprintf(struct buf *b, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));
void buf_free(struct buf *b);

/* Writes all of p, retrying on EINTR and short writes. 0 or -errno. */
int write_all(int fd, const void *p, size_t n);

/* A stable merge sort with qsort's interface: no allocation for up to 2 KiB
 * of items, and linear on input already in order.
 *
 * Stable order matters in one place: the inherited environment, where
 * copies of one key must stay in their order so that the last one wins
 * (envset.c). The other callers sort unique keys (sorted variables, PCI
 * bus ids, NCCL names, pids), where any sort would do; they use this one
 * too because musl's qsort would add 1.7 KB to a binary held to 128 KiB. */
void sort(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *));

/* What strtoll(s, NULL, 0) returns, as NCCL reads its integers: optional
 * sign, 0x hex, leading-0 octal, stops at the first bad character.
 * Returns false on overflow. */
bool parse_c_integer(const char *s, long long *out);

/* First occurrence of needle (length nn) in hay (length hn), or NULL. */
const void *find_bytes(const void *hay, size_t hn, const void *needle, size_t nn);

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

/* Length of the valid UTF-8 sequence at s (1..4), or 0 when invalid. */
size_t utf8_seq_len(const unsigned char *s, size_t avail);
bool utf8_valid(const char *s, size_t n);

/* Appends s[0..n) with every byte that could steer a terminal written as
 * \xNN: C0 controls, DEL, the UTF-8 forms of the C1 controls, and bytes
 * that are not UTF-8. For logs, which carry values from the environment
 * and from files. */
void buf_escaped(struct buf *b, const char *s, size_t n);

/* Writes s as a JSON string literal (with quotes). Invalid UTF-8 bytes are
 * written as U+FFFD so that the document stays valid. */
void json_string(struct buf *b, const char *s);

/* Levenshtein distance between a and b; SIZE_MAX when either is over 64
 * bytes. */
size_t edit_distance(const char *a, const char *b);

/* Joins a and b with exactly one '/' between them, then drops "." and
 * "dir/.." components (lexically: for paths whose links were followed). */
char *path_join(const char *a, const char *b);

#endif
