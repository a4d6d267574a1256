/* nccl-init install (install.h): the hooks through the python sink's own
 * writer (sinks_install_hooks), and the env plugin's link, made as every
 * sink's file is reached: the directory walked without following a link,
 * owned by root and writable by no one else (lib/walk.h). */
#include "sinks/install.h"

#include "lib/atomic.h"
#include "lib/buf.h"
#include "lib/fileio.h"
#include "lib/log.h"
#include "lib/mem.h"
#include "lib/paths.h"
#include "lib/text.h"
#include "sinks/env_plugin.h"
#include "sinks/sinks.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define LINK_NAME "libnccl-env.so"

/* The link's path under root, and in *root_len how much of it is the root
 * (as the sinks' rooted()): the root is opened as given, the rest walked. */
static char *link_path(const char *root, size_t *root_len)
{
#ifdef ENV_PLUGIN_TRIPLET
    static const char rel[] = INSTALL_LINK_DIR ENV_PLUGIN_TRIPLET "/" LINK_NAME;
#else
    static const char rel[] = "";
#endif
    char *p = root ? path_join(root, rel) : xstrdup(rel);
    size_t lp = strlen(p), lq = strlen(rel);
    *root_len = lp > lq ? lp - lq : 0;
    return p;
}

/* One warning for the link at path: "env plugin link: PATH: WHY; TAIL". */
static unsigned link_failed(const char *path, const struct target *t, int e, const char *tail)
{
    struct buf why = { 0 };
    if (t && t->why.kind != REFUSED_NOTHING)
        refusal_text(&why, t->path, &t->why);
    else
        buf_printf(&why, "%s%s%s", t && t->step ? t->step : "", t && t->step ? ": " : "",
                   strerror(-e));
    log_warn("env plugin link: %s: %s; %s", path, why.data, tail);
    buf_free(&why);
    return 1;
}

/* What is at t's name: 0 nothing, 1 a link to want, 2 something else (said
 * in *other), or -errno. */
static int link_state(struct target *t, const char *want, struct buf *other)
{
    struct stat st;
    t->step = "check target";
    if (fstatat(t->dfd, t->name, &st, AT_SYMLINK_NOFOLLOW) < 0)
        return errno == ENOENT ? 0 : -errno;
    if (!S_ISLNK(st.st_mode)) {
        buf_str(other, S_ISREG(st.st_mode) ? "a regular file" : "not a symlink");
        return 2;
    }
    char text[PATH_MAX];
    ssize_t n = readlinkat(t->dfd, t->name, text, sizeof text - 1);
    if (n < 0)
        return -errno;
    text[n] = '\0';
    if (strcmp(text, want) == 0)
        return 1;
    buf_str(other, "a link to ");
    buf_add(other, text, (size_t)n); /* the log escapes it */
    return 2;
}

/* The link ROOT/usr/lib/<triplet>/libnccl-env.so -> ours as seen inside
 * the root. symlinkat makes it whole at once (a reader sees no name or the
 * finished link) and never replaces anything: an entry that appeared in
 * between is looked at again, as one that was there. 0, or 1 after its
 * one line. */
static unsigned install_link(const struct install_options *o)
{
    size_t rl;
    char *path = link_path(o->root, &rl);
    char *ours = NULL, *name = NULL;
    struct buf why = { 0 }, other = { 0 };
    unsigned failed = 1;
#ifndef ENV_PLUGIN_TRIPLET
    log_warn("env plugin link: no multiarch library directory is known for this architecture; "
             "not made");
    goto out;
#endif
    int e = env_plugin_ours(o->exe, o->root, &ours, &name, &why);
    if (e == -ENOENT && !ours) {
        log_warn("env plugin link: %s: the running binary's path is unknown; not made", path);
        goto out;
    }
    if (e == -ENOENT) {
        log_warn("env plugin link: %s: no env plugin at %s; not made", path, ours);
        goto out;
    }
    if (e == -EXDEV) {
        log_warn("env plugin link: %s: the env plugin %s is outside --root %s; not made", path,
                 ours, o->root);
        goto out;
    }
    if (e != 0) {
        log_warn("env plugin link: %s: env plugin %s: %s; not linked", path, ours,
                 e == 1 ? why.data : strerror(-e));
        goto out;
    }
    struct target t;
    e = target_open(&t, path, rl);
    for (int tries = 0; e == 0 && tries < 4; tries++) {
        buf_free(&other);
        e = link_state(&t, name, &other);
        if (e == 0) {
            t.step = "symlink";
            e = symlinkat(name, t.dfd, t.name) < 0 ? -errno : 3;
            if (e == -EEXIST)
                e = 0; /* made in between: look again */
        }
        if (e != 0)
            break;
    }
    if (e == 1 || e == 3) {
        log_info("env plugin link: %s -> %s %s", path, name, e == 1 ? "unchanged" : "written");
        failed = 0;
    } else if (e == 2) {
        log_warn("env plugin link: %s: %s is there, not a link to %s; left alone", path,
                 other.data, name);
    } else {
        link_failed(path, &t, e ? e : -EEXIST, "not made");
    }
    target_close(&t);
out:
    buf_free(&why);
    buf_free(&other);
    xfree(ours);
    xfree(name);
    xfree(path);
    return failed;
}

unsigned install_run(const struct install_options *o)
{
    struct sink_report r = { 0 };
    struct sink_options so = { .mask = SINK_PYTHON, .root = o->root,
                               .interpreters = o->interpreters,
                               .ninterpreters = o->ninterpreters };
    sinks_install_hooks(&r, &so);
    for (size_t i = 0; i < r.n; i++)
        if (strcmp(r.v[i].outcome, "failed") != 0)
            log_info("python hook: %s %s", r.v[i].path, r.v[i].outcome);
    unsigned failures = r.failures;
    sink_report_free(&r);
    return failures + install_link(o);
}

unsigned install_remove_link(const char *root, const char *exe)
{
    char *ours = NULL, *name = NULL;
    struct buf why = { 0 }, other = { 0 };
    int e = env_plugin_ours(exe, root, &ours, &name, &why);
    buf_free(&why);
    unsigned failed = 0;
    size_t rl;
    char *path = link_path(root, &rl);
    if (name && *path) {
        struct target t;
        e = target_open(&t, path, rl);
        if (e == 0)
            e = link_state(&t, name, &other);
        if (e == 1) {
            t.step = "unlink";
            e = unlinkat(t.dfd, t.name, 0) < 0 ? -errno : 3;
        }
        if (e == 3)
            log_info("env plugin link: %s deleted", path);
        else if (e == 2)
            log_debug("env plugin link: %s: %s is there, not a link to %s; left alone", path,
                      other.data, name);
        else if (e < 0 && e != -ENOENT)
            failed = link_failed(path, &t, e, "skipped");
        target_close(&t);
    }
    buf_free(&other);
    xfree(path);
    xfree(ours);
    xfree(name);
    return failed;
}
