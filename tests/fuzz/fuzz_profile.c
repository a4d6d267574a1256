/* libFuzzer harness: profile parser, validator, canonical environment,
 * render and sink formats, driven the way resolve.c and commands.c drive
 * them.
 *
 * Input layout (every part optional):
 *
 *   PROFILE1 [0xfe PROFILE2] [0xff ENV [0xff LIB]]
 *
 * Two profiles so that layering (a later line replacing an earlier one) is
 * reached. ENV is a NUL-separated environment: envp in real life is whatever
 * the parent passed to execve, duplicates and '='-less strings included.
 * LIB is the content of a --nccl-lib file: the names read out of it take
 * the validator's other branch (names the built-in table does not know),
 * and the reader itself parses untrusted ELF. 0xfe and 0xff never occur in
 * valid UTF-8: reserving them hides no path through the parser, since any
 * other invalid byte takes the same one.
 *
 * Build and run: make fuzz (see the Makefile). */
#include "nccl/envset.h"
#include "lib/log.h"
#include "nccl/nccl_lib.h"
#include "nccl/profile.h"
#include "nccl/render.h"
#include "sinks/sink_formats.h"
#include "lib/mem.h"
#include "lib/text.h"
#include "nccl/validate.h"

#include <elf.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* known_names_from_lib() takes a path: an in-memory file avoids the disk. */
static int lib_fd = -1;
static char lib_path[32];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    /* diag() and log_msg() write every finding straight to fd 2: millions of
     * lines that would slow the fuzzer down to the speed of its terminal.
     * Silencing fd 2 here would take libFuzzer's stats and the sanitizer
     * reports with it, so ask libFuzzer to do it instead: -close_fd_mask=2
     * moves its own output and the reports to a copy of fd 2 first. Flags
     * are parsed after this function returns; an explicit flag wins. */
    int given = 0;
    for (int i = 1; i < *argc; i++)
        given |= strncmp((*argv)[i], "-close_fd_mask=", 15) == 0;
    if (!given) {
        char **args = xmalloc(((size_t)*argc + 2) * sizeof *args); /* lives until exit */
        memcpy(args, *argv, (size_t)*argc * sizeof *args);
        args[(*argc)++] = "-close_fd_mask=2";
        args[*argc] = NULL;
        *argv = args;
    }
    /* Debug level: every message is formatted (buf_vprintf over fuzzed
     * text, %.*s truncations) even though nobody reads it. */
    log_level = LOG_DEBUG;
    lib_fd = memfd_create("fuzz-libnccl", 0);
    snprintf(lib_path, sizeof lib_path, "/proc/self/fd/%d", lib_fd);
    return 0;
}

/* Splits a NUL-terminated copy of [p, p+n) at NULs into a NULL-terminated
 * array; *copy owns the strings. */
static char **split_nul(const uint8_t *p, size_t n, char **copy, size_t *count)
{
    *copy = xstrndup((const char *)p, n); /* xstrndup copies NULs too */
    size_t c = 1;
    for (size_t i = 0; i < n; i++)
        c += (*copy)[i] == '\0';
    char **v = xmalloc((c + 1) * sizeof *v);
    v[0] = *copy;
    for (size_t i = 0, j = 1; i < n; i++)
        if ((*copy)[i] == '\0')
            v[j++] = *copy + i + 1;
    v[c] = NULL;
    *count = c;
    return v;
}

static void load_lib(struct known_names *k, const uint8_t *p, size_t n)
{
    if (lib_fd < 0 || ftruncate(lib_fd, 0) != 0 ||
        pwrite(lib_fd, p, n, 0) != (ssize_t)n)
        return;
    known_names_from_lib(k, lib_path); /* on failure k stays empty: the built-in table */
}

static void skip(const char *sink, const char *key, const char *why)
{
    (void)sink, (void)key, (void)why;
}

/* What resolve.c keeps per run: the names, and one count for all errors. */
struct run {
    const struct known_names *k;
    struct diag d;
};

static void check(const struct entry *e, void *ctx)
{
    struct run *r = ctx;
    validate_entry(e, r->k, DIAG_ERROR, &r->d);
}

static void parse(struct profile *p, const char *name, const char *path, const uint8_t *text,
                  size_t n, struct run *r)
{
    memset(p, 0, sizeof *p);
    p->name = xstrdup(name);
    p->path = xstrdup(path);
    /* A tight malloc, so that ASan catches a read past text[len]. */
    p->text = xmalloc(n + 1);
    memcpy(p->text, text, n);
    p->text[n] = '\0';
    profile_parse(p, p->text, n, &r->d, check, r);
    const struct entry **set = xmalloc(p->n * sizeof *set);
    for (size_t i = 0; i < p->n; i++)
        set[i] = &p->v[i];
    validate_set(set, p->n, &r->d);
    xfree(set);
}

/* resolve_environment(): combinations judged on the values the child gets. */
static void check_resolved(const struct envset *s)
{
    struct entry *tmp = xmalloc(s->resolved * sizeof *tmp);
    const struct entry **set = xmalloc(s->resolved * sizeof *set);
    size_t m = 0;
    for (size_t i = 0; i < s->n; i++) {
        if (!s->v[i].resolved)
            continue;
        tmp[m] = *s->v[i].entry;
        tmp[m].value = s->v[i].value;
        set[m] = &tmp[m];
        m++;
    }
    validate_set(set, m, &(struct diag){ 0 });
    xfree(set);
    xfree(tmp);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const uint8_t *end = data + size;
    const uint8_t *ff = memchr(data, 0xff, size);
    const uint8_t *prof_end = ff ? ff : end;
    const uint8_t *fe = memchr(data, 0xfe, (size_t)(prof_end - data));

    const uint8_t *env = ff ? ff + 1 : end;
    const uint8_t *ff2 = memchr(env, 0xff, (size_t)(end - env));
    const uint8_t *env_end = ff2 ? ff2 : end;

    struct known_names k = { 0 };
    if (ff2)
        load_lib(&k, ff2 + 1, (size_t)(end - ff2 - 1));

    struct profile prof[2];
    size_t np = fe ? 2 : 1;
    struct run r = { &k, { 0 } };
    parse(&prof[0], "fuzz", "/fuzz/fuzz.env", data, (size_t)((fe ? fe : prof_end) - data), &r);
    if (fe)
        parse(&prof[1], "fuzz-2", "/fuzz/fuzz-2.env", fe + 1, (size_t)(prof_end - fe - 1), &r);

    char *env_copy = NULL, **envp = NULL;
    size_t nenv = 0;
    if (ff)
        envp = split_nul(env, (size_t)(env_end - env), &env_copy, &nenv);

    /* The path of a shadowed sitecustomize.py: any bytes in real life. */
    const char *chain = nenv ? envp[0] : NULL;

    /* Both modes: enforce takes the replace-the-environment branch. The
     * run mode composes only error-free profiles; composing the rest too
     * reaches more code, and the invariants are checked where they hold. */
    for (int enforce = 0; enforce < 2; enforce++) {
        struct envset s;
        struct diag d = { 0 };
        /* --strict where the environment wins, to reach its refusals too */
        envset_compose(&s, envp, prof, np, enforce ? ENVSET_ENFORCE : ENVSET_STRICT, &k, &d);
        if (r.d.errors == 0)
            for (size_t i = 1; i < s.n; i++)
                if (strcmp(s.v[i - 1].key, s.v[i].key) >= 0)
                    abort(); /* "sorted by key, unique": execve would get duplicates */
        check_resolved(&s);
        char **out = envset_envp(&s); /* one block: the array and the new strings */
        xfree(out);
        envset_log_summary(&s);
        struct buf b = { 0 };
        render_env(&b, &s, enforce); /* the whole environment, and the set alone */
        buf_free(&b);
        /* The JSON must stay a valid document whatever the bytes: UTF-8,
         * and no raw control character but the layout's newlines. */
        render_json(&b, &s, enforce, !enforce);
        if (!utf8_valid(b.data, b.len))
            abort();
        for (size_t i = 0; i < b.len; i++)
            if (((unsigned char)b.data[i] < 0x20 && b.data[i] != '\n') || b.data[i] == 0x7f)
                abort();
        buf_free(&b);
        format_etc_environment(&b, &s, skip);
        format_nccl_conf(&b, &s, chain, skip); /* any bytes as the plugin path too */
        format_env_file(&b, &s, skip);
        format_python(&b, &s, chain, NULL, skip);
        buf_free(&b);
        envset_free(&s); /* before the profiles: vars point at their entries */
    }

    xfree(envp);
    xfree(env_copy);
    for (size_t i = 0; i < np; i++)
        profile_free(&prof[i]);
    known_names_free(&k);
    return 0;
}
