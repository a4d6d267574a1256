#include "nccl/envset.h"

#include "lib/digest.h"
#include "lib/buf.h"
#include "lib/mem.h"
#include "lib/sort.h"
#include "lib/strmap.h"
#include "nccl/validate.h"

#include <stdlib.h>
#include <string.h>

struct inherited {
    const char *entry; /* "KEY=VALUE" */
    size_t keylen;
};

/* By key alone: copies of one key keep their order in the environment
 * because sort() is stable, and that is what makes the last copy win
 * (util.h). */
static int cmp_inherited(const void *a, const void *b)
{
    const struct inherited *x = a, *y = b;
    size_t n = x->keylen < y->keylen ? x->keylen : y->keylen;
    int c = memcmp(x->entry, y->entry, n);
    if (c == 0 && x->keylen != y->keylen)
        c = x->keylen < y->keylen ? -1 : 1;
    return c;
}

static int cmp_var(const void *a, const void *b)
{
    return strcmp(((const struct var *)a)->key, ((const struct var *)b)->key);
}

static int cmp_entry(const void *a, const void *b)
{
    const struct entry *x = *(const struct entry *const *)a, *y = *(const struct entry *const *)b;
    return strcmp(x->key, y->key);
}

/* Room is reserved up front (envset_compose), so this never reallocates
 * and pointers to earlier vars stay valid. */
static struct var *add(struct envset *s, const char *key, const char *value, int src)
{
    struct var *v = &s->v[s->n++];
    *v = (struct var){ .key = key, .value = value, .source = src };
    return v;
}

/* What judging the environment's NCCL_* values needs. */
struct env_check {
    const struct entry **layered; /* the profiles' lines, sorted by key */
    size_t nl;
    unsigned flags; /* ENVSET_* */
    const struct known_names *k;
    struct diag *d;
};

/* "%.*s%s" arguments for a value in a message, shortened as validate.c's
 * findings shorten it. */
#define SHORT(s) (strlen(s) > 80 ? 72 : (int)strlen(s)), (s), (strlen(s) > 80 ? "..." : "")

/* One NCCL_* value of the environment, judged as a profile's is, but as
 * warnings: the value is the caller's, not the profile's. Under --strict, one
 * that beats a profile line with a value NCCL would not take is an error
 * that names the line: the start would not carry the profile. */
static void check_inherited(const struct var *v, const struct env_check *c)
{
    const struct entry key = { .key = v->key }, *kp = &key;
    const struct entry **found =
        c->nl ? bsearch(&kp, c->layered, c->nl, sizeof *c->layered, cmp_entry) : NULL;
    const struct entry *e = found ? *found : NULL; /* the line this value beats */
    struct buf why = { 0 };
    if ((c->flags & ENVSET_STRICT) && !(c->flags & ENVSET_ENFORCE) && e &&
        strcmp(e->value, v->value) != 0 && nccl_refuses(v->key, v->value, &why))
        diag(c->d, DIAG_ERROR, "environment", 0, "%s=%.*s%s is not a value NCCL accepts (%s); "
             "the profile %s:%u sets %.*s%s", v->key, SHORT(v->value), why.data, e->file,
             e->line, SHORT(e->value));
    else
        validate_entry(&(struct entry){ v->key, v->value, "environment", 0, NULL }, c->k,
                       DIAG_WARNING, c->d);
    buf_free(&why);
}

/* The inherited environment, cleaned: malformed entries dropped, duplicates
 * collapsed to the last copy, nccl-init's own controls removed. glibc's
 * getenv() returns the first copy and Python's os.environ keeps the last, so
 * a duplicate would make C and Python code in one process disagree. */
static void take_environment(struct envset *s, char *const *envp, size_t extra,
                             const struct env_check *c)
{
    /* The keys need a NUL that the inherited "KEY=VALUE" strings do not
     * have there: one buffer holds them all, one after another. */
    size_t n = 0, kbytes = 1;
    while (envp && envp[n])
        kbytes += strcspn(envp[n++], "=") + 1;
    char *k_at = s->keys = xmalloc(kbytes);
    s->cap = n + extra;
    s->v = xmalloc((s->cap ? s->cap : 1) * sizeof s->v[0]);
    struct inherited *ix = xmalloc(n * sizeof *ix);
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        const char *eq = strchr(envp[i], '=');
        if (!eq || eq == envp[i]) {
            log_warn("dropping malformed environment entry '%.40s'", envp[i]);
            continue;
        }
        ix[m++] = (struct inherited){ envp[i], (size_t)(eq - envp[i]) };
    }
    sort(ix, m, sizeof *ix, cmp_inherited);
    for (size_t i = 0; i < m; i++) {
        size_t j = i;
        while (j + 1 < m && ix[j + 1].keylen == ix[i].keylen &&
               memcmp(ix[j + 1].entry, ix[i].entry, ix[i].keylen) == 0)
            j++;
        if (j > i)
            log_warn("environment has %.*s %zu times; keeping the last value",
                     (int)ix[i].keylen, ix[i].entry, j - i + 1);
        const char *e = ix[j].entry;
        i = j;
        if (strncmp(e, "NCCL_INIT_", 10) == 0)
            continue;
        memcpy(k_at, e, ix[j].keylen);
        k_at[ix[j].keylen] = '\0';
        struct var *v = add(s, k_at, e + ix[j].keylen + 1, SRC_ENV);
        v->inherited = e;
        k_at += ix[j].keylen + 1;
        if (strncmp(v->key, "NCCL_", 5) == 0)
            check_inherited(v, c);
    }
    xfree(ix);
}

/* The profiles' lines, layered (a later profile's line replaces an
 * earlier one's) and sorted by key: *n of them, total at most. */
static const struct entry **layer_profiles(const struct profile *profiles, size_t np,
                                           size_t total, size_t *n)
{
    /* Walked in profile order so that a later profile replaces the earlier
     * line in place; each key's place is found by hash (a scan of the lines
     * taken so far made n lines cost n*n/2). */
    const struct entry **layered = xmalloc((total ? total : 1) * sizeof *layered);
    struct strmap at = { 0 };
    size_t nl = 0;
    for (size_t i = 0; i < np; i++)
        for (size_t j = 0; j < profiles[i].n; j++) {
            const struct entry *e = &profiles[i].v[j];
            long long w = strmap_put(&at, e->key, nl);
            if (w >= 0) {
                log_debug("%s: %s from %s:%u replaced by %s:%u", e->key, layered[w]->value,
                          layered[w]->file, layered[w]->line, e->file, e->line);
                layered[w] = e;
            } else {
                layered[nl++] = e;
            }
        }
    strmap_free(&at);
    sort(layered, nl, sizeof *layered, cmp_entry);
    *n = nl;
    return layered;
}

void envset_compose(struct envset *s, char *const *envp, const struct profile *profiles,
                    size_t np, unsigned flags, const struct known_names *k, struct diag *d)
{
    memset(s, 0, sizeof *s);
    bool enforce = s->enforce = flags & ENVSET_ENFORCE;
    size_t total = 0;
    for (size_t i = 0; i < np; i++)
        total += profiles[i].n;
    size_t nl;
    const struct entry **layered = layer_profiles(profiles, np, total, &nl);
    struct env_check c = { layered, nl, flags, k, d };
    /* Room for every profile line and nccl-init's two variables. */
    take_environment(s, envp, total + 2, &c); /* sorted, unique */
    size_t nenv = s->n;

    struct sha256 h;
    sha256_init(&h);
    for (size_t i = 0; i < nl; i++) {
        const struct entry *e = layered[i];
        struct var *v = nenv ? bsearch(&(struct var){ .key = (char *)e->key }, s->v, nenv,
                                       sizeof s->v[0], cmp_var)
                             : NULL;
        if (!v) {
            v = add(s, e->key, e->value, SRC_PROFILE);
        } else if (strcmp(v->value, e->value) == 0) {
            v->source = SRC_PROFILE;
        } else if (enforce) {
            v->value = e->value;
            v->inherited = NULL;
            v->source = SRC_PROFILE;
            v->enforced = true;
            s->overrides++;
        } else {
            v->overridden = true;
            s->overrides++;
        }
        v->entry = e;
        v->resolved = true;
        sha256_update(&h, v->key, strlen(v->key));
        sha256_update(&h, "=", 1);
        sha256_update(&h, v->value, strlen(v->value));
        sha256_update(&h, "\n", 1);
    }
    s->resolved = nl;
    xfree(layered);
    sha256_hex(&h, s->digest);

    struct buf names = { 0 };
    for (size_t i = 0; i < np; i++)
        buf_printf(&names, "%s%s", i ? "," : "", profiles[i].name);
    s->names = names.data ? names.data : xstrdup("none");
    add(s, "NCCL_INIT_PROFILE", s->names, SRC_INIT);
    add(s, "NCCL_INIT_DIGEST", s->digest, SRC_INIT);
    /* The keys are unique: the environment's were collapsed, a profile's
     * key is added only when the environment lacks it, and NCCL_INIT_* is
     * dropped from the environment (a profile may not set it). */
    qsort(s->v, s->n, sizeof s->v[0], cmp_var);
}

bool envset_in_set(const struct var *v)
{
    return v->resolved || v->source == SRC_INIT;
}

const char *envset_get(const struct envset *s, const char *key)
{
    /* In key order once composed (envset_compose). */
    const struct var *v = s->n ? bsearch(&(struct var){ .key = key }, s->v, s->n,
                                         sizeof s->v[0], cmp_var)
                               : NULL;
    return v ? v->value : NULL;
}

char **envset_envp(const struct envset *s)
{
    size_t bytes = 0;
    for (size_t i = 0; i < s->n; i++)
        if (!s->v[i].inherited)
            bytes += strlen(s->v[i].key) + strlen(s->v[i].value) + 2;
    /* The array, then the new "KEY=VALUE" strings, in one allocation. */
    char **envp = xmalloc((s->n + 1) * sizeof *envp + bytes);
    char *at = (char *)(envp + s->n + 1);
    for (size_t i = 0; i < s->n; i++) {
        const struct var *v = &s->v[i];
        if (v->inherited) {
            envp[i] = (char *)v->inherited;
            continue;
        }
        size_t kl = strlen(v->key), vl = strlen(v->value);
        envp[i] = at;
        memcpy(at, v->key, kl);
        at[kl] = '=';
        memcpy(at + kl + 1, v->value, vl + 1);
        at += kl + vl + 2;
    }
    envp[s->n] = NULL;
    return envp;
}

void envset_log_summary(const struct envset *s)
{
    struct buf b = { 0 };
    for (size_t i = 0; i < s->n; i++) {
        const struct var *v = &s->v[i];
        if (v->overridden)
            buf_printf(&b, "%s%s=%s from the environment over %s:%u", b.len ? ", " : "", v->key,
                       v->value, v->entry->file, v->entry->line);
        else if (v->enforced)
            buf_printf(&b, "%s%s enforced from %s:%u", b.len ? ", " : "", v->key,
                       v->entry->file, v->entry->line);
    }
    log_info("profile %s: %zu variable%s, digest %.12s, %zu override%s%s%s", s->names,
             s->resolved, s->resolved == 1 ? "" : "s", s->digest, s->overrides,
             s->overrides == 1 ? "" : "s", b.len ? ": " : "", b.len ? b.data : "");
    buf_free(&b);
}

void envset_free(struct envset *s)
{
    xfree(s->v);
    xfree(s->keys);
    xfree(s->names);
    memset(s, 0, sizeof *s);
}
