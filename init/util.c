#include "util.h"

#include "log.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p)
        die(1, "out of memory");
    return p;
}

void *xrealloc(void *p, size_t n)
{
    p = realloc(p, n ? n : 1);
    if (!p)
        die(1, "out of memory");
    return p;
}

char *xstrndup(const char *s, size_t n)
{
    char *d = xmalloc(n + 1);
    memcpy(d, s, n);
    d[n] = '\0';
    return d;
}

char *xstrdup(const char *s) { return xstrndup(s, strlen(s)); }

void grow(void **v, size_t *cap, size_t need, size_t sz)
{
    if (need <= *cap)
        return;
    size_t c = *cap ? *cap : 8;
    while (c < need)
        c *= 2;
    *v = xrealloc(*v, c * sz);
    *cap = c;
}

void buf_add(struct buf *b, const void *p, size_t n)
{
    grow((void **)&b->data, &b->cap, b->len + n + 1, 1);
    memcpy(b->data + b->len, p, n);
    b->len += n;
    b->data[b->len] = '\0';
}

void buf_str(struct buf *b, const char *s) { buf_add(b, s, strlen(s)); }

void buf_printf(struct buf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    grow((void **)&b->data, &b->cap, b->len + (size_t)n + 1, 1);
    va_start(ap, fmt);
    vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

void buf_free(struct buf *b)
{
    free(b->data);
    b->data = NULL;
    b->len = b->cap = 0;
}

int read_file(const char *path, size_t max, char **data, size_t *len)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
    if (fd < 0)
        return -errno;
    struct stat st;
    if (fstat(fd, &st) < 0) {
        int e = errno;
        close(fd);
        return -e;
    }
    if (S_ISDIR(st.st_mode)) {
        close(fd);
        return -EISDIR;
    }
    struct buf b = { 0 };
    char chunk[4096];
    for (;;) {
        ssize_t n = read(fd, chunk, sizeof chunk);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            int e = errno;
            close(fd);
            buf_free(&b);
            return -e;
        }
        if (n == 0)
            break;
        if (b.len + (size_t)n > max) {
            close(fd);
            buf_free(&b);
            return -EFBIG;
        }
        buf_add(&b, chunk, (size_t)n);
    }
    close(fd);
    if (!b.data)
        buf_add(&b, "", 0);
    *data = b.data;
    *len = b.len;
    return 0;
}

size_t utf8_seq_len(const unsigned char *s, size_t avail)
{
    unsigned c = s[0];
    size_t n;
    unsigned min;
    if (c < 0x80)
        return 1;
    if (c >= 0xc2 && c <= 0xdf)
        n = 2, min = 0x80;
    else if (c >= 0xe0 && c <= 0xef)
        n = 3, min = 0x800;
    else if (c >= 0xf0 && c <= 0xf4)
        n = 4, min = 0x10000;
    else
        return 0;
    if (avail < n)
        return 0;
    unsigned cp = c & (0x7f >> n);
    for (size_t i = 1; i < n; i++) {
        if ((s[i] & 0xc0) != 0x80)
            return 0;
        cp = (cp << 6) | (s[i] & 0x3f);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
        return 0;
    return n;
}

bool utf8_valid(const char *s, size_t n)
{
    const unsigned char *p = (const unsigned char *)s;
    for (size_t i = 0; i < n;) {
        size_t l = utf8_seq_len(p + i, n - i);
        if (!l)
            return false;
        i += l;
    }
    return true;
}

void json_string(struct buf *b, const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t n = strlen(s);
    buf_add(b, "\"", 1);
    for (size_t i = 0; i < n;) {
        unsigned c = p[i];
        if (c == '"' || c == '\\') {
            char e[2] = { '\\', (char)c };
            buf_add(b, e, 2);
            i++;
        } else if (c < 0x20 || c == 0x7f) {
            buf_printf(b, "\\u%04x", c);
            i++;
        } else {
            size_t l = utf8_seq_len(p + i, n - i);
            if (l)
                buf_add(b, p + i, l);
            else
                buf_str(b, "\\ufffd");
            i += l ? l : 1;
        }
    }
    buf_add(b, "\"", 1);
}

char *path_join(const char *a, const char *b)
{
    size_t la = strlen(a);
    while (la > 1 && a[la - 1] == '/')
        la--;
    while (*b == '/')
        b++;
    struct buf r = { 0 };
    buf_add(&r, a, la);
    if (!(la == 1 && a[0] == '/'))
        buf_add(&r, "/", 1);
    buf_str(&r, b);
    return r.data;
}
