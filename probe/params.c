/* nccl-probe: nccl-probe params: what NCCL itself says it was given. */
#include "probe.h"

/* ---------------------------------------------------------------- params */

/* Set in the profile but logged by no "set by environment" line of NCCL
 * 2.28, or read only on paths a one-process, one-node communicator never
 * takes (the InfiniBand transport): reported, not checked. */
static const char *const unlogged[] = {
    "NCCL_DEBUG", "NCCL_DEBUG_SUBSYS", "NCCL_DEBUG_FILE", "NCCL_CONF_FILE", "NCCL_IB_*", NULL,
};

static bool is_unlogged(const char *key)
{
    for (int i = 0; unlogged[i]; i++) {
        size_t l = strlen(unlogged[i]);
        if (unlogged[i][l - 1] == '*' ? strncmp(key, unlogged[i], l - 1) == 0
                                      : strcmp(key, unlogged[i]) == 0)
            return true;
    }
    return false;
}

struct kv {
    char *key, *value;
};

struct kvs {
    struct kv *v;
    size_t n, cap;
};

static struct kv *kv_find(struct kvs *s, const char *key)
{
    for (size_t i = 0; i < s->n; i++)
        if (strcmp(s->v[i].key, key) == 0)
            return &s->v[i];
    return NULL;
}

static void kv_put(struct kvs *s, const char *key, size_t kl, const char *value, size_t vl)
{
    char *k = strndup(key, kl);
    if (!k)
        die(EXIT_RUNTIME, "%s: out of memory", cmd);
    struct kv *old = kv_find(s, k);
    char *v = strndup(value, vl);
    if (!v)
        die(EXIT_RUNTIME, "%s: out of memory", cmd);
    if (old) { /* the last one counts */
        xfree(k);
        xfree(old->value);
        old->value = v;
        return;
    }
    if (s->n == s->cap) {
        s->cap = s->cap ? 2 * s->cap : 16;
        s->v = realloc(s->v, s->cap * sizeof *s->v);
        if (!s->v)
            die(EXIT_RUNTIME, "%s: out of memory", cmd);
    }
    s->v[s->n++] = (struct kv){ k, v };
}

static int cmp_kv(const void *a, const void *b)
{
    return strcmp(((const struct kv *)a)->key, ((const struct kv *)b)->key);
}

/* "host:pid:tid [0] NCCL INFO NCCL_PROTO set by environment to LL"; integer
 * parameters end with a period ("NCCL_BUFFSIZE set by environment to
 * 16777216."). NCCL 2.28 src/misc/param.cc and the call sites that log
 * string parameters. */
static void parse_log(const char *text, struct kvs *out)
{
    static const char phrase[] = " set by environment to ";
    for (const char *line = text; line && *line;) {
        const char *eol = strchr(line, '\n');
        size_t len = eol ? (size_t)(eol - line) : strlen(line);
        const char *p = memmem(line, len, phrase, sizeof phrase - 1);
        if (p) {
            const char *k = p;
            while (k > line && k[-1] != ' ')
                k--;
            const char *v = p + sizeof phrase - 1;
            size_t vl = (size_t)(line + len - v);
            while (vl && (v[vl - 1] == '\r' || v[vl - 1] == ' '))
                vl--;
            if (vl > 1 && v[vl - 1] == '.') {
                bool digits = true;
                for (size_t i = (v[0] == '-'); i < vl - 1; i++)
                    digits &= isdigit((unsigned char)v[i]) != 0;
                if (digits)
                    vl--;
            }
            if (p > k)
                kv_put(out, k, (size_t)(p - k), v, vl);
        }
        line = eol ? eol + 1 : NULL;
    }
}

/* The profile's values: KEY=VALUE lines, NCCL_ keys other than NCCL_INIT_. */
static bool read_profile(const char *path, struct kvs *out)
{
    char *text = slurp(path);
    if (!text)
        return false;
    for (char *line = text, *next; line && *line; line = next) {
        next = strchr(line, '\n');
        if (next)
            *next++ = '\0';
        line += strspn(line, " \t");
        char *eq = strchr(line, '=');
        if (line[0] == '#' || !eq)
            continue;
        if (strncmp(line, "NCCL_", 5) != 0 || strncmp(line, "NCCL_INIT_", 10) == 0)
            continue;
        size_t vl = strlen(eq + 1);
        while (vl && (eq[vl] == '\r' || eq[vl] == ' ' || eq[vl] == '\t'))
            vl--;
        kv_put(out, line, (size_t)(eq - line), eq + 1, vl);
    }
    xfree(text);
    return true;
}

/* Numerically equal integers ("16777216" and "0x1000000"), or equal text. */
static bool same_value(const char *a, const char *b)
{
    long long x, y;
    if (whole_int(a, &x) && whole_int(b, &y))
        return x == y;
    return strcmp(a, b) == 0;
}

/* NCCL_DEBUG_FILE's name as NCCL expands it: %h hostname, %p pid, %% %. */
static void expand_debug_file(const char *pattern, char *out, size_t size)
{
    char host[256] = "";
    gethostname(host, sizeof host - 1);
    for (char *h = host; *h; h++)
        if (*h == '%' || *h == '/')
            *h = '-';
    char *dot = strchr(host, '.');
    if (dot)
        *dot = '\0';
    size_t o = 0;
    for (const char *p = pattern; *p && o + 1 < size; p++) {
        if (p[0] == '%' && p[1] == 'h') {
            o += (size_t)snprintf(out + o, size - o, "%s", host);
            p++;
        } else if (p[0] == '%' && p[1] == 'p') {
            o += (size_t)snprintf(out + o, size - o, "%d", (int)getpid());
            p++;
        } else if (p[0] == '%' && p[1] == '%') {
            out[o++] = '%';
            p++;
        } else {
            out[o++] = *p;
        }
        if (o >= size)
            o = size - 1;
    }
    out[o] = '\0';
}

/* The log file params made (not one the caller named): removed at exit. */
static char own_log[PATH_MAX];

static void remove_own_log(void)
{
    if (own_log[0])
        unlink(own_log);
}

/* The profile's values into *want, sorted: --profile's file, else the
 * record. Returns 0, or the errno of a record that cannot be read (there
 * is none to compare then); a --profile that cannot be read is a usage
 * error, GPU or not. */
static int want_profile(const char *profile, const char *path, struct kvs *want)
{
    if (!read_profile(path, want)) {
        int e = errno;
        if (profile)
            usage_error("params: --profile %s: %s", profile, strerror(e));
        return e;
    }
    if (want->n)
        qsort(want->v, want->n, sizeof *want->v, cmp_kv);
    return 0;
}

/* NCCL's log of its parameters: NCCL_DEBUG=INFO with the ENV subsystem
 * (unless they are set already), into NCCL_DEBUG_FILE or else a file of
 * our own, removed at exit. Before the first NCCL call: NCCL reads these
 * once. logpath: the file's name as NCCL expands it. */
static void nccl_logs_params(char *logpath, size_t size)
{
    setenv("NCCL_DEBUG", "INFO", 0);
    setenv("NCCL_DEBUG_SUBSYS", "ENV", 0);
    if (!getenv("NCCL_DEBUG_FILE")) {
        const char *tmp = getenv("TMPDIR");
        snprintf(own_log, sizeof own_log, "%s/nccl-probe-params.XXXXXX", tmp && *tmp ? tmp : "/tmp");
        int fd = mkstemp(own_log);
        if (fd < 0)
            die(EXIT_RUNTIME, "%s: %s: %s", cmd, own_log, strerror(errno));
        close(fd);
        atexit(remove_own_log);
        setenv("NCCL_DEBUG_FILE", own_log, 1);
    }
    expand_debug_file(getenv("NCCL_DEBUG_FILE"), logpath, size);
}

/* One communicator per visible GPU, made and destroyed: NCCL logs its
 * parameters while it makes them. */
static void init_comms(int ndev)
{
    ncclComm_t *comms = xcalloc((size_t)ndev, sizeof *comms);
    NCCL(ncclCommInitAll(comms, ndev, NULL));
    for (int i = 0; i < ndev; i++)
        NCCL(ncclCommDestroy(comms[i]));
    free(comms);
}

/* What NCCL's log says it was set by the environment, sorted. false: NCCL
 * wrote no log (a kept NCCL_DEBUG=WARN, say). */
static bool read_nccl_log(const char *logpath, struct kvs *got)
{
    char *log = slurp(logpath);
    if (!log && errno != ENOENT)
        die(EXIT_RUNTIME, "%s: NCCL's log %s: %s", cmd, logpath, strerror(errno));
    if (!log)
        return false;
    parse_log(log, got);
    xfree(log);
    if (got->n)
        qsort(got->v, got->n, sizeof *got->v, cmp_kv);
    return true;
}

/* Each variable of the profile against what NCCL logged. Returns how
 * many did not reach NCCL as set. */
static unsigned compare(const char *path, const struct kvs *want, struct kvs *got)
{
    unsigned checked = 0, bad = 0;
    printf("profile:    %s: %zu NCCL variable%s\n", path, want->n, want->n == 1 ? "" : "s");
    for (size_t i = 0; i < want->n; i++) {
        const struct kv *w = &want->v[i];
        const struct kv *g = kv_find(got, w->key);
        if (g && same_value(g->value, w->value)) {
            printf("  ok        %s=%s\n", w->key, w->value);
            checked++;
        } else if (g) {
            printf("  DIFFERENT %s=%s: NCCL says %s\n", w->key, w->value, g->value);
            checked++, bad++;
        } else if (is_unlogged(w->key)) {
            printf("  unchecked %s=%s: NCCL does not log it here\n", w->key, w->value);
        } else {
            printf("  MISSING   %s=%s: NCCL did not report it\n", w->key, w->value);
            checked++, bad++;
        }
    }
    if (bad)
        printf("result:     %u of %u checked variables did not reach NCCL as set\n", bad, checked);
    else
        printf("result:     all %u checked variables reached NCCL\n", checked);
    return bad;
}

int cmd_params(int argc, char **argv)
{
    const char *profile = NULL;
    for (int i = 2; i < argc; i++) {
        if (strcmp(argv[i], "--profile") == 0 && i + 1 < argc)
            profile = argv[++i];
        else
            usage_error("params: unknown argument '%s'", argv[i]);
    }
    const char *path = profile ? profile : RECORD_ENV;
    struct kvs want = { 0 }, got = { 0 };
    int profile_err = want_profile(profile, path, &want);

    const char *kept_level = getenv("NCCL_DEBUG"), *kept_subsys = getenv("NCCL_DEBUG_SUBSYS");
    char logpath[PATH_MAX];
    int ndev = devices_or_exit();
    nccl_logs_params(logpath, sizeof logpath);
    init_comms(ndev);
    char ver[32];
    nccl_version(ver, sizeof ver, NULL);
    bool logged = read_nccl_log(logpath, &got);

    printf("nccl:       %s, %d rank%s (ncclCommInitAll)\n", ver, ndev, ndev == 1 ? "" : "s");
    if (kept_level && strcmp(kept_level, "INFO") != 0 && strcmp(kept_level, "TRACE") != 0)
        printf("note:       NCCL_DEBUG=%s was already set and kept: NCCL may log nothing\n", kept_level);
    if (kept_subsys)
        printf("note:       NCCL_DEBUG_SUBSYS=%s was already set and kept\n", kept_subsys);
    if (!logged)
        printf("note:       NCCL wrote no log to %s\n", logpath);
    printf("set by environment, as NCCL logs it: %zu\n", got.n);
    for (size_t i = 0; i < got.n; i++)
        printf("  %s=%s\n", got.v[i].key, got.v[i].value);
    if (profile_err) {
        printf("profile:    none to compare (%s: %s)\n", path, strerror(profile_err));
        return 0;
    }
    return compare(path, &want, &got) ? EXIT_CHECK : 0;
}
