/* Small helpers shared by every module: allocation that cannot fail,
 * a growable byte buffer, file slurping and UTF-8 checks. */
#ifndef NCCL_INIT_UTIL_H
#define NCCL_INIT_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

void *xmalloc(size_t n);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
/* Grows *v (of element size sz) so that it holds at least need elements. */
void grow(void **v, size_t *cap, size_t need, size_t sz);

struct buf {
    char *data;
    size_t len, cap;
};
void buf_add(struct buf *b, const void *p, size_t n);
void buf_str(struct buf *b, const char *s);
void buf_printf(struct buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void buf_free(struct buf *b);

/* Reads a whole regular file (at most max bytes) into a NUL-terminated
 * buffer. Returns 0, or -errno (-EFBIG when larger than max). */
int read_file(const char *path, size_t max, char **data, size_t *len);

/* Length of the valid UTF-8 sequence at s (1..4), or 0 when invalid. */
size_t utf8_seq_len(const unsigned char *s, size_t avail);
bool utf8_valid(const char *s, size_t n);

/* Writes s as a JSON string literal (with quotes). Invalid UTF-8 bytes are
 * written as U+FFFD so that the document stays valid. */
void json_string(struct buf *b, const char *s);

/* Joins a and b with exactly one '/' between them. */
char *path_join(const char *a, const char *b);

#endif
