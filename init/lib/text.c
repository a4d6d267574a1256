/* Text and bytes. */
#include "lib/text.h"

#include "lib/mem.h"
#include "lib/buf.h"

#include <limits.h>
#include <stdint.h>
#include <string.h>

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

/* Code points that can steer or spoof a terminal though they print
 * nothing of their own: the C1 controls (CSI is U+009B), and Unicode's
 * format characters that reorder or hide text: the Arabic letter mark,
 * the Mongolian vowel separator, zero-width spaces and joiners, LRM and
 * RLM, the line and paragraph separators (a line break to some
 * terminals), the bidi embeddings, overrides and isolates (U+202A..E,
 * U+2066..9: "Trojan Source"), the invisible operators, the byte order
 * mark, the interlinear annotations and the tag characters. */
static bool spoofs(unsigned cp)
{
    return (cp >= 0x80 && cp < 0xa0) || cp == 0x061c || cp == 0x180e ||
           (cp >= 0x200b && cp <= 0x200f) || (cp >= 0x2028 && cp <= 0x202e) ||
           (cp >= 0x2060 && cp <= 0x206f) || cp == 0xfeff || (cp >= 0xfff9 && cp <= 0xfffb) ||
           (cp >= 0xe0000 && cp <= 0xe007f);
}

size_t buf_escaped_fit(struct buf *b, const char *s, size_t n, bool backslash, size_t limit)
{
    static const char hex[] = "0123456789abcdef";
    const unsigned char *p = (const unsigned char *)s;
    size_t i = 0;
    while (i < n) {
        size_t l = utf8_seq_len(p + i, n - i);
        unsigned cp = l == 1 ? p[i] : l ? p[i] & (0x7fu >> l) : 0;
        for (size_t k = 1; k < l; k++)
            cp = (cp << 6) | (p[i + k] & 0x3fu);
        /* C0 controls and DEL, the code points above, and bytes that are
         * not UTF-8 (one at a time) become \xNN, each byte of them. */
        bool esc = !l || (l == 1 ? cp < 0x20 || cp == 0x7f : spoofs(cp));
        bool bs = backslash && p[i] == '\\';
        size_t unit = l ? l : 1, out = bs ? 2 : esc ? 4 * unit : unit;
        if (b->len + out > limit)
            break;
        if (bs) {
            buf_add(b, "\\\\", 2);
        } else if (!esc) {
            buf_add(b, p + i, unit);
        } else {
            for (size_t k = 0; k < unit; k++) {
                char e[4] = { '\\', 'x', hex[p[i + k] >> 4], hex[p[i + k] & 15] };
                buf_add(b, e, 4);
            }
        }
        i += unit;
    }
    return i;
}

void buf_escaped(struct buf *b, const char *s, size_t n, bool backslash)
{
    buf_escaped_fit(b, s, n, backslash, SIZE_MAX);
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
            /* A run of characters that stand as they are, added at once. */
            size_t at = i, l;
            while (i < n && p[i] != '"' && p[i] != '\\' && p[i] >= 0x20 && p[i] != 0x7f &&
                   (l = utf8_seq_len(p + i, n - i)))
                i += l;
            buf_add(b, p + at, i - at);
            if (at == i) {
                buf_str(b, "\\ufffd");
                i++;
            }
        }
    }
    buf_add(b, "\"", 1);
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

bool profile_name_valid(const char *s)
{
    if (!*s || *s == '.' || *s == '-')
        return false;
    for (; *s; s++)
        if (!((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') ||
              *s == '-' || *s == '_' || *s == '.'))
            return false;
    return true;
}
