#include "sinks/block.h"
#include "lib/buf.h"
#include "lib/digest.h"

#include <errno.h>
#include <string.h>

/* The end of a marker line that starts at i: the marker, then "\n", "\r\n"
 * or the end of the file; a lone '\r' counts before the end of the file
 * too. A file edited on Windows, or by a tool that keeps CRLF, still has
 * its block found (and replaced, not added a second time). Returns the
 * offset just past the marker's own text and its optional '\r' (the
 * '\n', if any, is at that offset), or 0 when the line is not the marker. */
static size_t marker_end(const char *s, size_t n, size_t i, const char *marker)
{
    size_t ml = strlen(marker), e = i + ml;
    if (e > n || memcmp(s + i, marker, ml) != 0)
        return 0;
    if (e < n && s[e] == '\r')
        e++;
    return e == n || s[e] == '\n' ? e : 0;
}

/* Finds a line equal to marker in s[0..n); returns its offset or -1. */
static long find_line(const char *s, size_t n, const char *marker, size_t from)
{
    for (size_t i = from; i < n;) {
        if ((i == 0 || s[i - 1] == '\n') && marker_end(s, n, i, marker))
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
            i = marker_end(old, n, (size_t)e, BLOCK_END);
            if (i >= n)
                break;
        }
        if (old[i] != ' ' && old[i] != '\n' && old[i] != '\t' && old[i] != '\r')
            return false;
    }
    return true;
}

/* BLOCK_SUM's digits for body[0..n): the sha256 in hex. */
static void sum_of(const char *body, size_t n, char hex[65])
{
    struct sha256 c;
    sha256_init(&c);
    sha256_update(&c, body, n);
    sha256_hex(&c, hex);
}

/* The block with its markers ending in eol, and its note (block.h: 1 MADE,
 * 2 NEWLINE) after the BEGIN; a MADE note with the BLOCK_SUM line of the
 * body.
 * The body's lines (and the note's) keep their '\n' alone: a CR would
 * become part of a value in pam_env's and NCCL's readers, and Python reads
 * either. */
static void wrap(struct buf *out, const char *body, const char *eol, int note)
{
    buf_str(out, BLOCK_BEGIN);
    buf_str(out, eol);
    if (note) {
        buf_str(out, note == 1 ? BLOCK_MADE : BLOCK_NEWLINE);
        buf_str(out, "\n");
    }
    if (note == 1) {
        char hex[65];
        sum_of(body, strlen(body), hex);
        buf_str(out, BLOCK_SUM);
        buf_str(out, hex);
        buf_str(out, "\n");
    }
    buf_str(out, body);
    buf_str(out, BLOCK_END);
    buf_str(out, eol);
}

void block_wrap(struct buf *out, const char *body)
{
    wrap(out, body, "\n", 0);
}

bool block_find(const char *old, size_t n, size_t *begin, size_t *end)
{
    long b = find_line(old, n, BLOCK_BEGIN, 0);
    long e = b >= 0 ? find_line(old, n, BLOCK_END, (size_t)b) : -1;
    if (b < 0 || e < 0 || find_line(old, n, BLOCK_BEGIN, (size_t)b + 1) >= 0)
        return false;
    *begin = (size_t)b;
    *end = marker_end(old, n, (size_t)e, BLOCK_END);
    if (*end < n)
        (*end)++;
    return true;
}

void block_insert(struct buf *out, const char *old, size_t n, const char *body, size_t at,
                  bool made)
{
    buf_add(out, old, at);
    wrap(out, body, "\n", made ? 1 : 0);
    buf_add(out, old + at, n - at);
}

/* A MADE block (its note line starts at note): are its lines, from the
 * BLOCK_SUM line after the note to the END line at e, still the ones
 * nccl-init wrote? 1 yes, 0 they changed, -1 no BLOCK_SUM line (an older
 * nccl-init's block): nothing to tell by. */
static int made_intact(const char *s, size_t note, size_t e)
{
    const char *nl = memchr(s + note, '\n', e - note);
    size_t sum = nl ? (size_t)(nl - s) + 1 : e, sl = strlen(BLOCK_SUM);
    if (sum + sl + 65 > e || memcmp(s + sum, BLOCK_SUM, sl) != 0 || s[sum + sl + 64] != '\n')
        return -1;
    char hex[65];
    sum_of(s + sum + sl + 65, e - (sum + sl + 65), hex);
    return memcmp(hex, s + sum + sl, 64) == 0;
}

int block_splice(struct buf *out, const char *old, size_t n, const char *body, bool at_top,
                 bool created)
{
    long b = find_line(old, n, BLOCK_BEGIN, 0);
    long e = find_line(old, n, BLOCK_END, b >= 0 ? (size_t)b : 0);
    if ((b < 0) != (e < 0) || (b >= 0 && find_line(old, n, BLOCK_BEGIN, (size_t)b + 1) >= 0))
        return -EBADMSG; /* damaged: a BEGIN without an END, or two blocks */
    const char *eol = "\n";
    int note;
    size_t end;
    if (b < 0) {
        if (!body)
            return BLOCK_NONE;
        /* A new block goes at the top or the end, after a newline that ends
         * the last line if it has none: the note says which. */
        note = created ? 1 : !at_top && n && old[n - 1] != '\n' ? 2 : 0;
        b = at_top ? 0 : (long)n;
        end = (size_t)b;
    } else {
        /* The BEGIN line ends in '\n' (its END is on a later line); its note
         * is the line after it. The markers keep the line end the old BEGIN
         * had: a CRLF file's block is rewritten as "# BEGIN nccl-init\r\n"
         * ... "\r\n". */
        size_t begin_end = marker_end(old, n, (size_t)b, BLOCK_BEGIN);
        if (old[begin_end - 1] == '\r')
            eol = "\r\n";
        note = marker_end(old, n, begin_end + 1, BLOCK_MADE)      ? 1
               : marker_end(old, n, begin_end + 1, BLOCK_NEWLINE) ? 2
                                                                  : 0;
        end = marker_end(old, n, (size_t)e, BLOCK_END);
        if (end < n)
            end++; /* its newline */
        /* A made file whose block's lines someone changed: those lines
         * may be theirs, and nothing tells which. */
        int intact = note == 1 ? made_intact(old, begin_end + 1, (size_t)e) : -1;
        if (!body && intact == 0)
            return BLOCK_EDITED;
        /* Taken out of a file it still ends, the note says what else was
         * nccl-init's: the whole file (unless something came before it,
         * or the block's lines cannot be vouched for), or the newline
         * before it (b is a line start). */
        if (!body && end == n && intact == 1 && b == 0)
            return BLOCK_ALONE;
        if (!body && end == n && note == 2 && b)
            b--;
    }
    buf_add(out, old, (size_t)b);
    if (body) {
        if (note == 2 && (size_t)b == n) /* a new block, after the newline */
            buf_add(out, "\n", 1);
        wrap(out, body, eol, note);
    }
    buf_add(out, old + end, n - end);
    return BLOCK_SPLICED;
}
