#include "sinks.h"

#include "atomic.h"
#include "block.h"
#include "log.h"
#include "python_find.h"
#include "sink_formats.h"
#include "render.h"
#include "util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define RECORD_ENV "/run/nccl-init/profile.env"
#define RECORD_STATE "/run/nccl-init/state.json"

static const char *const sink_names[] = { "etc-environment", "python", "nccl-conf", "record" };

unsigned sinks_parse(const char *list)
{
    if (strcmp(list, "all") == 0)
        return SINK_ALL;
    if (strcmp(list, "none") == 0)
        return 0;
    unsigned mask = 0;
    for (const char *s = list;;) {
        const char *c = strchr(s, ',');
        size_t n = c ? (size_t)(c - s) : strlen(s);
        unsigned bit = 0;
        for (unsigned i = 0; i < ARRAY_SIZE(sink_names); i++)
            if (strlen(sink_names[i]) == n && strncmp(sink_names[i], s, n) == 0)
                bit = 1u << i;
        if (!bit)
            die(EXIT_USAGE, "--sinks: unknown sink '%.*s' (expected etc-environment, python, "
                            "nccl-conf, record, all or none)", (int)n, s);
        mask |= bit;
        if (!c)
            return mask;
        s = c + 1;
    }
}

static char *rooted(const struct sink_options *o, const char *path)
{
    return o->root ? path_join(o->root, path) : xstrdup(path);
}

static struct sink_result *result(struct sink_report *r, const char *sink, const char *path,
                                  const char *outcome)
{
    grow((void **)&r->v, &r->cap, r->n + 1, sizeof r->v[0]);
    struct sink_result *x = &r->v[r->n++];
    *x = (struct sink_result){ sink, xstrdup(path), outcome, NULL };
    return x;
}

static void failed(struct sink_report *r, const char *sink, const char *path, const char *step,
                   int err)
{
    struct buf why = { 0 };
    buf_printf(&why, "%s%s%s", step ? step : "", step ? ": " : "",
               err == ELOOP ? "refusing to write through a symlink" : errstr(err));
    log_warn("sink %s: %s: %s; skipped", sink, path, why.data);
    result(r, sink, path, "failed")->reason = why.data;
    r->failures++;
}

static void skipped_value(const char *sink, const char *key, const char *why)
{
    log_warn("sink %s: %s left out: %s", sink, key, why);
}

/* Replaces the managed block of path with body, atomically. old is the
 * file as the caller already read it (freed here), or NULL to read it now.
 * A file that already holds the block is left alone: no second read, no
 * write, no fsync on a restart. Returns the result (NULL on failure). */
static struct sink_result *splice_write(struct sink_report *r, const char *sink, const char *path,
                                        const char *body, bool at_top, char *old, size_t oldlen)
{
    int e = old ? 0 : read_target(path, &old, &oldlen);
    if (e < 0) {
        failed(r, sink, path, "read", e == -ELOOP ? ELOOP : -e);
        return NULL;
    }
    struct buf out = { 0 };
    if (block_splice(&out, old, oldlen, body, at_top) < 0) {
        free(old);
        log_warn("sink %s: %s: its nccl-init block is damaged (a BEGIN without an END, or two "
                 "blocks); skipped",
                 sink, path);
        result(r, sink, path, "failed")->reason = xstrdup("damaged block");
        r->failures++;
        return NULL;
    }
    const char *step;
    e = out.len == oldlen && memcmp(out.data, old, oldlen) == 0
            ? 1
            : atomic_write(path, out.data ? out.data : "", out.len, &step);
    free(old);
    buf_free(&out);
    if (e < 0) {
        failed(r, sink, path, step, -e);
        return NULL;
    }
    log_debug("sink %s: %s %s", sink, path, e == 1 ? "unchanged" : "written");
    return result(r, sink, path, e == 1 ? "unchanged" : "written");
}

static void write_simple(struct sink_report *r, const char *sink, const char *path,
                         void (*format)(struct buf *, const struct envset *, skip_fn *),
                         const struct envset *s)
{
    struct buf body = { 0 };
    format(&body, s, skipped_value);
    splice_write(r, sink, path, body.data ? body.data : "", false, NULL, 0);
    buf_free(&body);
}

/* A sitecustomize further down sys.path than the stdlib: the ones that a
 * hook in the stdlib directory would shadow. */
static char *shadowed(const struct python_home *h)
{
    size_t plen = h->prefix_len;
    struct buf c[4] = { { 0 }, { 0 }, { 0 }, { 0 } };
    buf_printf(&c[0], "%s/site-packages/sitecustomize.py", h->stdlib);
    /* Debian's site.py: local/lib/python3.X/dist-packages, lib/python3/
     * dist-packages, lib/python3.X/dist-packages */
    buf_printf(&c[1], "%.*s/local/lib/python%s/dist-packages/sitecustomize.py", (int)plen,
               h->stdlib, h->version);
    buf_printf(&c[2], "%.*s/lib/python3/dist-packages/sitecustomize.py", (int)plen, h->stdlib);
    buf_printf(&c[3], "%s/dist-packages/sitecustomize.py", h->stdlib);
    char *found = NULL;
    for (int i = 0; i < 4; i++) {
        struct stat st;
        if (!found && stat(c[i].data, &st) == 0 && S_ISREG(st.st_mode))
            found = xstrdup(c[i].data);
        buf_free(&c[i]);
    }
    return found;
}

/* Without a cached .pyc every start by a user who cannot write __pycache__
 * compiles the hook again (about 3 ms); compile it once, now. */
static void byte_compile(const struct python_home *h, const char *hook)
{
    if (!h->binary) {
        log_debug("python: no interpreter next to %s to byte-compile with", h->stdlib);
        return;
    }
    pid_t pid = _Fork(); /* single-threaded: see supervise() */
    if (pid == 0) {
        char *argv[] = { h->binary, "-I", "-c",
                         "import py_compile,sys\npy_compile.compile(sys.argv[1],doraise=True)",
                         (char *)hook, NULL };
        char *envp[] = { "PATH=/usr/bin:/bin", NULL };
        execve(h->binary, argv, envp);
        _exit(127);
    }
    int st = 0;
    if (pid < 0 || waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
        log_warn("sink python: %s: byte-compiling with %s failed; every start will compile it",
                 hook, h->binary);
}

static void write_python(struct sink_report *r, const struct python_home *h,
                         const struct envset *s)
{
    char *hook = path_join(h->stdlib, "sitecustomize.py");
    char *target = xstrdup(hook);
    char link[512];
    ssize_t n = readlink(hook, link, sizeof link - 1);
    if (n > 0) {
        /* Debian links the stdlib's sitecustomize.py to the conffile
         * /etc/python3.X/sitecustomize.py: keep the link, manage a block in
         * the conffile. Any other link is refused. */
        link[n] = '\0';
        struct buf want = { 0 };
        buf_printf(&want, "/etc/python%s/sitecustomize.py", h->version);
        free(target);
        target = strcmp(link, want.data) == 0 ? path_join(*h->root ? h->root : "/", link) : NULL;
        buf_free(&want);
        if (!target) {
            failed(r, "python", hook, NULL, ELOOP);
            free(hook);
            return;
        }
    }
    /* Chain only when this hook is what shadows another sitecustomize: if
     * the stdlib already had its own, the other one was shadowed before. */
    char *old = NULL, *chain = NULL;
    size_t oldlen = 0;
    if (read_target(target, &old, &oldlen) == 0 && block_only(old, oldlen))
        chain = shadowed(h);
    struct buf body = { 0 };
    format_python(&body, s, chain, skipped_value);
    struct sink_result *x = splice_write(r, "python", target, body.data, true, old, oldlen);
    if (x && chain) {
        struct buf note = { 0 };
        buf_printf(&note, "chains to %s", chain);
        x->reason = note.data;
    }
    struct buf pyc = { 0 };
    buf_printf(&pyc, "%s/__pycache__/sitecustomize.cpython-%.*s%s.pyc", h->stdlib, 1, h->version,
               h->version + 2);
    if (x && (strcmp(x->outcome, "written") == 0 || access(pyc.data, F_OK) != 0))
        byte_compile(h, hook);
    buf_free(&pyc);
    buf_free(&body);
    free(chain);
    free(target);
    free(hook);
}

void sinks_write(struct sink_report *r, const struct sink_options *o, const struct envset *s)
{
    if (o->mask & SINK_ETC_ENVIRONMENT) {
        char *p = rooted(o, "/etc/environment");
        write_simple(r, "etc-environment", p, format_etc_environment, s);
        free(p);
    }
    if (o->mask & SINK_NCCL_CONF) {
        /* NCCL reads $NCCL_CONF_FILE (the environment wins over it) and
         * /etc/nccl.conf only when that is unset. */
        const char *conf = envset_get(s, "NCCL_CONF_FILE");
        char *p = conf && *conf ? xstrdup(conf) : rooted(o, "/etc/nccl.conf");
        if (conf && *conf)
            log_info("NCCL_CONF_FILE is set: writing the nccl.conf block to %s", conf);
        write_simple(r, "nccl-conf", p, format_nccl_conf, s);
        free(p);
    }
    if (o->mask & SINK_PYTHON) {
        struct python_homes homes = { 0 };
        python_find(&homes, o->root, o->interpreters, o->ninterpreters, envset_get(s, "PATH"));
        if (homes.n == 0)
            log_info("sink python: no Python interpreter found");
        for (size_t i = 0; i < homes.n; i++)
            write_python(r, &homes.v[i], s);
    }
}

void record_env(struct sink_report *r, const struct sink_options *o, const struct envset *s)
{
    if (!(o->mask & SINK_RECORD))
        return;
    char *dir = rooted(o, "/run/nccl-init");
    if (mkdir(dir, 0755) == 0) {
        chmod(dir, 0755); /* whatever the umask: verify runs as any user */
    } else if (errno != EEXIST) {
        failed(r, "record", dir, "mkdir", errno);
        r->record_failed = true;
        free(dir);
        return;
    }
    /* Where the Python hook notes what it applied: any user may add to it,
     * like /tmp; verify trusts a note only from the process's own user. */
    char *applied = path_join(dir, "applied");
    if (mkdir(applied, 01777) == 0)
        chmod(applied, 01777); /* not subject to the umask */
    free(applied);
    free(dir);
    /* The record is nccl-init's own file: written whole, no block. */
    char *path = rooted(o, RECORD_ENV);
    struct buf b = { 0 };
    const char *step;
    format_env_file(&b, s, skipped_value);
    int e = atomic_write(path, b.data ? b.data : "", b.len, &step);
    if (e < 0) {
        failed(r, "record", path, step, -e);
        r->record_failed = true;
    } else {
        result(r, "record", path, e == 1 ? "unchanged" : "written");
    }
    buf_free(&b);
    free(path);
}

/* The pid's room in state.json: digits, then spaces (JSON whitespace). */
#define PID_ROOM 10

void record_state_prepare(struct record_state *rs, struct sink_report *r,
                          const struct sink_options *o, const struct envset *s)
{
    memset(rs, 0, sizeof *rs);
    if (!(o->mask & SINK_RECORD) || r->record_failed)
        return; /* the record's directory already gave its one warning */
    rs->path = rooted(o, RECORD_STATE);
    struct buf *b = &rs->text;
    buf_str(b, "{\n  \"profile\": ");
    json_string(b, s->names);
    buf_printf(b, ",\n  \"digest\": \"%s\",\n  \"child_pid\": ", s->digest);
    rs->pid_at = b->len;
    buf_str(b, "          ,\n  \"variables\": ["); /* PID_ROOM spaces */
    for (size_t i = 0, k = 0; i < s->n; i++)
        if (sink_carries(&s->v[i])) {
            buf_str(b, k++ ? ",\n    " : "\n    ");
            json_var(b, &s->v[i]);
        }
    buf_str(b, "\n  ],\n  \"sinks\": [");
    for (size_t i = 0; i < r->n; i++) {
        buf_printf(b, "%s{\"sink\": \"%s\", \"path\": ", i ? ",\n    " : "\n    ", r->v[i].sink);
        json_string(b, r->v[i].path);
        buf_printf(b, ", \"outcome\": \"%s\"", r->v[i].outcome);
        if (r->v[i].reason) {
            buf_str(b, ", \"note\": ");
            json_string(b, r->v[i].reason);
        }
        buf_str(b, "}");
    }
    buf_str(b, "\n  ]\n}\n");
}

void record_state_commit(struct record_state *rs, pid_t child)
{
    if (!rs->path)
        return;
    char digits[PID_ROOM + 1];
    struct buf d = BUF_FIXED(digits);
    buf_printf(&d, "%d", (int)child); /* at most 7 digits: PID_MAX_LIMIT is 4194304 */
    memcpy(rs->text.data + rs->pid_at, digits, d.len);
    const char *step;
    int e = atomic_write(rs->path, rs->text.data, rs->text.len, &step);
    /* Logged here rather than through failed(): no allocation after the fork. */
    if (e < 0)
        log_warn("sink record: %s: %s: %s; skipped", rs->path, step, errstr(-e));
}
