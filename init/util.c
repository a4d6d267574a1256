#include "util.h"

#include "log.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
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
    if (b->fixed) {
        if (b->cap == 0)
            return;
        size_t room = b->cap - 1 - b->len;
        if (n > room)
            n = room;
    } else {
        grow((void **)&b->data, &b->cap, b->len + n + 1, 1);
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
        grow((void **)&b->data, &b->cap, b->len + (size_t)n + 1, 1);
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
        free(b->data);
    b->data = NULL;
    b->len = b->cap = 0;
}

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

static void merge_sort(char *v, char *tmp, size_t n, size_t size,
                       int (*cmp)(const void *, const void *))
{
    if (n < 2)
        return;
    size_t h = n / 2;
    merge_sort(v, tmp, h, size, cmp);
    merge_sort(v + h * size, tmp, n - h, size, cmp);
    /* Halves already in order need no merge. The environment arrives as
     * sorted runs (the inherited variables, then the profile's), so this
     * makes its sort nearly linear. */
    if (cmp(v + (h - 1) * size, v + h * size) <= 0)
        return;
    size_t i = 0, j = h, k = 0;
    while (i < h && j < n) {
        /* "<= 0" takes the left one on ties: that is what makes it stable */
        if (cmp(v + i * size, v + j * size) <= 0)
            memcpy(tmp + k++ * size, v + i++ * size, size);
        else
            memcpy(tmp + k++ * size, v + j++ * size, size);
    }
    memcpy(tmp + k * size, v + i * size, (h - i) * size);
    k += h - i;
    memcpy(tmp + k * size, v + j * size, (n - j) * size);
    memcpy(v, tmp, n * size);
}

void sort(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
    if (n < 2)
        return;
    /* The start-up's sorts are of a few dozen items: their scratch space
     * is on the stack, not a heap block taken and given back each time. */
    char small[2048];
    char *tmp = n * size <= sizeof small ? small : xmalloc(n * size);
    merge_sort(base, tmp, n, size, cmp);
    if (tmp != small)
        free(tmp);
}

bool parse_c_integer(const char *s, long long *out)
{
    bool neg = false;
    unsigned base = 10;
    unsigned long long v = 0, limit;
    while (*s == ' ' || (*s >= '\t' && *s <= '\r'))
        s++;
    if (*s == '+' || *s == '-')
        neg = *s++ == '-';
    if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X') &&
        ((s[2] >= '0' && s[2] <= '9') || ((s[2] | 32) >= 'a' && (s[2] | 32) <= 'f')))
        base = 16, s += 2;
    else if (s[0] == '0')
        base = 8;
    limit = neg ? (unsigned long long)LLONG_MAX + 1 : (unsigned long long)LLONG_MAX;
    for (;; s++) {
        unsigned d;
        if (*s >= '0' && *s <= '9')
            d = (unsigned)(*s - '0');
        else if ((*s | 32) >= 'a' && (*s | 32) <= 'f')
            d = (unsigned)((*s | 32) - 'a' + 10);
        else
            break;
        if (d >= base)
            break;
        if (v > (limit - d) / base)
            return false;
        v = v * base + d;
    }
    *out = neg ? (long long)(0ULL - v) : (long long)v;
    return true;
}

const void *find_bytes(const void *hay, size_t hn, const void *needle, size_t nn)
{
    const char *h = hay, *end = h + hn;
    if (nn == 0)
        return hay;
    while ((size_t)(end - h) >= nn) {
        const char *c = memchr(h, *(const char *)needle, (size_t)(end - h) - nn + 1);
        if (!c)
            return NULL;
        if (memcmp(c, needle, nn) == 0)
            return c;
        h = c + 1;
    }
    return NULL;
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
 * hold, so it is a first guess, and the end is a read of 0 bytes, except
 * that a file that gave exactly its stated size (more than 0) is done:
 * that saves a read on every profile at start-up. */
int read_fd(int fd, off_t size, size_t max, char **data, size_t *len)
{
    /* Straight into the heap: an init's stack pages count in its RSS. */
    struct buf b = { 0 };
    size_t guess = size > 0 && (size_t)size < max ? (size_t)size + 1 : 256;
    grow((void **)&b.data, &b.cap, guess, 1);
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
        if (size > 0 && b.len == (size_t)size)
            break;
    }
    close(fd);
    b.data[b.len] = '\0';
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

void buf_escaped(struct buf *b, const char *s, size_t n)
{
    static const char hex[] = "0123456789abcdef";
    const unsigned char *p = (const unsigned char *)s;
    for (size_t i = 0; i < n;) {
        size_t l = utf8_seq_len(p + i, n - i);
        /* C0 controls and DEL; U+0080..U+009F, which some terminals take as
         * 8-bit controls (CSI is U+009B); and bytes that are not UTF-8. */
        bool control = l == 1 ? p[i] < 0x20 || p[i] == 0x7f : l == 2 && p[i] == 0xc2 && p[i + 1] < 0xa0;
        if (l && !control) {
            buf_add(b, p + i, l);
            i += l;
            continue;
        }
        for (size_t k = 0; k < (l ? l : 1); k++) {
            char e[4] = { '\\', 'x', hex[p[i + k] >> 4], hex[p[i + k] & 15] };
            buf_add(b, e, 4);
        }
        i += l ? l : 1;
    }
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
    /* Collapse in place; base is where the first component starts. */
    char *s = r.data, *w = s;
    size_t base = *s == '/';
    w += base;
    for (char *p = s + base; *p;) {
        while (*p == '/')
            p++;
        size_t n = strcspn(p, "/");
        char *prev = w;
        while (prev > s + base && prev[-1] != '/')
            prev--; /* start of the last component written */
        bool last_is_dotdot = w - prev == 2 && prev[0] == '.' && prev[1] == '.';
        if (n == 0 || (n == 1 && p[0] == '.')) {
            /* nothing */
        } else if (n == 2 && p[0] == '.' && p[1] == '.' && (w > s + base || base) &&
                   !last_is_dotdot) {
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

size_t edit_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > 64 || lb > 64)
        return SIZE_MAX;
    size_t row[65];
    for (size_t j = 0; j <= lb; j++)
        row[j] = j;
    for (size_t i = 1; i <= la; i++) {
        size_t diagv = row[0];
        row[0] = i;
        for (size_t j = 1; j <= lb; j++) {
            size_t up = row[j];
            size_t best = diagv + (a[i - 1] != b[j - 1]);
            if (up + 1 < best)
                best = up + 1;
            if (row[j - 1] + 1 < best)
                best = row[j - 1] + 1;
            row[j] = best;
            diagv = up;
        }
    }
    return row[lb];
}
