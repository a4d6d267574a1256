#include "validate.h"

#include "nccl_table.h"
#include "util.h"

#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Plain decimal: what NCCL's strtoll(s, NULL, 0) reads exactly as written.
 * No sign but '-', no leading zero (octal), no suffix, no hex, no spaces. */
static bool plain_decimal(const char *s, long long *out)
{
    const char *p = s + (*s == '-');
    if (!*p || (p[0] == '0' && p[1] != '\0'))
        return false;
    for (const char *q = p; *q; q++)
        if (*q < '0' || *q > '9')
            return false;
    return parse_c_integer(s, out);
}

/* Is tok (length n) one of the comma-separated tokens? */
static const char *token_match(const char *tokens, const char *tok, size_t n, bool fold)
{
    for (const char *t = tokens; *t;) {
        const char *c = strchr(t, ',');
        size_t tl = c ? (size_t)(c - t) : strlen(t);
        if (tl == n && (fold ? strncasecmp(t, tok, n) : strncmp(t, tok, n)) == 0)
            return t;
        t += tl + (c != NULL);
    }
    return NULL;
}

/* Reports a bad value: what is wrong, then what NCCL does with it. */
static void bad(struct diag *d, int sev, const struct entry *e, const struct value_rule *r,
                const char *what)
{
    diag(d, sev, e->file, e->line, "%s=%s: %s%s%s", e->key, e->value, what,
         r->on_bad ? "; " : "", r->on_bad ? r->on_bad : "");
}

static void check_int(const struct entry *e, const struct value_rule *r, int sev, struct diag *d)
{
    long long v, got;
    char what[160];
    struct buf w = BUF_FIXED(what);
    if (!plain_decimal(e->value, &v)) {
        /* Say what NCCL would make of it: that is the silent failure. */
        if (!parse_c_integer(e->value, &got))
            diag(d, sev, e->file, e->line, "%s=%s: out of range for a 64-bit integer", e->key,
                 e->value);
        else
            diag(d, sev, e->file, e->line,
                 "%s=%s: not a plain decimal integer; NCCL reads it as %lld without a word",
                 e->key, e->value, got);
        return;
    }
    if (!(r->flags & F_RANGE))
        return;
    if (v < r->min || v > r->max || (r->step && v % r->step)) {
        if (r->step)
            buf_printf(&w, "out of range: a multiple of %d in %lld..%lld", r->step, r->min,
                       r->max);
        else if (r->max == LLONG_MAX)
            buf_printf(&w, "out of range: at least %lld", r->min);
        else
            buf_printf(&w, "out of range: %lld..%lld", r->min, r->max);
        bad(d, sev, e, r, what);
    }
}

/* Checks a comma list of tokens with an optional leading '^'. */
static bool check_list(const struct entry *e, const struct value_rule *r, const char *s, size_t n,
                       int sev, struct diag *d)
{
    if ((r->flags & F_NEGATE) && n > 0 && *s == '^')
        s++, n--;
    for (;;) {
        const char *c = memchr(s, ',', n);
        size_t tl = c ? (size_t)(c - s) : n;
        if (!token_match(r->tokens, s, tl, true)) {
            char what[256];
            struct buf w = BUF_FIXED(what);
            buf_printf(&w, "%s '%.*s' (expected %s%s)", tl ? "unknown token" : "empty token",
                       (int)tl, s, r->tokens,
                       (r->flags & F_NEGATE) ? "; a leading '^' excludes" : "");
            bad(d, sev, e, r, what);
            return false;
        }
        if (!c)
            return true;
        n -= tl + 1;
        s = c + 1;
    }
}

/* NCCL_PROTO/NCCL_ALGO: "list" or, since 2.24, "func:list;func:list". */
static void check_func_lists(const struct entry *e, const struct value_rule *r, int sev,
                             struct diag *d)
{
    const char *s = e->value;
    for (;;) {
        const char *semi = strchr(s, ';');
        size_t n = semi ? (size_t)(semi - s) : strlen(s);
        const char *colon = (r->flags & F_FUNCS) ? memchr(s, ':', n) : NULL;
        if (colon) {
            size_t fl = (size_t)(colon - s);
            if (!token_match(nccl_collectives, s, fl, true)) {
                char what[200];
                struct buf w = BUF_FIXED(what);
                buf_printf(&w, "unknown collective '%.*s' (expected %s)", (int)fl, s,
                           nccl_collectives);
                bad(d, sev, e, r, what);
                return;
            }
            n -= fl + 1;
            s = colon + 1;
        }
        if (!check_list(e, r, s, n, sev, d) || !semi)
            return;
        s = semi + 1;
    }
}

static void check_level(const struct entry *e, const struct value_rule *r, int sev,
                        struct diag *d)
{
    long long v;
    size_t n = strlen(e->value);
    if (token_match(r->tokens, e->value, n, false))
        return;
    if (plain_decimal(e->value, &v) && v >= 0)
        return; /* legacy: 0=LOC 1=PIX 2=PXB 3=PHB >=4=SYS */
    const char *ci = token_match(r->tokens, e->value, n, true);
    char what[200];
    struct buf w = BUF_FIXED(what);
    if (ci)
        buf_printf(&w, "levels are case-sensitive (did you mean %.*s?)", (int)n, ci);
    else
        buf_printf(&w, "unknown level (expected one of %s, or 0..4)", r->tokens);
    bad(d, sev, e, r, what);
}

static void check_enum(const struct entry *e, const struct value_rule *r, int sev,
                       struct diag *d)
{
    if (token_match(r->tokens, e->value, strlen(e->value), true))
        return;
    char what[200];
    struct buf w = BUF_FIXED(what);
    buf_printf(&w, "unknown value (expected one of %s)", r->tokens);
    bad(d, sev, e, r, what);
}

/* The known names without their "NCCL_", from the library's list or the
 * built-in one. */
static const char **known_suffixes(const struct known_names *k, size_t *n)
{
    size_t cap = 0;
    const char **v = NULL;
    *n = 0;
    if (k && k->names) {
        for (size_t i = 0; i < k->n; i++) {
            grow((void **)&v, &cap, *n + 1, sizeof *v);
            v[(*n)++] = k->names[i] + 5;
        }
    } else {
        for (const char *p = nccl_names; *p; p += strlen(p) + 1) {
            grow((void **)&v, &cap, *n + 1, sizeof *v);
            v[(*n)++] = p + 1;
        }
    }
    return v;
}

/* "did you mean A, B?": the known names at the smallest edit distance, if
 * that distance is small for the name's length. Only for the first few
 * unknown names of a run: each costs a pass over every known name. */
static void suggest(const struct entry *e, const struct known_names *k, struct diag *d)
{
    static unsigned budget = 64;
    size_t count = 0;
    const char **names = NULL;
    if (budget) {
        budget--;
        names = known_suffixes(k, &count);
    }
    size_t *dist = xmalloc((count ? count : 1) * sizeof *dist);
    size_t best = strlen(e->key) / 3;
    if (best < 2)
        best = 2;
    for (size_t i = 0; i < count; i++) {
        dist[i] = edit_distance(e->key + 5, names[i]);
        if (dist[i] < best)
            best = dist[i];
    }
    struct buf b = { 0 };
    int shown = 0;
    for (size_t i = 0; i < count && shown < 3; i++)
        if (dist[i] == best) {
            buf_printf(&b, "%sNCCL_%s", shown ? ", " : "; did you mean ", names[i]);
            shown++;
        }
    free(dist);
    free(names);
    diag(d, DIAG_WARNING, e->file, e->line, "unknown NCCL variable %s%s%s", e->key,
         b.data ? b.data : "", shown ? "?" : "");
    buf_free(&b);
}

void validate_entry(const struct entry *e, const struct known_names *k, int sev, struct diag *d)
{
    if (strncmp(e->key, "NCCL_INIT_", 10) == 0) {
        diag(d, sev, e->file, e->line,
             "%s: NCCL_INIT_* variables control nccl-init and are not passed on", e->key);
        return;
    }
    if (strncmp(e->key, "NCCL_", 5) != 0)
        return; /* CUDA_*, TORCH_* and the rest pass through unvalidated */
    if (!known_names_has(k, e->key)) {
        suggest(e, k, d);
        return;
    }
    int rule = nccl_param_rule(e->key);
    if (rule < 0 || !*e->value)
        return; /* a name only the given library knows; or empty: NCCL's default */
    const struct value_rule *r = &value_rules[rule];
    switch (r->kind) {
    case V_INT:
        check_int(e, r, sev, d);
        break;
    case V_LIST:
        check_func_lists(e, r, sev, d);
        break;
    case V_LEVEL:
        check_level(e, r, sev, d);
        break;
    case V_ENUM:
        check_enum(e, r, sev, d);
        break;
    default:
        break;
    }
}

static const struct entry *set_find(const struct entry *const *set, size_t n, const char *key)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(set[i]->key, key) == 0)
            return set[i];
    return NULL;
}

/* Does an NCCL_PROTO value (plain list form) leave protocol tok enabled?
 * Per-collective forms are not judged: returns true. */
static bool proto_allows(const char *proto, const char *tok)
{
    if (strpbrk(proto, ":;"))
        return true;
    bool negate = *proto == '^';
    const char *s = proto + negate;
    bool listed = token_match(s, tok, strlen(tok), true) != NULL;
    return negate ? !listed : listed;
}

void validate_set(const struct entry *const *set, size_t n, struct diag *d)
{
    const struct entry *proto = set_find(set, n, "NCCL_PROTO");
    for (size_t i = 0; proto && i < noop_rules_count; i++) {
        const struct noop_rule *r = &noop_rules[i];
        const struct entry *e = set_find(set, n, r->key);
        long long v;
        if (!e || proto_allows(proto->value, r->proto))
            continue;
        if (r->min_value != LLONG_MIN && !(plain_decimal(e->value, &v) && v >= r->min_value))
            continue;
        diag(d, DIAG_WARNING, e->file, e->line, "%s=%s does nothing with NCCL_PROTO=%s: %s",
             e->key, e->value, proto->value, r->why);
    }
    const struct entry *lo = set_find(set, n, "NCCL_MIN_NCHANNELS");
    const struct entry *hi = set_find(set, n, "NCCL_MAX_NCHANNELS");
    long long l, h;
    if (lo && hi && plain_decimal(lo->value, &l) && plain_decimal(hi->value, &h) && l > h)
        diag(d, DIAG_WARNING, lo->file, lo->line,
             "NCCL_MIN_NCHANNELS=%s is above NCCL_MAX_NCHANNELS=%s: NCCL cannot honour both", lo->value,
             hi->value);
}
