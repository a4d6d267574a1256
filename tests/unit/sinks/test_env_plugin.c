/* The env plugin the nccl-conf block names: glibc's ld.so.cache read
 * bounded, ours found beside a binary and trusted or not, other plugins
 * left alone. */
#include "helpers.h"

#include "lib/paths.h"
#include "nccl/envset.h"
#include "sinks/env_plugin.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>

/* ---- ld.so.cache ---- */

struct seen {
    unsigned n;
    char last[4096];
};

static bool note_path(const char *path, void *ctx)
{
    struct seen *s = ctx;
    s->n++;
    snprintf(s->last, sizeof s->last, "%s", path);
    return false;
}

static char *slurp(const char *path, size_t *len)
{
    char *data;
    if (read_file(path, 64u << 20, &data, len) < 0)
        return NULL;
    return data;
}

/* This machine's own cache, a real one ldconfig wrote: libc is in it. */
static void ldcache_of_this_machine(void **state)
{
    (void)state;
    size_t len;
    char *data = slurp("/etc/ld.so.cache", &len);
    if (!data || len < 20 || memcmp(data, "glibc-ld.so.cache1.1", 20) != 0) {
        xfree(data);
        skip(); /* not glibc's new format here */
    }
    struct seen s = { 0 };
    int n = ldcache_each(data, len, "libc.so.6", note_path, &s);
    assert_true(n >= 1);
    assert_int_equal((unsigned)n, s.n);
    assert_true(strlen(s.last) > strlen("/libc.so.6"));
    assert_string_equal(s.last + strlen(s.last) - strlen("/libc.so.6"), "/libc.so.6");
    memset(&s, 0, sizeof s);
    assert_int_equal(ldcache_each(data, len, "libnot-there-at-all.so.9", note_path, &s), 0);

    /* Bounded: every cut of the file is refused or read within it (ASan
     * would see a read beyond), never more entries than the whole has. */
    for (size_t cut = 0; cut < len && cut < 4096; cut++) {
        char *part = xmalloc(cut ? cut : 1);
        memcpy(part, data, cut);
        memset(&s, 0, sizeof s);
        int k = ldcache_each(part, cut, "libc.so.6", note_path, &s);
        assert_true(k == -EINVAL || (k >= 0 && k <= n));
        xfree(part);
    }
    /* Another format, or a header that does not hold together. */
    char *copy = xmalloc(len);
    memcpy(copy, data, len);
    copy[0] = 'x';
    assert_int_equal(ldcache_each(copy, len, "libc.so.6", note_path, &s), -EINVAL);
    memcpy(copy, data, len);
    uint32_t huge = 0x7fffffff;
    memcpy(copy + 20, &huge, 4);
    assert_int_equal(ldcache_each(copy, len, "libc.so.6", note_path, &s), -EINVAL);
    memcpy(copy, data, len);
    uint32_t far = (uint32_t)len + 100; /* the first entry's key beyond the file */
    memcpy(copy + 48 + 4, &far, 4);
    assert_int_equal(ldcache_each(copy, len, "libc.so.6", note_path, &s), -EINVAL);
    xfree(copy);
    xfree(data);
}

static int sh(const char *cmd)
{
    int st = system(cmd);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* A cache ldconfig -r builds for a root that has a libnccl-env.so (an ELF
 * with that SONAME) in a directory of its ld.so.conf. */
static void ldcache_from_ldconfig(void **state)
{
    (void)state;
    char dir[] = "/tmp/test_env_plugin.XXXXXX";
    assert_non_null(mkdtemp(dir));
    char cmd[1024];
    snprintf(cmd, sizeof cmd,
             "set -e; cd %s; mkdir -p etc opt/x/lib; echo /opt/x/lib >etc/ld.so.conf;"
             "echo 'int f(void){return 1;}' >f.c;"
             "gcc -shared -fPIC -Wl,-soname," ENV_PLUGIN_NAME " -o opt/x/lib/" ENV_PLUGIN_NAME
             " f.c 2>/dev/null; ldconfig -r . 2>/dev/null",
             dir);
    if (sh(cmd) != 0) {
        snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
        sh(cmd);
        skip(); /* no gcc or ldconfig */
    }
    char path[512];
    snprintf(path, sizeof path, "%s/etc/ld.so.cache", dir);
    size_t len;
    char *data = slurp(path, &len);
    assert_non_null(data);
    struct seen s = { 0 };
    assert_int_equal(ldcache_each(data, len, ENV_PLUGIN_NAME, note_path, &s), 1);
    assert_string_equal(s.last, "/opt/x/lib/" ENV_PLUGIN_NAME);
    xfree(data);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    sh(cmd);
}

/* ---- ours and the others ---- */

/* A set of environment variables, sorted by key as envset_get wants. */
static void env_set(struct envset *s, const char *const *kv, size_t n)
{
    memset(s, 0, sizeof *s);
    s->v = calloc(n ? n : 1, sizeof *s->v);
    for (size_t i = 0; i < n; i++) {
        const char *eq = strchr(kv[i], '=');
        s->v[i].key = strndup(kv[i], (size_t)(eq - kv[i]));
        s->v[i].value = eq + 1;
        s->v[i].source = SRC_ENV;
    }
    s->n = n;
}

static void env_unset(struct envset *s)
{
    for (size_t i = 0; i < s->n; i++)
        free((char *)s->v[i].key);
    free(s->v);
}

struct prefix {
    char top[64];
    char exe[128], plugin[160], conf[160];
};

/* TOP/bin/nccl-init (never run: only its path counts), the plugin at
 * TOP/lib/nccl-init/libnccl-env.so (0644), TOP/nccl.conf. */
static void make_prefix(struct prefix *p)
{
    snprintf(p->top, sizeof p->top, "/tmp/test_env_plugin.XXXXXX");
    assert_non_null(mkdtemp(p->top));
    snprintf(p->exe, sizeof p->exe, "%s/bin/nccl-init", p->top);
    snprintf(p->plugin, sizeof p->plugin, "%s/lib/nccl-init/" ENV_PLUGIN_NAME, p->top);
    snprintf(p->conf, sizeof p->conf, "%s/nccl.conf", p->top);
    char cmd[512];
    snprintf(cmd, sizeof cmd,
             "set -e; cd %s; mkdir -p bin lib/nccl-init; : >bin/nccl-init; echo x >%s;"
             "chmod 0644 %s",
             p->top, p->plugin, p->plugin);
    assert_int_equal(sh(cmd), 0);
}

static void drop_prefix(struct prefix *p)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", p->top);
    sh(cmd);
}

/* env_plugin_find with its warnings captured (*log, to free). */
static void find(struct env_plugin *e, const struct env_plugin_where *w, const struct envset *s,
                 char **log)
{
    capture_begin();
    env_plugin_find(e, w, s);
    *log = capture_end();
}

static void ours_named_when_trusted(void **state)
{
    (void)state;
    struct prefix p;
    make_prefix(&p);
    struct envset s;
    env_set(&s, NULL, 0);
    struct env_plugin_where w = { p.exe, NULL, p.conf, false, NULL, 0 };
    struct env_plugin e;
    char *log;
    find(&e, &w, &s, &log);
    assert_string_equal(log, "");
    assert_string_equal(e.path, p.plugin);
    assert_string_equal(e.name, p.plugin);
    assert_string_equal(e.outcome, "named");
    env_plugin_free(&e);
    free(log);

    /* group-writable: left out, one warning saying why */
    chmod(p.plugin, 0664);
    find(&e, &w, &s, &log);
    assert_null(e.name);
    assert_string_equal(e.outcome, "left out");
    assert_contains(log, "warning: sink nccl-conf: env plugin ");
    assert_contains(log, ": it is writable by group (mode 0664); not named\n");
    assert_int_equal(strchr(log, '\n') - log + 1, (long)strlen(log)); /* one line */
    env_plugin_free(&e);
    free(log);
    chmod(p.plugin, 0644);

    /* a link in its path: lib/nccl-init -> elsewhere */
    char cmd[512];
    snprintf(cmd, sizeof cmd, "cd %s && mv lib/nccl-init real && ln -s ../real lib/nccl-init",
             p.top);
    assert_int_equal(sh(cmd), 0);
    find(&e, &w, &s, &log);
    assert_null(e.name);
    assert_contains(log, "/lib/nccl-init is a symlink; not named");
    env_plugin_free(&e);
    free(log);

    /* none there: nothing to say, nothing to record */
    snprintf(cmd, sizeof cmd, "cd %s && rm lib/nccl-init", p.top);
    assert_int_equal(sh(cmd), 0);
    find(&e, &w, &s, &log);
    assert_null(e.name);
    assert_null(e.outcome);
    assert_string_equal(log, "");
    env_plugin_free(&e);
    free(log);
    env_unset(&s);
    drop_prefix(&p);
}

static void under_root(void **state)
{
    (void)state;
    struct prefix p;
    make_prefix(&p);
    struct envset s;
    env_set(&s, NULL, 0);
    /* the prefix is the root: named as seen from inside it */
    struct env_plugin_where w = { p.exe, p.top, p.conf, false, NULL, 0 };
    struct env_plugin e;
    char *log;
    find(&e, &w, &s, &log);
    assert_string_equal(e.name, "/lib/nccl-init/" ENV_PLUGIN_NAME);
    assert_string_equal(e.path, p.plugin);
    env_plugin_free(&e);
    free(log);
    /* a root the binary is outside of: nothing named, nothing warned */
    char other[] = "/tmp/test_env_plugin_root.XXXXXX";
    assert_non_null(mkdtemp(other));
    w.root = other;
    find(&e, &w, &s, &log);
    assert_null(e.name);
    assert_null(e.outcome);
    assert_string_equal(log, "");
    env_plugin_free(&e);
    free(log);
    /* ... but another plugin under that root is still said */
    char cmd[256];
    snprintf(cmd, sizeof cmd, "mkdir -p %s/usr/lib && : >%s/usr/lib/" ENV_PLUGIN_NAME, other,
             other);
    assert_int_equal(sh(cmd), 0);
    find(&e, &w, &s, &log);
    assert_null(e.name);
    assert_string_equal(e.outcome, "left out");
    assert_contains(log, "another env plugin (another " ENV_PLUGIN_NAME " at ");
    assert_contains(log, "/usr/lib/" ENV_PLUGIN_NAME " (a system library directory)): left "
                         "alone; NCCL takes its parameters through that plugin");
    env_plugin_free(&e);
    free(log);
    snprintf(cmd, sizeof cmd, "rm -rf %s", other);
    sh(cmd);
    env_unset(&s);
    drop_prefix(&p);
}

static void others_left_alone(void **state)
{
    (void)state;
    struct prefix p;
    make_prefix(&p);
    struct env_plugin_where w = { p.exe, NULL, p.conf, false, NULL, 0 };
    struct env_plugin e;
    char *log;
    /* (a) the environment names another, or none; ours exactly is ours */
    char mine[256];
    snprintf(mine, sizeof mine, "NCCL_ENV_PLUGIN=%s", p.plugin);
    const char *cases[][2] = {
        { "NCCL_ENV_PLUGIN=/opt/x/libnccl-env.so", "another env plugin (NCCL_ENV_PLUGIN=/opt/x/libnccl-env.so in the environment): left alone; NCCL takes its parameters through that plugin, and the profile reaches NCCL only through the environment, the Python hook and nccl.conf (--enforce does not hold against a process's own value)\n" },
        { "NCCL_ENV_PLUGIN=None", "env plugins turned off (NCCL_ENV_PLUGIN=None in the environment): left alone; NCCL then loads no env plugin" },
        { mine, NULL },
    };
    for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
        struct envset s;
        env_set(&s, cases[i], 1);
        find(&e, &w, &s, &log);
        if (cases[i][1]) {
            assert_null(e.name);
            assert_string_equal(e.outcome, "left out");
            assert_contains(log, cases[i][1]);
            assert_int_equal(strchr(log, '\n') - log + 1, (long)strlen(log));
        } else {
            assert_string_equal(e.name, p.plugin);
            assert_string_equal(log, "");
        }
        env_plugin_free(&e);
        free(log);
        env_unset(&s);
    }
    struct envset s;
    env_set(&s, NULL, 0);
    /* (b) a line outside the block of the sink's file; one inside is ours */
    FILE *f = fopen(p.conf, "w");
    fprintf(f, "# BEGIN nccl-init\nNCCL_ENV_PLUGIN=%s\n# END nccl-init\n", p.plugin);
    fclose(f);
    find(&e, &w, &s, &log);
    assert_string_equal(e.outcome, "named");
    env_plugin_free(&e);
    free(log);
    f = fopen(p.conf, "a");
    fprintf(f, "NCCL_ENV_PLUGIN=mine\n");
    fclose(f);
    find(&e, &w, &s, &log);
    assert_null(e.name);
    assert_contains(log, "another env plugin (NCCL_ENV_PLUGIN=mine in ");
    assert_contains(e.note, "another env plugin: NCCL_ENV_PLUGIN=mine in ");
    env_plugin_free(&e);
    free(log);
    unlink(p.conf);
    env_unset(&s);

    /* (c) another libnccl-env.so on LD_LIBRARY_PATH; ours linked there is ours */
    char llp[256], cmd[512];
    snprintf(llp, sizeof llp, "LD_LIBRARY_PATH=/nonexistent::rel:%s/ld", p.top);
    const char *kv[] = { llp };
    env_set(&s, kv, 1);
    snprintf(cmd, sizeof cmd, "mkdir %s/ld && ln -s %s %s/ld/" ENV_PLUGIN_NAME, p.top, p.plugin,
             p.top);
    assert_int_equal(sh(cmd), 0);
    find(&e, &w, &s, &log);
    assert_string_equal(e.outcome, "named");
    assert_string_equal(log, "");
    env_plugin_free(&e);
    free(log);
    snprintf(cmd, sizeof cmd, "rm %s/ld/" ENV_PLUGIN_NAME " && echo y >%s/ld/" ENV_PLUGIN_NAME,
             p.top, p.top);
    assert_int_equal(sh(cmd), 0);
    find(&e, &w, &s, &log);
    assert_null(e.name);
    assert_contains(log, "/ld/" ENV_PLUGIN_NAME " (LD_LIBRARY_PATH)): left alone");
    env_plugin_free(&e);
    free(log);
    env_unset(&s);
    drop_prefix(&p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(ldcache_of_this_machine),
        cmocka_unit_test(ldcache_from_ldconfig),
        cmocka_unit_test(ours_named_when_trusted),
        cmocka_unit_test(under_root),
        cmocka_unit_test(others_left_alone),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
