/* A growable byte buffer, the one way text is built. */
#ifndef NCCL_INIT_BUF_H
#define NCCL_INIT_BUF_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

/* A growable byte buffer, or, with fixed set, a caller's array that
 * truncates instead of growing (for logging without allocating). data is
 * always NUL-terminated once anything was added. */
struct buf {
    char *data;
    size_t len, cap;
    bool fixed;
};
#define BUF_FIXED(arr) ((struct buf){ .data = (arr), .cap = sizeof(arr), .fixed = true })
/* Room for need bytes in all, so that adding up to that many later
 * allocates nothing (a fixed buffer has what it has). */
void buf_reserve(struct buf *b, size_t need);
void buf_add(struct buf *b, const void *p, size_t n);
void buf_str(struct buf *b, const char *s);
/* "KEY=VALUE\n", as the env files are written: no printf for each line. */
void buf_kv(struct buf *b, const char *key, const char *value);
/* A number in decimal: what the JSON records need, without printf. */
void buf_uint(struct buf *b, unsigned long v);
/* printf into the buffer (vsnprintf underneath); a fixed buffer truncates. */
void buf_printf(struct buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void buf_vprintf(struct buf *b, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));
void buf_free(struct buf *b);

#endif
