/* The growable byte buffer. */
#include "lib/buf.h"

#include "lib/mem.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void buf_reserve(struct buf *b, size_t need)
{
    if (!b->fixed)
        grow((void **)&b->data, &b->cap, need, 1);
}

void buf_add(struct buf *b, const void *p, size_t n)
{
    if (b->fixed) {
        if (b->cap == 0)
            return;
        size_t room = b->cap - 1 - b->len;
        if (n > room)
            n = room;
    } else {
        buf_reserve(b, b->len + n + 1);
    }
    memcpy(b->data + b->len, p, n);
    b->len += n;
    b->data[b->len] = '\0';
}

void buf_str(struct buf *b, const char *s) { buf_add(b, s, strlen(s)); }

/* On musl's vsnprintf: measured once, then written in place; a fixed buffer
 * takes what fits. */
void buf_vprintf(struct buf *b, const char *fmt, va_list ap)
{
    va_list measure;
    va_copy(measure, ap);
    int n = vsnprintf(NULL, 0, fmt, measure);
    va_end(measure);
    if (n <= 0)
        return;
    size_t room;
    if (b->fixed) {
        if (b->cap == 0)
            return;
        room = b->cap - b->len; /* with the NUL */
    } else {
        buf_reserve(b, b->len + (size_t)n + 1);
        room = (size_t)n + 1;
    }
    vsnprintf(b->data + b->len, room, fmt, ap);
    b->len += (size_t)n < room ? (size_t)n : room - 1;
}

void buf_printf(struct buf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    buf_vprintf(b, fmt, ap);
    va_end(ap);
}

void buf_free(struct buf *b)
{
    if (!b->fixed)
        xfree(b->data);
    b->data = NULL;
    b->len = b->cap = 0;
}

void buf_kv(struct buf *b, const char *key, const char *value)
{
    buf_str(b, key);
    buf_add(b, "=", 1);
    buf_str(b, value);
    buf_add(b, "\n", 1);
}

void buf_uint(struct buf *b, unsigned long v)
{
    char d[20];
    size_t n = sizeof d;
    do
        d[--n] = (char)('0' + v % 10);
    while (v /= 10);
    buf_add(b, d + n, sizeof d - n);
}
