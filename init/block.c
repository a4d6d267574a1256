#include "block.h"

#include <string.h>

/* Finds a line equal to marker in s[0..n); returns its offset or -1. */
static long find_line(const char *s, size_t n, const char *marker, size_t from)
{
    size_t ml = strlen(marker);
    for (size_t i = from; i + ml <= n;) {
        if ((i == 0 || s[i - 1] == '\n') && memcmp(s + i, marker, ml) == 0 &&
            (i + ml == n || s[i + ml] == '\n'))
            return (long)i;
        const char *nl = memchr(s + i, '\n', n - i);
        if (!nl)
            break;
        i = (size_t)(nl - s) + 1;
    }
    return -1;
}

bool block_only(const char *old, size_t n)
{
    long b = find_line(old, n, BLOCK_BEGIN, 0);
    long e = b >= 0 ? find_line(old, n, BLOCK_END, (size_t)b) : -1;
    for (size_t i = 0; i < n; i++) {
        if (b >= 0 && e >= 0 && i == (size_t)b) {
            i = (size_t)e + strlen(BLOCK_END);
            if (i >= n)
                break;
        }
        if (old[i] != ' ' && old[i] != '\n' && old[i] != '\t')
            return false;
    }
    return true;
}

void block_wrap(struct buf *out, const char *body)
{
    buf_str(out, BLOCK_BEGIN "\n");
    buf_str(out, body);
    buf_str(out, BLOCK_END "\n");
}

int block_splice(struct buf *out, const char *old, size_t n, const char *body, bool at_top)
{
    long b = find_line(old, n, BLOCK_BEGIN, 0);
    long e = b >= 0 ? find_line(old, n, BLOCK_END, (size_t)b) : find_line(old, n, BLOCK_END, 0);
    if ((b < 0) != (e < 0) || (b >= 0 && find_line(old, n, BLOCK_BEGIN, (size_t)b + 1) >= 0))
        return -1;
    if (b >= 0) {
        size_t end = (size_t)e + strlen(BLOCK_END);
        if (end < n)
            end++; /* its newline */
        buf_add(out, old, (size_t)b);
        block_wrap(out, body);
        buf_add(out, old + end, n - end);
        return 0;
    }
    if (at_top) {
        block_wrap(out, body);
        buf_add(out, old, n);
    } else {
        buf_add(out, old, n);
        if (n && old[n - 1] != '\n')
            buf_add(out, "\n", 1);
        block_wrap(out, body);
    }
    return 0;
}
