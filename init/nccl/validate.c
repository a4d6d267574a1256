/* The one engine over nccl_table.c: what NCCL makes of a value (nccl_read),
 * and the findings about it (validate_entry), computed by the same code so
 * that check, render and the messages never disagree. Which release's
 * rules apply is validate_release's: one, or every known release, each
 * judged and compared (judge_releases). */
#include "nccl/validate.h"

#include "nccl/nccl_lib.h"
#include "nccl/nccl_table.h"
#include "nccl/plugin_keys.h"
#include "nccl/releases.h"
#include "nccl/servers.h"
#include "lib/mem.h"
#include "lib/paths.h"
#include "lib/text.h"

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ---- NCCL's integer parser ---- */

/* glibc's strtoll(s, &end, 0) on x86-64, which is what ncclLoadParam
 * (src/misc/param.cc) and the direct strtol reads run: leading white space,
 * a sign, "0x" hex or leading-0 octal, digits up to the first that does not
 * fit the base. On overflow it consumes every digit and returns
 * LLONG_MAX/LLONG_MIN with ERANGE. */
struct c_integer {
    long long v;
    const char *end;  /* first byte not consumed (== start: no number) */
    bool overflow;    /* ERANGE */
    bool octal;       /* a leading 0 made it octal (and more digits followed) */
    bool prefixed;    /* written with 0x or a '+': NCCL reads it right, but not as spelled */
};

static int digit_value(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    c |= 32;
    return c >= 'a' && c <= 'z' ? c - 'a' + 10 : 99;
}

static void c_strtoll(const char *s, struct c_integer *r)
{
    const char *p = s;
    unsigned long long v = 0, limit;
    unsigned base = 10;
    bool neg = false;
    memset(r, 0, sizeof *r);
    r->end = s;
    while (*p == ' ' || (*p >= '\t' && *p <= '\r'))
        p++;
    if (*p == '+' || *p == '-') {
        r->prefixed = *p == '+';
        neg = *p++ == '-';
    }
    if (p[0] == '0' && (p[1] | 32) == 'x' && digit_value(p[2]) < 16) {
        base = 16, p += 2;
        r->prefixed = true;
    } else if (p[0] == '0') {
        base = 8;
        r->octal = digit_value(p[1]) < 8;
    }
    if (digit_value(*p) >= (int)base)
        return; /* no number: strtoll returns 0 and end = s */
    limit = neg ? (unsigned long long)LLONG_MAX + 1 : (unsigned long long)LLONG_MAX;
    for (; digit_value(*p) < (int)base; p++) {
        unsigned d = (unsigned)digit_value(*p);
        if (r->overflow || v > (limit - d) / base)
            r->overflow = true;
        else
            v = v * base + d;
    }
    r->end = p;
    if (r->overflow)
        r->v = neg ? LLONG_MIN : LLONG_MAX;
    else
        r->v = neg ? (long long)(0ULL - v) : (long long)v;
}

/* The value as the C type NCCL keeps it in (two's complement truncation,
 * as gcc does for the conversions NCCL writes). */
static long long to_ctype(long long v, int ctype)
{
    switch (ctype) {
    case C_I32:
        return (int32_t)(uint32_t)(uint64_t)v;
    case C_U32:
        return (uint32_t)(uint64_t)v;
    case C_U16:
        return (uint16_t)(uint64_t)v;
    case C_U8:
        return (uint8_t)(uint64_t)v;
    default:
        return v;
    }
}

static const char ctype_names[][24] = { "a 64-bit integer", "an int", "a 32-bit unsigned",
                                        "a 16-bit unsigned field", "an 8-bit field" };

/* ---- tokens ---- */

/* Index of tok (length n) among the comma-separated tokens, or -1. */
static int token_index(const char *tokens, const char *tok, size_t n, bool fold)
{
    int i = 0;
    for (const char *t = tokens; *t; i++) {
        const char *c = strchr(t, ',');
        size_t tl = c ? (size_t)(c - t) : strlen(t);
        if (tl == n && (fold ? strncasecmp(t, tok, n) : strncmp(t, tok, n)) == 0)
            return i;
        if (!c)
            break;
        t = c + 1;
    }
    return -1;
}

static int token_count(const char *tokens)
{
    int n = 1;
    for (const char *t = tokens; (t = strchr(t, ',')); t++)
        n++;
    return n;
}

/* The i-th token, as "%.*s" arguments. */
static const char *token_at(const char *tokens, int i, int *len)
{
    const char *t = tokens;
    while (i-- > 0)
        t = strchr(t, ',') + 1;
    const char *c = strchr(t, ',');
    *len = c ? (int)(c - t) : (int)strlen(t);
    return t;
}

/* ---- findings ---- */

/* One release's finding about a value, kept to compare with the others'. */
#define FINDING_MAX 512
struct finding {
    int sev;  /* DIAG_ERROR or DIAG_WARNING; -1: none */
    char text[FINDING_MAX];
};

/* One judgement: the entry, where findings go (d may be NULL: reading only),
 * and the reading being filled in. */
struct judge {
    const struct entry *e;
    const struct value_rule *r;
    int sev; /* DIAG_ERROR for a profile, DIAG_WARNING for the environment */
    struct diag *d;
    struct buf *why; /* not NULL: the finding's text goes here when it is an error
                        in a profile, and nothing is reported (nccl_refuses) */
    struct nccl_reading *out;
    struct finding *cap; /* not NULL: the finding goes here, and nothing is reported */
    bool said;
};

/* "KEY=VALUE: what": the value shortened so the message fits a line. */
static void say(struct judge *j, int sev, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void say(struct judge *j, int sev, const char *fmt, ...)
{
    if ((!j->d && !j->why && !j->cap) || j->said)
        return;
    j->said = true;
    char what[FINDING_MAX];
    struct buf w = BUF_FIXED(what);
    va_list ap;
    va_start(ap, fmt);
    buf_vprintf(&w, fmt, ap);
    va_end(ap);
    if (j->cap) {
        j->cap->sev = sev;
        memcpy(j->cap->text, what, sizeof what);
        return;
    }
    if (j->why) {
        if (sev == DIAG_ERROR)
            buf_str(j->why, what);
        return;
    }
    size_t n = strlen(j->e->value);
    diag(j->d, sev == DIAG_ERROR ? j->sev : DIAG_WARNING, j->e->file, j->e->line, "%s=%.*s%s: %s",
         j->e->key, n > 80 ? 72 : (int)n, j->e->value, n > 80 ? "..." : "", what);
}

/* What an empty value means to an integer (judge_int), and to the keys that
 * were integers in 2.28.9: the same words, so that releases that agree say it once. */
#define EMPTY_INT "empty: the same as not setting it (NCCL uses its default)"

/* A note that only -v shows: the value is fine, but reads differently. */
static void note(struct judge *j, long long v)
{
    if (!j->d || log_level < LOG_DEBUG)
        return;
    char what[160];
    struct buf w = BUF_FIXED(what);
    buf_printf(&w, "NCCL reads it as %lld", v);
    log_debug("%s:%u: note: %s=%s: %s", j->e->file, j->e->line, j->e->key, j->e->value, what);
}

/* "1..64", "at least 1", "1..64 (or -2)". */
static void range_text(struct buf *b, const struct value_rule *r)
{
    if (r->step)
        buf_printf(b, "a multiple of %d in %lld..%lld", r->step, r->min, r->max);
    else if (r->max == LLONG_MAX || (r->max == INT_MAX && r->ctype == C_I32))
        buf_printf(b, "at least %lld", r->min);
    else
        buf_printf(b, "%lld..%lld", r->min, r->max);
    if (r->special_lo == r->special_hi)
        buf_printf(b, " (or %d)", r->special_lo);
    else if (r->special_lo < r->special_hi)
        buf_printf(b, " (or %d..%d)", r->special_lo, r->special_hi);
}

static bool is_special(const struct value_rule *r, long long v)
{
    return v >= r->special_lo && v <= r->special_hi;
}

/* What NCCL does with an integer its rule's range does not hold. */
struct correction {
    int action;   /* enum out_of_range */
    long long as; /* O_CLAMP, O_AS: the value NCCL uses instead */
    int sev;      /* F_HIGH_WARN above max: only a warning */
};

/* Does the rule's range hold w? If not, *c says what NCCL does instead. */
static bool out_of_range(const struct value_rule *r, long long w, struct correction *c)
{
    *c = (struct correction){ O_NONE, 0, DIAG_ERROR };
    if (r->step && w % r->step && (r->flags & F_STEP_HIGH)) {
        c->action = O_AS, c->as = r->max; /* getNthreads tests the multiple first */
    } else if (w < r->min) {
        c->action = r->low;
        c->as = r->low == O_CLAMP ? r->min : r->as_low;
    } else if (w > r->max) {
        c->action = r->high;
        c->as = r->high == O_CLAMP ? r->max : r->as_high;
        if (r->flags & F_HIGH_WARN)
            c->sev = DIAG_WARNING;
    } else {
        return false;
    }
    return true;
}

/* Says what NCCL does with an out-of-range value (c->action is not
 * O_NONE), after what b holds already, and records it in j->out. */
static void say_correction(struct judge *j, struct buf *b, const struct correction *c)
{
    const struct value_rule *r = j->r;
    struct nccl_reading *o = j->out;
    if (b->len)
        buf_str(b, "; ");
    buf_str(b, "out of range: ");
    range_text(b, r);
    switch (c->action) {
    case O_CLAMP:
    case O_AS:
        o->used = c->as;
        if (c->action == O_AS && r->text)
            buf_printf(b, ": %s", r->text);
        else
            buf_printf(b, ": NCCL uses %lld", c->as);
        break;
    case O_DEFAULT:
        o->uses = NU_DEFAULT;
        buf_str(b, ": NCCL ignores it and keeps its default");
        break;
    case O_FAIL:
        o->uses = NU_FAILS;
        buf_printf(b, ": %s", r->text);
        break;
    default:
        o->uses = NU_UNDEFINED;
        buf_printf(b, ": %s", r->text);
        break;
    }
    say(j, c->sev, "%s", b->data);
}

/* What NCCL does with w, an integer in its C type, under the rule; says
 * so when that is not w as written. prefix: what was said before (the C
 * type), or "". */
static void judge_int_value(struct judge *j, long long w, const char *prefix)
{
    const struct value_rule *r = j->r;
    struct nccl_reading *o = j->out;
    char what[320] = "";
    struct buf b = BUF_FIXED(what);
    buf_str(&b, prefix);
    o->uses = NU_VALUE;
    o->used = w;
    struct correction c;
    if (is_special(r, w)) {
        /* A value that became -1 or -2 only in the C type: whether NCCL
         * compared before or after storing it differs from one use to the
         * next (computeBuffSizes compares the int64). */
        o->uses = *prefix ? NU_UNDEFINED : NU_DEFAULT;
    } else if ((r->flags & F_NONPOS_DEF) && w <= 0) {
        o->uses = NU_DEFAULT;
        buf_str(&b, b.len ? "; zero or less: NCCL uses its default"
                          : "zero or less: NCCL uses its default");
    } else if (out_of_range(r, w, &c)) {
        if (c.action != O_NONE) {
            say_correction(j, &b, &c);
            return;
        }
    } else if ((r->flags & F_POW2) && (w & (w - 1))) {
        o->uses = NU_DEFAULT;
        buf_str(&b, b.len ? "; not a power of 2: NCCL ignores it and uses its default"
                          : "not a power of 2: NCCL ignores it and uses its default");
    }
    if (b.len)
        say(j, DIAG_ERROR, "%s", what);
}

static void judge_int(struct judge *j)
{
    const struct value_rule *r = j->r;
    struct nccl_reading *o = j->out;
    const char *s = j->e->value;
    if (!*s) {
        if (r->flags & F_STRTOL) {
            /* strtol("") is 0 and nothing checks for it */
            o->reads = NR_INT;
            judge_int_value(j, 0, "");
            say(j, DIAG_WARNING, "empty: NCCL reads it as 0");
        } else {
            o->reads = NR_UNSET;
            o->uses = NU_DEFAULT;
            say(j, DIAG_WARNING, EMPTY_INT);
        }
        return;
    }
    struct c_integer c;
    c_strtoll(s, &c);
    if (c.overflow && !(r->flags & F_STRTOL)) {
        o->reads = NR_DEFAULT; /* "Invalid value ..., using default" */
        o->uses = NU_DEFAULT;
        say(j, DIAG_ERROR, "out of range for a 64-bit integer: NCCL ignores it and uses its default");
        return;
    }
    o->reads = NR_INT;
    o->value = c.v;
    long long w = to_ctype(c.v, r->ctype);
    char prefix[200] = "";
    struct buf b = BUF_FIXED(prefix);
    if (c.end == s)
        buf_str(&b, "not a number: NCCL reads it as 0");
    else if (*c.end)
        buf_printf(&b, "not a whole number: NCCL reads only its start, %lld", c.v);
    else if (c.octal)
        buf_printf(&b, "a leading 0 makes it octal: NCCL reads it as %lld", c.v);
    else if (c.overflow)
        buf_printf(&b, "out of range for a 64-bit integer: NCCL reads it as %lld", c.v);
    /* NCCL compares its special values (-1, -2) before storing the rest */
    if (!b.len && is_special(r, c.v)) {
        o->uses = NU_DEFAULT;
        o->used = c.v;
        return;
    }
    if (w != c.v)
        buf_printf(&b, "%s%s, where it is %lld", b.len ? ", and keeps it in " : "NCCL keeps it in ",
                   ctype_names[r->ctype], w);
    if (!b.len && c.prefixed)
        note(j, c.v);
    judge_int_value(j, w, prefix);
}

/* ncclGetLevel (src/graph/paths.cc). */
static void judge_level_value(struct judge *j)
{
    const struct value_rule *r = j->r;
    struct nccl_reading *o = j->out;
    const char *s = j->e->value;
    size_t n = strlen(s);
    int i = token_index(r->tokens, s, n, false);
    o->reads = NR_LEVEL;
    if (i >= 0) {
        o->value = i;
        return;
    }
    if (*s >= '0' && *s <= '9') {
        /* levelsOldToNew: 0 LOC, 1 PIX, 2 PXB, 3 PHB, 4 and 5 SYS */
        static const unsigned char old_to_new[] = { 0, 4, 5, 8, 9, 9 };
        struct c_integer c;
        c_strtoll(s, &c);
        long long w = to_ctype(c.v, C_I32);
        if (w < 0) {
            o->reads = NR_CRASH;
            say(j, DIAG_ERROR, "NCCL keeps the number in an int, where it is %lld, and indexes "
                               "its level table with it: undefined behaviour", w);
            return;
        }
        o->value = old_to_new[w > 5 ? 5 : w];
        int tl;
        const char *t = token_at(r->tokens, (int)o->value, &tl);
        if (*c.end)
            say(j, DIAG_ERROR, "not a whole number: NCCL reads only its start, %lld, as %.*s",
                c.v, tl, t);
        else if (c.octal)
            say(j, DIAG_ERROR, "a leading 0 makes it octal: NCCL reads %lld, as %.*s", c.v, tl,
                t);
        else if (w != c.v)
            say(j, DIAG_ERROR, "NCCL keeps the number in an int, where it is %lld: %.*s", w, tl,
                t);
        else if (c.prefixed)
            note(j, c.v);
        return;
    }
    o->reads = NR_UNSET;
    if (!*s) {
        say(j, DIAG_WARNING, "empty: the same as not setting it");
        return;
    }
    i = token_index(r->tokens, s, n, true);
    if (i >= 0) {
        int tl;
        const char *t = token_at(r->tokens, i, &tl);
        say(j, DIAG_ERROR, "levels are case-sensitive (did you mean %.*s?); %s", tl, t,
            r->text);
    } else {
        say(j, DIAG_ERROR, "unknown level (expected one of %s, or a number from 0: 0 LOC, 1 PIX, "
                           "2 PXB, 3 PHB, 4 SYS); %s", r->tokens, r->text);
    }
}

/* ncclGetLevel, and from 2.29.2 (F_P2C) what NET_GDR_LEVEL's new default
 * makes of a level below P2C. */
static void judge_level(struct judge *j)
{
    judge_level_value(j);
    const struct value_rule *r = j->r;
    if ((r->flags & F_P2C) && !j->said && j->out->reads == NR_LEVEL &&
        j->out->value < token_index(r->tokens, "P2C", 3, false))
        say(j, DIAG_WARNING, "NCCL's default is P2C (PXB up to 2.28.9, which counted a "
                             "CPU-attached NIC's path as C2C): a level below P2C turns GPU-direct "
                             "RDMA off on CPU-attached NICs");
}

/* Sets cell e of collective f's row (every row when f < 0) to v. */
static void list_set(struct nccl_reading *o, int f, int e, unsigned char v)
{
    for (int g = 0; g < NCCL_FUNCS; g++)
        if (f < 0 || g == f)
            o->matrix[g][e] = v;
}

/* Stops the reading of a list at a finding: b says only why. */
static bool list_fails(struct judge *j, struct buf *b, int reads, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static bool list_fails(struct judge *j, struct buf *b, int reads, const char *fmt, ...)
{
    va_list ap;
    b->len = 0;
    va_start(ap, fmt);
    buf_vprintf(b, fmt, ap);
    va_end(ap);
    j->out->reads = (unsigned char)reads;
    return false;
}

/* The ',' tokens of list, each set to v for collective f (all: f < 0);
 * parseList runs strtok on a copy, so empty tokens are skipped. */
static bool list_tokens(struct judge *j, int f, const char *list, unsigned char v, struct buf *b)
{
    const struct value_rule *r = j->r;
    char *elems = xstrdup(list), *save;
    bool ok = true;
    for (char *el = strtok_r(elems, ",", &save); el; el = strtok_r(NULL, ",", &save)) {
        int e = token_index(r->tokens, el, strlen(el), true);
        if (e < 0) {
            ok = list_fails(j, b, NR_INVALID, "unknown token '%s' (expected %s; a leading '^' "
                            "excludes); %s", el, r->tokens, r->text);
            break;
        }
        list_set(j->out, f, e, v);
    }
    xfree(elems);
    return ok;
}

/* One ';' segment, split at ':' as parseList does (prefix: the first
 * field, list: the second, rest: the third), applied to the matrix. first:
 * the segment starts the value. Returns false when NCCL stops on it, b
 * saying why; b may also get a note that does not stop it. */
static bool list_fields(struct judge *j, const char *seg, bool first, char *prefix, char *list,
                        const char *rest, struct buf *b)
{
    const struct value_rule *r = j->r;
    if (!list) {
        if (!first)
            return list_fails(j, b, NR_INVALID, "'%s' has no collective prefix, which NCCL "
                              "allows on the first entry only; %s", seg, r->text);
        if (!prefix)
            return list_fails(j, b, NR_CRASH,
                              "an entry of only ':': NCCL's parseList dereferences NULL on it");
        list = prefix;
        prefix = NULL;
    }
    if (rest && !b->len) /* parseList takes the second ':' field and drops the rest */
        buf_printf(b, "NCCL ignores ':%s' after '%s:%s'", rest, prefix, list);
    unsigned char v = 1;
    if (*list == '^')
        v = 0, list++;
    int f = prefix ? token_index(nccl_collectives, prefix, strlen(prefix), true) : -1;
    if (prefix && f < 0)
        return list_fails(j, b, NR_INVALID, "unknown collective '%s' (expected %s); %s", prefix,
                          nccl_collectives, r->text);
    for (int e = 0; e < token_count(r->tokens); e++)
        list_set(j->out, f, e, !v);
    return list_tokens(j, f, list, v, b);
}

static bool list_segment(struct judge *j, const char *seg, bool first, struct buf *b)
{
    char *sub = xstrdup(seg), *save;
    char *prefix = strtok_r(sub, ":", &save);
    char *list = strtok_r(NULL, ":", &save);
    char *rest = list ? strtok_r(NULL, ":", &save) : NULL;
    bool ok = list_fields(j, seg, first, prefix, list, rest, b);
    xfree(sub);
    return ok;
}

/* enqueue.cc topoGetAlgoInfo: a collective left without any protocol or
 * algorithm is "no algorithm/protocol available", ncclInvalidUsage on
 * every call. */
static void list_leaves_none(struct judge *j, bool proto)
{
    int ntok = token_count(j->r->tokens);
    for (int f = 0; f < NCCL_FUNCS; f++) {
        int on = 0;
        for (int e = 0; e < ntok; e++)
            on += j->out->matrix[f][e] != 0;
        if (!on) {
            int fl;
            const char *fn = token_at(nccl_collectives, f, &fl);
            say(j, DIAG_ERROR, "leaves %.*s no %s: every %.*s fails with ncclInvalidUsage", fl,
                fn, proto ? "protocol" : "algorithm", fl, fn);
            return;
        }
    }
}

/* parseList (src/graph/tuning.cc), step by step on a copy, strtok and all. */
static void judge_list(struct judge *j)
{
    struct nccl_reading *o = j->out;
    const char *s = j->e->value;
    bool proto = j->r == &value_rules[R_PROTO];
    int ntok = token_count(j->r->tokens);
    /* defaults (tuning.cc ncclTopoTuneModel): everything on, LL128 left to NCCL */
    for (int f = 0; f < NCCL_FUNCS; f++)
        for (int e = 0; e < ntok; e++)
            o->matrix[f][e] = proto && e == 1 ? 2 : 1;
    o->reads = NR_LIST;
    if (!*s) {
        say(j, DIAG_WARNING, "empty: the same as not setting it (NCCL's own choice)");
        return;
    }
    char *full = xstrdup(s), *save;
    char what[300];
    struct buf b = BUF_FIXED(what);
    for (char *seg = strtok_r(full, ";", &save); seg; seg = strtok_r(NULL, ";", &save))
        if (!list_segment(j, seg, seg == full, &b))
            break;
    xfree(full);
    if (b.len)
        say(j, DIAG_ERROR, "%s", what);
    else
        list_leaves_none(j, proto);
}

/* The span of s without the white space around it (F_TRIM: the 2.30
 * registry's trim()); s and n unchanged otherwise. */
static void trimmed(const struct value_rule *r, const char **s, size_t *n)
{
    if (!(r->flags & F_TRIM))
        return;
    while (*n && (**s == ' ' || (**s >= '\t' && **s <= '\r')))
        (*s)++, (*n)--;
    while (*n && ((*s)[*n - 1] == ' ' || ((*s)[*n - 1] >= '\t' && (*s)[*n - 1] <= '\r')))
        (*n)--;
}

static void judge_enum(struct judge *j)
{
    const struct value_rule *r = j->r;
    const char *s = j->e->value;
    size_t n = strlen(s);
    trimmed(r, &s, &n);
    bool exact = !(r->flags & F_CASE);
    if (token_index(r->tokens, s, n, exact) >= 0)
        return;
    if (!n) {
        say(j, DIAG_WARNING, "empty: the same as not setting it");
        return;
    }
    int i = token_index(r->tokens, s, n, true);
    if (i >= 0) {
        int tl;
        const char *t = token_at(r->tokens, i, &tl);
        say(j, DIAG_ERROR, "case-sensitive (did you mean %.*s?); %s", tl, t, r->text);
    } else {
        say(j, DIAG_ERROR, "unknown value (expected one of %s); %s", r->tokens,
            r->text);
    }
}

/* debug.cc's lists: "^" inverts, strtok skips empty names, unknown ones
 * are skipped without a word; the 2.30 registry's bitset (F_TRIM,
 * F_WHOLE) trims each name and drops the whole value for one unknown. */
static void judge_mask(struct judge *j)
{
    const struct value_rule *r = j->r;
    const char *s = j->e->value;
    if (!*s) {
        say(j, DIAG_ERROR, "empty: %s", r->text);
        return;
    }
    if (*s == '^')
        s++;
    for (;;) {
        size_t n = strcspn(s, ",");
        const char *t = s;
        size_t tn = n;
        trimmed(r, &t, &tn);
        if (tn && token_index(r->tokens, t, tn, true) < 0) {
            if (r->flags & F_WHOLE)
                say(j, DIAG_ERROR, "unknown name '%.*s' (expected %s; a leading '^' excludes): "
                                   "NCCL discards the whole value without a word, and its "
                                   "default applies", (int)tn, t, r->tokens);
            else
                say(j, DIAG_ERROR, "unknown name '%.*s' (expected %s; a leading '^' excludes): "
                                   "NCCL skips it without a word", (int)tn, t, r->tokens);
            return;
        }
        if (!s[n])
            return;
        s += n + 1;
    }
}

/* 2.29.2's NCCL_CTA_POLICY (init.cc getEnvCtaPolicyOnce): a leading digit
 * is read alone, else '|' tokens (strtok, strcasecmp), unknown ones ignored. */
static void judge_policy(struct judge *j)
{
    const struct value_rule *r = j->r;
    const char *s = j->e->value;
    if (!*s) {
        say(j, DIAG_WARNING, EMPTY_INT);
        return;
    }
    if (*s >= '0' && *s <= '9') {
        if (*s > '2')
            say(j, DIAG_ERROR, "only 0, 1 and 2 are policies: %s, and uses DEFAULT", r->text);
        else if (s[1])
            say(j, DIAG_ERROR, "NCCL reads only its first digit, %c", *s);
        return;
    }
    for (;;) {
        size_t n = strcspn(s, "|");
        if (n && token_index(r->tokens, s, n, true) < 0) {
            say(j, DIAG_ERROR, "unknown policy '%.*s' (expected %s, joined with '|'): %s",
                (int)n, s, r->tokens, r->text);
            return;
        }
        if (!s[n])
            return;
        s += n + 1;
    }
}

/* The 2.30 registry's bool: the whole value, untrimmed. */
static void judge_bool(struct judge *j)
{
    const char *s = j->e->value;
    if (!*s)
        say(j, DIAG_WARNING, EMPTY_INT);
    else if (token_index(j->r->tokens, s, strlen(s), true) < 0)
        say(j, DIAG_ERROR, "not a boolean (expected 1, T, TRUE, 0, F or FALSE): %s", j->r->text);
}

/* Quotes NCCL would keep: says so. */
static bool quoted(struct judge *j, const char *s, size_t n)
{
    if (n < 2 || (s[0] != '"' && s[0] != '\'') || s[n - 1] != s[0])
        return false;
    say(j, DIAG_ERROR, "NCCL takes the value as written, quotes included: nothing is called %s", s);
    return true;
}

/* NCCL_IB_HCA's entries: "[^][=]hca[:port...]"; without F_ANYPORT, an
 * empty port (atoi("")) is port 0. */
static void judge_hca(struct judge *j)
{
    const char *s = j->e->value;
    size_t n = strlen(s);
    if (!*s) {
        say(j, DIAG_WARNING, "empty: the same as not setting it");
        return;
    }
    if (quoted(j, s, n))
        return;
    if (j->r->flags & F_ANYPORT)
        return;
    /* parseStringList: the first ':' of an entry starts its port, and the
     * rest of the entry is skipped */
    for (const char *e = s;; e++) {
        size_t len = strcspn(e, ","), name = strcspn(e, ":,");
        if (name < len && (name + 1 == len || e[name + 1] == ':')) {
            say(j, DIAG_ERROR, "'%.*s' has an empty port: %s", (int)len, e, j->r->text);
            return;
        }
        e += len;
        if (!*e)
            return;
    }
}

/* NCCL_NO_CACHE: full names (or the rule's tokens), case-sensitive; a
 * name no release reads is ignored without a word. */
static void judge_names(struct judge *j)
{
    const struct value_rule *r = j->r;
    const char *s = j->e->value;
    for (;;) {
        size_t n = strcspn(s, ",");
        const char *t = s;
        size_t tn = n;
        trimmed(r, &t, &tn);
        char name[128];
        if (tn && token_index(r->tokens, t, tn, false) < 0) {
            snprintf(name, sizeof name, "%.*s", (int)tn, t);
            if (!release_mask(name)) {
                say(j, DIAG_ERROR, "'%s' is not an NCCL variable: %s", name, r->text);
                return;
            }
        }
        if (!s[n])
            return;
        s += n + 1;
    }
}

static void judge_string(struct judge *j)
{
    const struct value_rule *r = j->r;
    const char *s = j->e->value;
    size_t n = strlen(s);
    if (n == 0) {
        if (r->text && !(r->flags & F_MIN2))
            say(j, (r->flags & F_EMPTY_ERR) ? DIAG_ERROR : DIAG_WARNING, "empty: %s",
                r->text);
        else if (j->r == &value_rules[R_STRING])
            say(j, DIAG_WARNING, "empty: NCCL takes the empty string as the value, not as unset");
        else
            say(j, DIAG_WARNING, "empty: the same as not setting it");
        return;
    }
    if (quoted(j, s, n))
        return;
    if ((r->flags & F_MIN2) && n < 2)
        say(j, DIAG_ERROR, "%s", r->text);
}

/* The judgement of one value: the reading, and the findings when d is set
 * (or into cap, when that is set). rule: the enum rule_id the release
 * reads it by, or -1 (a name it does not read, or has no rule for). */
static void judge(const struct entry *e, int rule, int sev, struct diag *d, struct buf *why,
                  struct finding *cap, struct nccl_reading *out)
{
    memset(out, 0, sizeof *out);
    out->rule = rule;
    if (cap)
        cap->sev = -1, cap->text[0] = '\0';
    if (rule < 0)
        return;
    struct judge j = { e, &value_rules[rule], sev, d, why, out, cap, false };
    switch (j.r->kind) {
    case V_INT:
        judge_int(&j);
        break;
    case V_LEVEL:
        judge_level(&j);
        break;
    case V_LIST:
        judge_list(&j);
        break;
    case V_ENUM:
        judge_enum(&j);
        break;
    case V_MASK:
        judge_mask(&j);
        break;
    case V_POLICY:
        judge_policy(&j);
        break;
    case V_BOOL:
        judge_bool(&j);
        break;
    case V_HCA:
        judge_hca(&j);
        break;
    case V_NAMES:
        judge_names(&j);
        break;
    case V_UNREAD:
        out->reads = NR_UNSET;
        say(&j, DIAG_WARNING, "%s", j.r->text);
        break;
    default:
        judge_string(&j);
        break;
    }
}

/* ---- which release ---- */

/* The release the checks apply (an index into nccl_releases), or
 * RELEASE_ALL. */
static int applied = RELEASE_ALL;

void validate_release(int release)
{
    applied = release;
}

int validate_applied_release(void)
{
    return applied;
}

/* The release a single reading follows: the one applied, or with every
 * release 2.28.9, whose reading render --format json has always given. */
static int reading_release(void)
{
    return applied == RELEASE_ALL ? 0 : applied;
}

/* A name the releases do not know (a library's own) reads by 2.28.9's
 * table, or by no rule. */
static int rule_in(const char *key, int rel)
{
    if (!release_mask(key)) {
        const struct nccl_param *p = nccl_param_find(key);
        return p ? (int)p->rule : -1;
    }
    return release_rule(key, rel);
}

void nccl_read(const char *key, const char *value, struct nccl_reading *r)
{
    struct entry e = { key, value, "", 0, "" };
    judge(&e, rule_in(key, reading_release()), DIAG_ERROR, NULL, NULL, NULL, r);
}

/* With every release applied, an error only where each release that reads
 * the key has one (as validate_entry says it), in the newest one's words. */
bool nccl_refuses(const char *key, const char *value, struct buf *why)
{
    struct entry e = { key, value, "", 0, "" };
    struct nccl_reading r;
    size_t before = why->len;
    if (applied != RELEASE_ALL || !release_mask(key)) {
        judge(&e, rule_in(key, reading_release()), DIAG_ERROR, NULL, why, NULL, &r);
        return why->len > before;
    }
    struct finding f;
    int newest = -1;
    for (int i = 0; i < NCCL_RELEASES; i++) {
        if (!(release_mask(key) & (1u << i)))
            continue;
        judge(&e, rule_in(key, i), DIAG_ERROR, NULL, NULL, &f, &r);
        if (f.sev != DIAG_ERROR)
            return false;
        newest = i;
    }
    judge(&e, rule_in(key, newest), DIAG_ERROR, NULL, why, NULL, &r);
    return why->len > before;
}

void nccl_reading_json(struct buf *b, const char *key, const char *value)
{
    static const char reads[][10] = { "", "unset", "default", "", "", "", "invalid", "undefined" };
    static const char uses[][10] = { "", "", "default", "fails", "undefined" };
    struct nccl_reading r;
    nccl_read(key, value, &r);
    if (r.rule < 0 || r.reads == NR_NONE)
        return;
    const struct value_rule *rule = &value_rules[r.rule];
    buf_str(b, ", \"nccl\": {\"reads\": ");
    if (r.reads == NR_INT) {
        buf_printf(b, "%lld", r.value);
    } else if (r.reads == NR_LEVEL) {
        int tl;
        const char *t = token_at(rule->tokens, (int)r.value, &tl);
        buf_printf(b, "\"%.*s\"", tl, t);
    } else if (r.reads == NR_LIST) {
        buf_str(b, "{");
        for (int f = 0; f < NCCL_FUNCS; f++) {
            int fl;
            const char *fn = token_at(nccl_collectives, f, &fl);
            buf_printf(b, "%s\"%.*s\": {", f ? ", " : "", fl, fn);
            for (int e = 0; e < token_count(rule->tokens); e++) {
                const char *t = token_at(rule->tokens, e, &fl);
                buf_printf(b, "%s\"%.*s\": %u", e ? ", " : "", fl, t, r.matrix[f][e]);
            }
            buf_str(b, "}");
        }
        buf_str(b, "}");
    } else {
        buf_printf(b, "\"%s\"", reads[r.reads]);
    }
    if (r.uses == NU_VALUE)
        buf_printf(b, ", \"uses\": %lld", r.used);
    else if (r.uses != NU_NONE)
        buf_printf(b, ", \"uses\": \"%s\"", uses[r.uses]);
    buf_str(b, "}");
}

/* ---- names ---- */

/* The known names without their "NCCL_", from the library's list or the
 * applied releases'. */
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
        unsigned mask = applied == RELEASE_ALL ? ~0u : 1u << applied;
        for (size_t i = 0; i < release_names_count; i++)
            if (release_names[i].releases & mask) {
                grow((void **)&v, &cap, *n + 1, sizeof *v);
                v[(*n)++] = release_names[i].name + 5;
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
    xfree(dist);
    xfree(names);
    diag(d, DIAG_WARNING, e->file, e->line, "unknown NCCL variable %s%s%s", e->key,
         b.data ? b.data : "", shown ? "?" : "");
    buf_free(&b);
}

bool nccl_conf_cuts(const char *key, const char *value)
{
    return strlen(key) > NCCL_CONF_MAX || strlen(value) > NCCL_CONF_MAX;
}

/* The releases in force: the applied one, or all of them. */
static unsigned applied_mask(void)
{
    return applied == RELEASE_ALL ? (1u << NCCL_RELEASES) - 1 : 1u << applied;
}

/* A name some known releases read and others do not. */
static void say_name_releases(const struct entry *e, unsigned mask, struct diag *d)
{
    char in[64];
    release_list(in, sizeof in, mask);
    if (applied == RELEASE_ALL)
        diag(d, DIAG_WARNING, e->file, e->line, "%s: only NCCL %s read%s it", e->key, in,
             mask & (mask - 1) ? "" : "s");
    else
        diag(d, DIAG_WARNING, e->file, e->line, "unknown NCCL variable %s for NCCL %s (NCCL %s "
             "read%s it)", e->key, nccl_releases[applied], in, mask & (mask - 1) ? "" : "s");
}

/* "valid from 2.29.2" or "in NCCL 2.28.9: TEXT": one group of releases
 * that agree (mask), with their finding f (sev -1: none). */
static void group_text(struct buf *b, const struct entry *e, unsigned mask, unsigned all,
                       const struct finding *f)
{
    int first = __builtin_ctz(mask);
    const struct release_rule *c = release_change(e->key, first);
    bool from_change = c && c->from == first && mask == (all & ~((1u << first) - 1));
    char in[64];
    release_list(in, sizeof in, mask);
    if (b->len)
        buf_str(b, "; ");
    if (f->sev < 0 && from_change)
        buf_printf(b, "valid from %s", c->changed_in);
    else if (f->sev < 0)
        buf_printf(b, "valid in NCCL %s", in);
    else if (from_change)
        buf_printf(b, "NCCL %s (from %s): %s", in, c->changed_in, f->text);
    else
        buf_printf(b, "NCCL %s: %s", in, f->text);
}

/* The releases disagree about e: one finding that says which holds where;
 * an error only when every release has one (it is wrong in all of them). */
static void say_releases(const struct entry *e, int sev, const struct finding *f, unsigned all,
                         struct diag *d)
{
    unsigned done = 0;
    bool every_error = true;
    struct buf b = { 0 };
    for (int i = 0; i < NCCL_RELEASES; i++)
        if (all & (1u << i))
            every_error &= f[i].sev == DIAG_ERROR;
    /* where it is valid first, then where it is not, oldest first */
    for (int pass = 0; pass < 2; pass++)
    for (int i = 0; i < NCCL_RELEASES; i++) {
        if (!(all & (1u << i)) || (done & (1u << i)) || (f[i].sev < 0) != (pass == 0))
            continue;
        unsigned group = 0;
        for (int k = i; k < NCCL_RELEASES; k++)
            if ((all & (1u << k)) && f[k].sev == f[i].sev && strcmp(f[k].text, f[i].text) == 0)
                group |= 1u << k;
        done |= group;
        group_text(&b, e, group, all, &f[i]);
    }
    size_t n = strlen(e->value);
    diag(d, every_error ? sev : DIAG_WARNING, e->file, e->line, "%s=%.*s%s: %s", e->key,
         n > 80 ? 72 : (int)n, e->value, n > 80 ? "..." : "", b.data);
    buf_free(&b);
}

/* The value under each applied release: judged once, as always, when they
 * read it by one rule; else each release's finding, compared. */
static void judge_releases(const struct entry *e, int sev, struct diag *d)
{
    unsigned all = applied_mask();
    int rules[NCCL_RELEASES];
    bool same = true;
    int one = -1;
    for (int i = 0; i < NCCL_RELEASES; i++) {
        /* -2: not applied, or a release that does not read the name (said already) */
        rules[i] = (all & (1u << i)) && (release_mask(e->key) & (1u << i) || !release_mask(e->key))
                       ? rule_in(e->key, i)
                       : -2;
        if (rules[i] == -2)
            continue;
        if (one == -1 && rules[i] >= 0)
            one = rules[i];
        same &= rules[i] < 0 || rules[i] == one;
    }
    struct nccl_reading r;
    if (same) {
        judge(e, one, sev, d, NULL, NULL, &r);
        return;
    }
    struct finding f[NCCL_RELEASES];
    bool differ = false;
    all = 0; /* now: the releases judged */
    int ref = -1;
    for (int i = 0; i < NCCL_RELEASES; i++) {
        if (rules[i] == -2)
            continue;
        judge(e, rules[i], sev, NULL, NULL, &f[i], &r);
        all |= 1u << i;
        if (ref < 0)
            ref = i;
        else
            differ |= f[i].sev != f[ref].sev || strcmp(f[i].text, f[ref].text) != 0;
    }
    if (differ)
        say_releases(e, sev, f, all, d);
    else if (f[ref].sev >= 0)
        judge(e, rules[ref], sev, d, NULL, NULL, &r); /* the same in each: said once, as ever */
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
    /* The nccl-conf sink would write it; NCCL would read a cut copy. */
    size_t kl = strlen(e->key), vl = strlen(e->value);
    if (nccl_conf_cuts(e->key, e->value) && strcmp(e->key, "NCCL_CONF_FILE") != 0)
        diag(d, DIAG_WARNING, e->file, e->line,
             "%s: the %s is %zu bytes; NCCL's nccl.conf reader keeps only %d, so the nccl-conf "
             "sink leaves it out", e->key, kl > NCCL_CONF_MAX ? "name" : "value",
             kl > NCCL_CONF_MAX ? kl : vl, NCCL_CONF_MAX);
    /* Is the name known: to the library given with --nccl-lib, if any,
     * else to the applied releases (to some of them: a warning, and the
     * value judged by those that read it). */
    unsigned mask = release_mask(e->key) & applied_mask();
    if (k && k->names ? !known_names_has(k, e->key) : !mask) {
        if (!(k && k->names) && release_mask(e->key))
            say_name_releases(e, release_mask(e->key), d);
        else
            suggest(e, k, d);
        return;
    }
    if (!(k && k->names) && mask != applied_mask())
        say_name_releases(e, mask, d);
    judge_releases(e, sev, d); /* a name only the given library knows: no rule, no finding */
}

/* ---- combinations ---- */

static const struct entry *set_find(const struct entry *const *set, size_t n, const char *key)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(set[i]->key, key) == 0)
            return set[i];
    return NULL;
}

/* Does NCCL_PROTO leave protocol tok off for every collective? */
static bool proto_excludes(const char *proto, const char *tok)
{
    struct nccl_reading r;
    nccl_read("NCCL_PROTO", proto, &r);
    int e = token_index(value_rules[R_PROTO].tokens, tok, strlen(tok), true);
    if (r.reads != NR_LIST || e < 0)
        return false;
    for (int f = 0; f < NCCL_FUNCS; f++)
        if (r.matrix[f][e])
            return false;
    return true;
}

/* The integer NCCL reads from an entry, if it reads one. */
static bool entry_int(const struct entry *e, long long *v)
{
    struct nccl_reading r;
    nccl_read(e->key, e->value, &r);
    *v = r.uses == NU_VALUE ? r.used : r.value;
    return r.reads == NR_INT && r.uses == NU_VALUE;
}

void validate_set(const struct entry *const *set, size_t n, struct diag *d)
{
    const struct entry *proto = set_find(set, n, "NCCL_PROTO");
    for (size_t i = 0; proto && i < noop_rules_count; i++) {
        const struct noop_rule *r = &noop_rules[i];
        const struct entry *e = set_find(set, n, r->key);
        long long v;
        if (!e || !*e->value || !proto_excludes(proto->value, r->proto))
            continue;
        if (r->min_value != LLONG_MIN && !(entry_int(e, &v) && v >= r->min_value))
            continue;
        d->key = e->key;
        diag(d, DIAG_WARNING, e->file, e->line, "%s=%s does nothing with NCCL_PROTO=%s: %s",
             e->key, e->value, proto->value, r->why);
    }
    const struct entry *lo = set_find(set, n, "NCCL_MIN_NCHANNELS");
    const struct entry *hi = set_find(set, n, "NCCL_MAX_NCHANNELS");
    long long l, h;
    if (lo && hi && entry_int(lo, &l) && entry_int(hi, &h) && l > h) {
        d->key = lo->key;
        diag(d, DIAG_WARNING, lo->file, lo->line,
             "NCCL_MIN_NCHANNELS=%s is above NCCL_MAX_NCHANNELS=%s: NCCL cannot honour both",
             lo->value, hi->value);
    }
    /* paths.cc ncclGetLevel reads the level only when NCCL_P2P_DISABLE is not 1. */
    const struct entry *off = set_find(set, n, "NCCL_P2P_DISABLE");
    const struct entry *level = set_find(set, n, "NCCL_P2P_LEVEL");
    long long v;
    if (off && level && entry_int(off, &v) && v == 1) {
        d->key = level->key;
        diag(d, DIAG_WARNING, level->file, level->line,
             "NCCL_P2P_LEVEL=%s does nothing with NCCL_P2P_DISABLE=1: NCCL does not read it",
             level->value);
    }
    d->key = NULL;
}

/* ---- the servers' own settings ---- */

void validate_servers(const struct entry *e, struct diag *d)
{
    for (size_t i = 0; i < server_overrides_count; i++) {
        const struct server_override *o = &server_overrides[i];
        if (strcmp(o->key, e->key) != 0)
            continue;
        size_t n = strlen(e->value);
        int shown = n > 80 ? 72 : (int)n; /* as say() shortens values */
        const char *more = n > 80 ? "..." : "";
        /* A parameter NCCL reads through its env plugin (ncclGetEnv) gets
         * the record's value from nccl-init's plugin under --enforce,
         * whatever the server put into the environment; one NCCL does not
         * read, or reads with getenv before the plugin loads, does not. */
        const char *plugin = nccl_param_find(o->key) && !nccl_read_before_plugin(o->key)
                                 ? "; with nccl-init's env plugin and --enforce the profile's "
                                   "value reaches NCCL anyway"
                                 : "";
        if (o->when == W_ALWAYS)
            diag(d, DIAG_WARNING, e->file, e->line, "%s=%.*s%s: %s always %s (%s), so the "
                 "profile's value never reaches %s%s", o->key, shown, e->value, more, o->server,
                 o->what, o->source, o->server, plugin);
        else if (o->when == W_UNSET)
            diag(d, DIAG_WARNING, e->file, e->line, "%s=%.*s%s: %s %s only when it is unset "
                 "(%s): the profile's value wins%s", o->key, shown, e->value, more, o->server,
                 o->what, o->source, plugin);
        else
            diag(d, DIAG_WARNING, e->file, e->line, "%s=%.*s%s: %s %s when it is unset, and "
                 "always with %s (%s): the profile's value wins unless %s is given%s", o->key,
                 shown, e->value, more, o->server, o->what, o->option, o->source, o->option,
                 plugin);
    }
}
