#include "nccl/profile.h"

#include "lib/fileio.h"
#include "lib/mem.h"
#include "lib/sort.h"
#include "lib/text.h"

#include <ctype.h>
#include <dirent.h>
#include <stdint.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

bool key_valid(const char *s, size_t n)
{
    if (n == 0 || (s[0] >= '0' && s[0] <= '9'))
        return false;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
              c == '_'))
            return false;
    }
    return true;
}

/* First control byte in s[0..n), or -1. NUL counts: a file with a NUL in
 * the middle of a value would be truncated silently by every consumer. */
static int first_control(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c < 0x20 || c == 0x7f)
            return c;
    }
    return -1;
}

void kv_begin(struct kv_reader *r, char *text, size_t len)
{
    *r = (struct kv_reader){ text, text + len, 0 };
}

bool kv_next(struct kv_reader *r, struct kv_line *l)
{
    while (r->at < r->end) {
        char *s = r->at;
        char *nl = memchr(s, '\n', (size_t)(r->end - s));
        size_t n = nl ? (size_t)(nl - s) : (size_t)(r->end - s);
        s[n] = '\0'; /* the newline, or the terminating NUL */
        r->at = s + n + 1;
        r->line++;
        if (n == 0 || s[0] == '#')
            continue;
        /* memchr, not strchr: a NUL in the line is the caller's to see */
        char *eq = memchr(s, '=', n);
        *l = (struct kv_line){ .key = s, .key_len = n, .len = n, .line = r->line };
        if (eq) {
            *eq = '\0';
            l->key_len = (size_t)(eq - s);
            l->value = eq + 1;
            l->value_len = n - l->key_len - 1;
        }
        return true;
    }
    return false;
}

/* The line's shape up to the '=': reports the first problem and returns
 * true, or returns false for a line that is KEY=... with a valid key. */
static bool bad_line(const struct kv_line *l, const char *f, struct diag *d)
{
    const char *s = l->key;
    size_t klen = l->key_len;
    if (l->len > PROFILE_MAX_LINE) {
        diag(d, DIAG_ERROR, f, l->line, "line is %zu bytes long; the limit is %d", l->len,
             PROFILE_MAX_LINE);
    } else if (s[0] == ' ' || s[0] == '\t') {
        diag(d, DIAG_ERROR, f, l->line,
             "leading whitespace: keys and '#' comments start at column 0");
    } else if (strncmp(s, "export ", 7) == 0) {
        diag(d, DIAG_ERROR, f, l->line, "'export' is not allowed: write KEY=VALUE");
    } else if (!l->value) {
        int c = first_control(s, l->len);
        if (c >= 0)
            diag(d, DIAG_ERROR, f, l->line, "malformed line: control character 0x%02x", c);
        else
            diag(d, DIAG_ERROR, f, l->line, "malformed line: expected KEY=VALUE");
    } else if (klen == 0) {
        diag(d, DIAG_ERROR, f, l->line, "malformed line: empty key before '='");
    } else if (s[klen - 1] == ' ' || s[klen - 1] == '\t') {
        diag(d, DIAG_ERROR, f, l->line, "space before '=': write KEY=VALUE");
    } else if (!key_valid(s, klen)) {
        int c = first_control(s, klen);
        if (c >= 0)
            diag(d, DIAG_ERROR, f, l->line, "bad key: control character 0x%02x", c);
        else
            diag(d, DIAG_ERROR, f, l->line,
                 "bad key '%.*s': a key is a letter or '_' followed by letters, digits or '_'",
                 (int)(klen > 64 ? 64 : klen), s);
    } else {
        return false;
    }
    return true;
}

/* The value: reports the first byte that docker, kubectl and NCCL would
 * read differently and returns true; false when there is none. */
static bool bad_value(const struct kv_line *l, const char *f, struct diag *d)
{
    const char *val = l->value;
    size_t vlen = l->value_len;
    int c = first_control(val, vlen);
    if (vlen > 0 && (val[0] == ' ' || val[0] == '\t'))
        diag(d, DIAG_ERROR, f, l->line,
             "%s: space after '=': docker and NCCL would keep it as part of the value", l->key);
    else if (c >= 0)
        diag(d, DIAG_ERROR, f, l->line, "%s: value contains control character 0x%02x", l->key,
             c);
    else if (vlen > 0 && val[vlen - 1] == ' ')
        diag(d, DIAG_ERROR, f, l->line,
             "%s: trailing space: docker and NCCL would keep it as part of the value", l->key);
    else if (!utf8_valid(val, vlen))
        diag(d, DIAG_ERROR, f, l->line, "%s: value is not valid UTF-8", l->key);
    else
        return false;
    return true;
}

/* A value that all three read alike, but perhaps not as its writer meant. */
static void warn_value(const struct kv_line *l, const char *f, struct diag *d)
{
    const char *val = l->value;
    size_t vlen = l->value_len;
    if (vlen >= 2 && (val[0] == '"' || val[0] == '\'') && val[vlen - 1] == val[0])
        diag(d, DIAG_WARNING, f, l->line,
             "%s: the quotes are part of the value: env-files have no quoting", l->key);
    else if (memmem(val, vlen, " #", 2))
        diag(d, DIAG_WARNING, f, l->line,
             "%s: '#' is part of the value: comments start only at column 0", l->key);
}

/* One line with a valid key: its value checked, and on success added to p. */
static void take_line(struct profile *p, const struct kv_line *l, struct diag *d,
                      entry_fn *check, void *ctx)
{
    if (bad_value(l, p->path, d))
        return;
    /* by hash: a scan of the lines before made n lines cost n*n/2 */
    long long prev = strmap_put(&p->keys, l->key, p->n);
    if (prev >= 0) {
        diag(d, DIAG_ERROR, p->path, l->line, "duplicate key %s (first set at line %u)", l->key,
             p->v[prev].line);
        return;
    }
    warn_value(l, p->path, d);
    grow((void **)&p->v, &p->cap, p->n + 1, sizeof p->v[0]);
    p->v[p->n] = (struct entry){ l->key, l->value, p->path, l->line, p->name };
    if (check)
        check(&p->v[p->n], ctx);
    p->n++;
}

/* Checks one line; on success adds it to p. The rules are the intersection
 * of what docker --env-file, kubectl and NCCL's own conf parser read the
 * same way: anything the three would disagree on is an error here. */
static void parse_line(struct profile *p, const struct kv_line *l, struct diag *d,
                       entry_fn *check, void *ctx)
{
    if (bad_line(l, p->path, d))
        return;
    d->key = l->key; /* the findings' key from here on (check --json) */
    take_line(p, l, d, check, ctx);
    d->key = NULL;
}

/* The line of the first CR that ends a line ("\r\n", or a CR that ends
 * the file), or 0. A file saved with Windows line ends has one on every
 * line: one error for the file says what to do, where one per line would
 * bury it. */
static unsigned first_crlf(const char *text, size_t len)
{
    for (const char *cr = text; (cr = memchr(cr, '\r', len - (size_t)(cr - text))); cr++)
        if ((size_t)(cr - text) + 1 == len || cr[1] == '\n') {
            unsigned line = 1;
            for (const char *nl = text; (nl = memchr(nl, '\n', (size_t)(cr - nl))); nl++)
                line++;
            return line;
        }
    return 0;
}

unsigned profile_parse(struct profile *p, char *text, size_t len, struct diag *d,
                       entry_fn *check, void *ctx)
{
    unsigned crlf = first_crlf(text, len);
    if (crlf) {
        diag(d, DIAG_ERROR, p->path, crlf, "the file has CRLF line ends (Windows); convert it "
             "with dos2unix");
        return 1;
    }
    unsigned before = d->errors;
    struct kv_reader r;
    struct kv_line l;
    kv_begin(&r, text, len);
    while (kv_next(&r, &l))
        parse_line(p, &l, d, check, ctx);
    return d->errors - before;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* How far a mistyped spec is from name, in any case (PCIE-8GPU is
 * pcie-8gpu): the edit distance, and at most 1 for a name that spec, three
 * characters or more, begins (nvlink: nvlink-hgx). SIZE_MAX past 64
 * bytes, as edit_distance. */
static size_t name_distance(const char *spec, const char *name)
{
    char a[65], b[65];
    size_t al = strlen(spec), bl = strlen(name);
    if (al >= sizeof a || bl >= sizeof b)
        return SIZE_MAX;
    for (size_t i = 0; i <= al; i++)
        a[i] = (char)tolower((unsigned char)spec[i]);
    for (size_t i = 0; i <= bl; i++)
        b[i] = (char)tolower((unsigned char)name[i]);
    size_t d = edit_distance(a, b);
    return al >= 3 && strncmp(a, b, al) == 0 && d > 1 ? 1 : d;
}

/* The profile names in dir (NAME of each NAME.env, sorted) at the smallest
 * distance from spec (name_distance), when that is small for its length:
 * *n of them.
 * A directory is a handful of profiles; at most 4096 entries are
 * looked at. */
static char **nearest_names(const char *spec, const char *dir, size_t *n)
{
    size_t best = strlen(spec) / 3 < 2 ? 2 : strlen(spec) / 3, cap = 0, looked = 0;
    if (best >= strlen(spec))
        best = strlen(spec) - 1; /* not every short name for a short typo */
    char **near = NULL;
    *n = 0;
    DIR *dh = opendir(dir);
    for (struct dirent *de; dh && looked++ < 4096 && (de = readdir(dh));) {
        size_t l = strlen(de->d_name), dist;
        if (l <= 4 || strcmp(de->d_name + l - 4, ".env") != 0)
            continue;
        char *name = xstrndup(de->d_name, l - 4);
        if (!profile_name_valid(name) || (dist = name_distance(spec, name)) > best) {
            xfree(name);
            continue;
        }
        if (dist < best)
            while (*n)
                xfree(near[--*n]);
        best = dist;
        grow((void **)&near, &cap, *n + 1, sizeof *near);
        near[(*n)++] = name;
    }
    if (dh)
        closedir(dh);
    sort(near, *n, sizeof *near, cmp_str);
    return near;
}

/* A NAME that is not in the profile directory: where it was looked for,
 * the names nearest to it there, or that the directory itself is missing
 * (a default path outside an install). */
static void no_profile(const struct profile *p, const char *dir, struct diag *d)
{
    struct stat st;
    if (stat(dir, &st) < 0 && errno == ENOENT) {
        diag(d, DIAG_ERROR, p->path, 0, "no profile %s: the profile directory %s does not exist "
             "(nccl-init is not installed there); give --profile-dir DIR, or the profile's path",
             p->name, dir);
        return;
    }
    size_t n;
    char **near = nearest_names(p->name, dir, &n);
    struct buf b = { 0 };
    for (size_t i = 0; i < n && i < 3; i++)
        buf_printf(&b, "%s%s", i == 0 ? "; did you mean " : i + 1 == n || i == 2 ? " or " : ", ",
                   near[i]);
    diag(d, DIAG_ERROR, p->path, 0, "no profile %s in %s%s%s (--profile-dir DIR looks in another "
         "directory)", p->name, dir, b.data ? b.data : "", n ? "?" : "");
    buf_free(&b);
    for (size_t i = 0; i < n; i++)
        xfree(near[i]);
    xfree(near);
}

unsigned profile_load(struct profile *p, const char *spec, const char *dir, struct diag *d,
                      entry_fn *check, void *ctx)
{
    size_t sl = strlen(spec);
    bool is_path = strchr(spec, '/') || (sl > 4 && strcmp(spec + sl - 4, ".env") == 0);
    memset(p, 0, sizeof *p);
    if (is_path) {
        const char *base = strrchr(spec, '/');
        base = base ? base + 1 : spec;
        size_t bl = strlen(base);
        if (bl > 4 && strcmp(base + bl - 4, ".env") == 0)
            bl -= 4;
        p->name = xstrndup(base, bl);
        p->path = xstrdup(spec);
    } else {
        if (!profile_name_valid(spec)) {
            diag(d, DIAG_ERROR, spec, 0,
                 "bad profile name: use letters, digits, '-', '_' and '.', or give a path");
            p->name = xstrdup(spec);
            p->path = xstrdup(spec);
            return 1;
        }
        p->name = xstrdup(spec);
        char *file = xmalloc(sl + 5);
        memcpy(file, spec, sl);
        memcpy(file + sl, ".env", 5);
        p->path = path_join(dir, file);
        xfree(file);
    }
    size_t len;
    int r = read_file(p->path, PROFILE_MAX_SIZE, &p->text, &len);
    if (r < 0) {
        if (r == -ENOENT && !is_path)
            no_profile(p, dir, d);
        else if (r == -EFBIG)
            diag(d, DIAG_ERROR, p->path, 0, "profile is larger than %d bytes", PROFILE_MAX_SIZE);
        else if (r == -EINVAL)
            diag(d, DIAG_ERROR, p->path, 0, "not a regular file (a FIFO or device is not read)");
        else
            diag(d, DIAG_ERROR, p->path, 0, "cannot read profile: %s", strerror(-r));
        return 1;
    }
    return profile_parse(p, p->text, len, d, check, ctx);
}

void profile_free(struct profile *p)
{
    xfree(p->name);
    xfree(p->path);
    xfree(p->text);
    xfree(p->v);
    strmap_free(&p->keys);
    memset(p, 0, sizeof *p);
}
