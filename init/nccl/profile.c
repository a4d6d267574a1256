#include "nccl/profile.h"

#include "lib/fileio.h"
#include "lib/mem.h"
#include "lib/text.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int key_valid(const char *s, size_t n)
{
    if (n == 0 || (s[0] >= '0' && s[0] <= '9'))
        return 0;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
              c == '_'))
            return 0;
    }
    return 1;
}

static const struct entry *find_key(const struct profile *p, const char *key)
{
    for (size_t i = 0; i < p->n; i++)
        if (strcmp(p->v[i].key, key) == 0)
            return &p->v[i];
    return NULL;
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

/* Checks one line; on success adds it to p. The rules are the intersection
 * of what docker --env-file, kubectl and NCCL's own conf parser read the
 * same way: anything the three would disagree on is an error here. */
static void parse_line(struct profile *p, char *s, size_t n, unsigned lineno, struct diag *d,
                       entry_fn *check, void *ctx)
{
    const char *f = p->path;
    if (n == 0 || s[0] == '#')
        return;
    if (n > PROFILE_MAX_LINE) {
        diag(d, DIAG_ERROR, f, lineno, "line is %zu bytes long; the limit is %d", n,
             PROFILE_MAX_LINE);
        return;
    }
    if (s[0] == ' ' || s[0] == '\t') {
        diag(d, DIAG_ERROR, f, lineno,
             "leading whitespace: keys and '#' comments start at column 0");
        return;
    }
    if (strncmp(s, "export ", 7) == 0) {
        diag(d, DIAG_ERROR, f, lineno, "'export' is not allowed: write KEY=VALUE");
        return;
    }
    char *eq = memchr(s, '=', n);
    if (!eq) {
        int c = first_control(s, n);
        if (c >= 0)
            diag(d, DIAG_ERROR, f, lineno, "malformed line: control character 0x%02x", c);
        else
            diag(d, DIAG_ERROR, f, lineno, "malformed line: expected KEY=VALUE");
        return;
    }
    size_t klen = (size_t)(eq - s);
    char *val = eq + 1;
    size_t vlen = n - klen - 1;
    if (klen == 0) {
        diag(d, DIAG_ERROR, f, lineno, "malformed line: empty key before '='");
        return;
    }
    if (s[klen - 1] == ' ' || s[klen - 1] == '\t') {
        diag(d, DIAG_ERROR, f, lineno, "space before '=': write KEY=VALUE");
        return;
    }
    if (!key_valid(s, klen)) {
        *eq = '\0';
        int c = first_control(s, klen);
        if (c >= 0)
            diag(d, DIAG_ERROR, f, lineno, "bad key: control character 0x%02x", c);
        else
            diag(d, DIAG_ERROR, f, lineno,
                 "bad key '%.*s': a key is a letter or '_' followed by letters, digits or '_'",
                 (int)(klen > 64 ? 64 : klen), s);
        return;
    }
    *eq = '\0';
    if (vlen > 0 && (val[0] == ' ' || val[0] == '\t')) {
        diag(d, DIAG_ERROR, f, lineno,
             "%s: space after '=': docker and NCCL would keep it as part of the value", s);
        return;
    }
    int c = first_control(val, vlen);
    if (c >= 0) {
        diag(d, DIAG_ERROR, f, lineno, "%s: value contains control character 0x%02x%s", s, c,
             c == '\r' ? " (CRLF line ending?)" : "");
        return;
    }
    if (vlen > 0 && val[vlen - 1] == ' ') {
        diag(d, DIAG_ERROR, f, lineno,
             "%s: trailing space: docker and NCCL would keep it as part of the value", s);
        return;
    }
    if (!utf8_valid(val, vlen)) {
        diag(d, DIAG_ERROR, f, lineno, "%s: value is not valid UTF-8", s);
        return;
    }
    const struct entry *prev = find_key(p, s);
    if (prev) {
        diag(d, DIAG_ERROR, f, lineno, "duplicate key %s (first set at line %u)", s, prev->line);
        return;
    }
    if (vlen >= 2 && (val[0] == '"' || val[0] == '\'') && val[vlen - 1] == val[0])
        diag(d, DIAG_WARNING, f, lineno,
             "%s: the quotes are part of the value: env-files have no quoting", s);
    else if (memmem(val, vlen, " #", 2))
        diag(d, DIAG_WARNING, f, lineno,
             "%s: '#' is part of the value: comments start only at column 0", s);
    grow((void **)&p->v, &p->cap, p->n + 1, sizeof p->v[0]);
    p->v[p->n] = (struct entry){ s, val, p->path, lineno, p->name };
    if (check)
        check(&p->v[p->n], ctx);
    p->n++;
}

unsigned profile_parse(struct profile *p, char *text, size_t len, struct diag *d,
                       entry_fn *check, void *ctx)
{
    unsigned before = d->errors;
    unsigned lineno = 0;
    char *s = text, *end = text + len;
    while (s < end) {
        char *nl = memchr(s, '\n', (size_t)(end - s));
        size_t n = nl ? (size_t)(nl - s) : (size_t)(end - s);
        s[n] = '\0'; /* the newline, or the terminating NUL */
        parse_line(p, s, n, ++lineno, d, check, ctx);
        s += n + 1;
    }
    return d->errors - before;
}

static int name_valid(const char *s)
{
    if (!*s || *s == '.' || *s == '-')
        return 0;
    for (; *s; s++)
        if (!((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') ||
              *s == '-' || *s == '_' || *s == '.'))
            return 0;
    return 1;
}

unsigned profile_load(struct profile *p, const char *spec, const char *dir, struct diag *d,
                      entry_fn *check, void *ctx)
{
    size_t sl = strlen(spec);
    int is_path = strchr(spec, '/') || (sl > 4 && strcmp(spec + sl - 4, ".env") == 0);
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
        if (!name_valid(spec)) {
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
        if (r == -EFBIG)
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
    memset(p, 0, sizeof *p);
}
