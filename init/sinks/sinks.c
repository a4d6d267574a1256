#include "sinks/sinks.h"

#include "lib/atomic.h"
#include "sinks/block.h"
#include "sinks/env_plugin.h"
#include "lib/log.h"
#include "sinks/python_find.h"
#include "lib/paths.h"
#include "lib/procfs.h"
#include "sinks/sink_formats.h"
#include "sinks/state_paths.h"
#include "nccl/render.h"
#include "lib/fileio.h"
#include "lib/mem.h"
#include "lib/text.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static const char sink_names[][16] = { "etc-environment", "python", "nccl-conf", "record" };

int sinks_parse(const char *list, unsigned *mask, const char **bad, size_t *badlen)
{
    *mask = 0;
    if (strcmp(list, "all") == 0) {
        *mask = SINK_ALL;
        return 0;
    }
    if (strcmp(list, "none") == 0)
        return 0;
    for (const char *s = list;;) {
        const char *c = strchr(s, ',');
        size_t n = c ? (size_t)(c - s) : strlen(s);
        unsigned bit = 0;
        for (unsigned i = 0; i < ARRAY_SIZE(sink_names); i++)
            if (strlen(sink_names[i]) == n && strncmp(sink_names[i], s, n) == 0)
                bit = 1u << i;
        if (!bit) {
            *bad = s;
            *badlen = n;
            return -EINVAL;
        }
        *mask |= bit;
        if (!c)
            return 0;
        s = c + 1;
    }
}

/* How much of full, a path found under root (--root; "" or NULL for none),
 * is the root: that part is opened as given, since the user chose it, and
 * the rest is walked without following links (walk.h). 0 for no root, for
 * "/", or for a root that path_join collapsed out of full: then all of
 * full is walked, which is only stricter. */
static size_t root_len_in(const char *full, const char *root)
{
    if (!root || !*root)
        return 0;
    char *r = path_join(root, "."); /* the root as path_join writes it */
    size_t n = strlen(r);
    bool in = !(n == 1 && r[0] == '/') && strncmp(full, r, n) == 0 && full[n] == '/';
    xfree(r);
    return in ? n : 0;
}

/* full, a path found under root, as the root's processes see it: the
 * root taken off the front (root_len_in). A root that path_join collapsed
 * to "." (--root . or a/..) leaves full relative, from the working
 * directory, which is the root: "/" goes in front. */
static char *seen_inside(const char *full, const char *root)
{
    if (!root || !*root || full[0] == '/')
        return xstrdup(full + root_len_in(full, root));
    return path_join("/", full);
}

/* path under --root, and in *root_len how much of it is the root. path
 * is one of nccl-init's own (/etc/environment, /run/nccl-init/...):
 * absolute, clean, without "..". path_join then puts the root, as it
 * writes it, in front of it whole, so the root is what comes before;
 * where the root collapses to "/" or to nothing relative ("."), that is 0,
 * as root_len_in() says, without a second path_join for each path. */
static char *rooted(const struct sink_options *o, const char *path, size_t *root_len)
{
    char *p = o->root ? path_join(o->root, path) : xstrdup(path);
    size_t lp = strlen(p), lq = strlen(path);
    *root_len = lp > lq ? lp - lq : 0;
    return p;
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
               err == ELOOP ? "refusing to write through a symlink" : strerror(err));
    log_warn("sink %s: %s: %s; skipped", sink, path, why.data);
    result(r, sink, path, "failed")->reason = why.data;
    r->failures++;
}

/* One warning for a target that could not be read or written: a refusal
 * names what was refused and why, anything else the step and the error. */
static void target_failed(struct sink_report *r, const char *sink, const struct target *t, int e)
{
    if (t->why.kind == REFUSED_NOTHING) {
        failed(r, sink, t->path, t->step, -e);
        return;
    }
    struct buf why = { 0 };
    refusal_text(&why, t->path, &t->why);
    log_warn("sink %s: %s: %s; skipped", sink, t->path, why.data);
    result(r, sink, t->path, "failed")->reason = why.data;
    r->failures++;
}

/* Opens path's directory for a sink (target_open), with the one warning
 * when it cannot be reached. */
static bool open_sink(struct sink_report *r, const char *sink, struct target *t, const char *path,
                      size_t root_len)
{
    int e = target_open(t, path, root_len);
    if (e < 0)
        target_failed(r, sink, t, e);
    return e == 0;
}

/* open_sink for remove: a directory that is not there holds no block, so
 * there is nothing to take out (a root without etc/): a debug line. */
static bool open_sink_to_remove(struct sink_report *r, const char *sink, struct target *t,
                                const char *path, size_t root_len)
{
    int e = target_open(t, path, root_len);
    if (e == -ENOENT && t->why.kind == REFUSED_NOTHING)
        log_debug("sink %s: %s: no such directory: nothing to remove", sink, path);
    else if (e < 0)
        target_failed(r, sink, t, e);
    return e == 0;
}

/* What splice_write did: atomic_write's 0 and 1, and 2 for a file deleted.
 * On remove, "written" is the file written without its block. */
#define OUTCOME(e) ((e) == 2 ? "deleted" : (e) ? "unchanged" : "written")

/* Deletes t's file (flags: unlinkat's): 2 (OUTCOME), or -errno. */
static int unlink_target(struct target *t, int flags)
{
    t->step = "unlink";
    return unlinkat(t->dfd, t->name, flags) < 0 ? -errno : 2;
}

/* out (a file with its block at [b, e), body the block's lines) with the
 * block moved to where pam_env reads it: taken out, then put back at the
 * end, or, when pam_env stops before the end (pam_env_scan), at the start
 * of the line where it stops. Either way pam_env reads the operator's
 * lines before that line, then the block, as it would with the block
 * last; the lines from there on it never reads, with or without the block.
 * Taken out exactly, every byte outside [b, e) kept: the NEWLINE note's
 * byte before the block may be an operator's by now (a line put in before
 * the block), and a start never changes a byte outside its block. The
 * note then goes: the byte before the block's new place is not known to
 * be nccl-init's, and a remove keeps it. A MADE note stays. */
static void pam_env_move(struct buf *out, size_t b, size_t e, const char *body)
{
    const char *nl = memchr(out->data + b, '\n', out->len - b);
    size_t note = nl ? (size_t)(nl - out->data) + 1 : out->len;
    bool made = out->len - note > strlen(BLOCK_MADE) &&
                memcmp(out->data + note, BLOCK_MADE "\n", strlen(BLOCK_MADE) + 1) == 0;
    struct buf rest = { 0 }, moved = { 0 };
    buf_add(&rest, out->data, b);
    buf_add(&rest, out->data + e, out->len - e);
    const char *r = rest.data ? rest.data : "";
    struct pam_env_stop st;
    /* Something outside the block stops pam_env: never BLOCK_ALONE. */
    if (pam_env_scan(r, rest.len, SIZE_MAX, &st))
        block_splice(&moved, r, rest.len, body, false, made);
    else
        block_insert(&moved, r, rest.len, body, st.at, made);
    buf_free(&rest);
    buf_free(out);
    *out = moved;
}

/* The etc-environment sink's block goes where pam_env reads it: out is
 * the file with the block spliced in; moved (pam_env_move) when pam_env
 * would stop before it, or join it to a line ending in '\'. A line that
 * stops pam_env is said in one warning each start, and returned as the
 * result's note (NULL when pam_env reads the whole file). */
static char *pam_env_place(struct buf *out, const char *path, const char *body)
{
    size_t b, e;
    struct pam_env_stop st;
    if (!block_find(out->data, out->len, &b, &e))
        return NULL;
    bool all = pam_env_scan(out->data, out->len, b, &st);
    bool move = st.joined || st.at < e;
    if (move) {
        pam_env_move(out, b, e, body);
        all = pam_env_scan(out->data, out->len, SIZE_MAX, &st);
    }
    if (all)
        return NULL;
    log_warn("sink etc-environment: %s:%u: %s (%zu bytes): pam_env reads no line from there on; "
             "the nccl-init block %s before it",
             path, st.line, st.why, st.len, move ? "put" : "is");
    struct buf note = { 0 };
    buf_printf(&note, "pam_env stops at line %u (%s); the block is before it", st.line, st.why);
    return note.data;
}

/* A block splice_write does not touch: one warning, a failed result. */
static void left_alone(struct sink_report *r, const char *sink, const char *path, const char *why,
                       const char *reason)
{
    log_warn("sink %s: %s: %s", sink, path, why);
    result(r, sink, path, "failed")->reason = xstrdup(reason);
    r->failures++;
}

/* remove: is t's file still owned as nccl-init created it (atomic.h: the
 * writer's uid and gid, 0644, one link)? Else someone took it over
 * (chown, chmod, or another user's file in a sticky directory that
 * NCCL_CONF_FILE names): it is kept, without its block. */
static bool as_created(struct target *t, const char *sink)
{
    struct stat st;
    t->step = "check target";
    if (fstatat(t->dfd, t->name, &st, AT_SYMLINK_NOFOLLOW) < 0)
        return false;
    bool ours = S_ISREG(st.st_mode) && st.st_uid == geteuid() && st.st_gid == getegid() &&
                (st.st_mode & 07777) == 0644 && st.st_nlink == 1;
    if (!ours)
        log_info("sink %s: %s: nccl-init created it, but it is now %lu:%lu, mode %04o, "
                 "%lu link(s), not %lu:%lu, 0644, one link: the block taken out, the file kept",
                 sink, t->path, (unsigned long)st.st_uid, (unsigned long)st.st_gid,
                 (unsigned)(st.st_mode & 07777), (unsigned long)st.st_nlink,
                 (unsigned long)geteuid(), (unsigned long)getegid());
    return ours;
}

/* Replaces the managed block of the file t (open) with body, atomically;
 * with body NULL (remove) takes it out, and deletes the file when it is
 * exactly what nccl-init created (block_splice's BLOCK_ALONE, owned as
 * created); a made file whose block someone edited is left as it is.
 * old is the file as the caller already read it (rd: what target_read
 * returned; freed here), or NULL to read it now. A file that already
 * holds the block is left alone: no second read, no write, no fsync on a
 * restart. place, when not NULL, may move a new block to where the
 * file's reader reaches it (pam_env_place). Returns the result (NULL on
 * failure). */
static struct sink_result *splice_write(struct sink_report *r, const char *sink, struct target *t,
                                        const char *body, bool at_top, char *old, size_t oldlen,
                                        int rd)
{
    const char *path = t->path;
    int e = old ? rd : target_read(t, &old, &oldlen);
    if (e < 0) {
        target_failed(r, sink, t, e);
        return NULL;
    }
    struct buf out = { 0 };
    int k = block_splice(&out, old, oldlen, body, at_top, e == 1);
    char *note = NULL;
    if (k >= 0 && body && strcmp(sink, "etc-environment") == 0)
        note = pam_env_place(&out, path, body);
    if (k < 0 || k == BLOCK_EDITED) {
        xfree(old);
        buf_free(&out);
        if (k < 0)
            left_alone(r, sink, path, "its nccl-init block is damaged (a BEGIN without an END, "
                       "or two blocks); skipped", "damaged block");
        else
            left_alone(r, sink, path, "nccl-init created it, but the lines in its block are not "
                       "the ones it wrote: they may be yours; left as it is", "block edited");
        return NULL;
    }
    if (k == BLOCK_ALONE && as_created(t, sink)) {
        e = unlink_target(t, 0);
    } else if (!k || (out.len == oldlen && (oldlen == 0 || memcmp(out.data, old, oldlen) == 0))) {
        e = 1; /* no block to take out, or the block as it is */
    } else {
        e = atomic_write(t, out.data ? out.data : "", out.len);
    }
    xfree(old);
    buf_free(&out);
    if (e < 0) {
        xfree(note);
        target_failed(r, sink, t, e);
        return NULL;
    }
    const char *outcome = OUTCOME(e);
    log_msg(body || e == 1 ? LOG_DEBUG : LOG_INFO, "sink %s: %s %s", sink, path, outcome);
    struct sink_result *x = result(r, sink, path, outcome);
    x->reason = note;
    return x;
}

/* The interpreter to byte-compile with, opened (O_PATH, no link at it)
 * when it is trusted as a sink's file is: reached from / without a link,
 * every directory root's (or ours) and writable by no one else unless
 * sticky (walk.h), the file itself regular, root's or ours, writable by
 * neither group nor others. Whoever could change it, or a directory on its
 * path, would have it run as nccl-init's user (root). -1 after one
 * warning: src is then compiled by each start that can write __pycache__. */
static int trusted_binary(const struct python_home *h, const char *src)
{
    const char *name;
    struct refusal why = { 0 };
    struct buf w = { 0 };
    struct stat st;
    int fd = -1, dfd = walk_parent(h->binary, 0, &name, &why), err = -dfd;
    if (dfd >= 0) {
        fd = openat(dfd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
        err = errno;
        walk_release(dfd);
    }
    bool ok = fd >= 0 && fstat(fd, &st) == 0;
    if (ok && !S_ISREG(st.st_mode))
        buf_str(&w, "not a regular file");
    else if (ok && st.st_uid != 0 && st.st_uid != geteuid())
        buf_printf(&w, "owned by uid %lu, neither root nor nccl-init's %lu",
                   (unsigned long)st.st_uid, (unsigned long)geteuid());
    else if (ok && (st.st_mode & 022))
        buf_printf(&w, "writable by group or others (mode %04o)", (unsigned)(st.st_mode & 07777));
    else if (ok && !(st.st_mode & 0111))
        buf_printf(&w, "not executable (mode %04o)", (unsigned)(st.st_mode & 07777));
    else if (ok)
        return fd;
    else if (why.kind != REFUSED_NOTHING)
        refusal_text(&w, h->binary, &why);
    else
        buf_str(&w, strerror(err));
    log_warn("sink python: %s: not byte-compiled: interpreter %s: %s; each start compiles it "
             "where it can", src, h->binary, w.data);
    buf_free(&w);
    if (fd >= 0)
        close(fd);
    return -1;
}

/* Starts the file fd (the one that was checked, not whatever its path
 * names now) with argv and only PATH in its environment. vfork as in
 * supervise.c: the child only execs what was built before. */
static pid_t spawn_fd(int fd, char **argv)
{
    static char *envp[] = { "PATH=/usr/bin:/bin", NULL };
    pid_t pid = vfork();
    if (pid == 0) {
        fexecve(fd, argv, envp);
        _exit(127);
    }
    return pid;
}

/* Without a cached .pyc every start by a user who cannot write __pycache__
 * compiles the hook again (about 3 ms); compile it once, now. src is the
 * file written (Debian's conffile rather than the stdlib's link to it), pyc
 * where the stdlib's import looks for it. written: the hook was just
 * written, and a failure is a warning; else (a current hook without its
 * .pyc, a read-only image) only a debug line: the hook works, each start
 * compiles it. Under --root never: the interpreter is the image's, whose
 * code is not to run on the host (a .pth of its site-packages would run
 * as root here). Run with -I -S: no environment, no user site, and no
 * site at all, so no .pth; py_compile needs only the stdlib. True when
 * the .pyc was written. */
static bool byte_compile(const struct python_home *h, const char *src, const char *pyc,
                         bool written)
{
    if (*h->root) {
        log_debug("python: %s: not byte-compiled under --root: the root's interpreter is not "
                  "run here; Python compiles it at a start that can write __pycache__", src);
        return false;
    }
    if (!h->binary) {
        log_debug("python: no interpreter next to %s to byte-compile with", h->stdlib);
        return false;
    }
    /* py_compile makes and writes __pycache__ through a link. */
    struct stat st;
    char *dir = xstrndup(pyc, (size_t)(strrchr(pyc, '/') - pyc));
    bool link = lstat(dir, &st) == 0 && S_ISLNK(st.st_mode);
    if (link)
        log_debug("python: %s is a link; not byte-compiled", dir);
    xfree(dir);
    int fd = link ? -1 : trusted_binary(h, src);
    if (fd < 0)
        return false;
    char *argv[] = { h->binary, "-I", "-S", "-c",
                     "import py_compile,sys\npy_compile.compile(*sys.argv[1:],doraise=True)",
                     (char *)src, (char *)pyc, NULL };
    pid_t pid = spawn_fd(fd, argv);
    close(fd);
    int ws = 0;
    if (pid >= 0 && waitpid(pid, &ws, 0) >= 0 && WIFEXITED(ws) && WEXITSTATUS(ws) == 0)
        return true;
    log_msg(written ? LOG_WARN : LOG_DEBUG,
            "sink python: %s: byte-compiling with %s failed; every start will compile it", src,
            h->binary);
    return false;
}

/* Opens the file the hook goes into: the stdlib's sitecustomize.py, or
 * the conffile it links to on Debian. The stdlib directory is walked even
 * then, and the link read in the directory that was checked. *conffile:
 * the conffile's path (t->path), to free after t. False after one warning. */
static bool open_hook(struct sink_report *r, const struct python_home *h, const char *hook,
                      struct target *t, char **conffile)
{
    *conffile = NULL;
    if (!open_sink(r, "python", t, hook, root_len_in(hook, h->root)))
        return false;
    char link[512];
    ssize_t n = readlinkat(t->dfd, t->name, link, sizeof link - 1);
    if (n <= 0)
        return true;
    target_close(t);
    /* Debian links the stdlib's sitecustomize.py to the conffile
     * /etc/python3.X/sitecustomize.py: keep the link, manage a block in the
     * conffile, reached by a walk of its own. Any other link is refused. */
    link[n] = '\0';
    struct buf want = { 0 };
    buf_printf(&want, "/etc/python%s/sitecustomize.py", h->version);
    bool debian = strcmp(link, want.data) == 0;
    buf_free(&want);
    if (!debian) {
        failed(r, "python", hook, NULL, ELOOP);
        return false;
    }
    *conffile = path_join(*h->root ? h->root : "/", link);
    if (open_sink(r, "python", t, *conffile, root_len_in(*conffile, h->root)))
        return true;
    xfree(*conffile);
    *conffile = NULL;
    return false;
}

/* remove: deletes path (flags: unlinkat's), reached as a sink's file is;
 * one that is not there is nothing to delete, and a directory that cannot
 * be (not empty, a mount point) is left as it is. */
static void remove_file(struct sink_report *r, const char *sink, const char *path,
                        size_t root_len, int flags)
{
    struct target t;
    int e = target_open(&t, path, root_len);
    if (e == 0)
        e = unlink_target(&t, flags);
    target_close(&t);
    if (e == 2)
        log_info("sink %s: %s %s", sink, path, OUTCOME(2));
    else if (e != -ENOENT && !flags)
        target_failed(r, sink, &t, e);
}

/* Deletes the .pyc of a hook just written and not compiled again: it is
 * the old file's. One that cannot be reached (a __pycache__ that is a
 * link) is a debug line: Python takes a .pyc only for a source of its
 * mtime and size, so this is care, not a failure of the sink. */
static void drop_stale_pyc(const char *pyc, size_t root_len)
{
    struct target t;
    int e = target_open(&t, pyc, root_len);
    if (e == 0)
        e = unlink_target(&t, 0);
    target_close(&t);
    if (e == 2)
        log_info("sink python: %s %s", pyc, OUTCOME(2));
    else if (e != -ENOENT)
        log_debug("sink python: %s: the old file's .pyc not deleted: %s", pyc,
                  t.why.kind != REFUSED_NOTHING ? "its directory was refused" : strerror(-e));
}

/* Puts the hook into one stdlib (put), or takes it out. The hook is the
 * same for every profile (format_python): a stdlib that has it as it would
 * be written, a baked image's, is only read, so a read-only root gives no
 * warning, and a profile change rewrites no sitecustomize. */
static void write_python(struct sink_report *r, const struct python_home *h, bool put,
                         const char *record)
{
    char *hook = path_join(h->stdlib, "sitecustomize.py"), *conffile;
    struct target t;
    if (!open_hook(r, h, hook, &t, &conffile)) {
        xfree(hook);
        return;
    }
    /* Chain only when this hook is what shadows another sitecustomize: if
     * the stdlib already had its own, the other one was shadowed before.
     * Which one it shadows is the interpreter's to say, at each start (a
     * venv's sys.path is not its base's); the one this stdlib's own
     * interpreter finds now is the note. */
    char *old = NULL, *chain = NULL;
    size_t oldlen = 0;
    int rd = target_read(&t, &old, &oldlen);
    bool alone = put && rd >= 0 && block_only(old, oldlen);
    if (alone)
        chain = python_shadowed(h); /* as the root's processes see it */
    struct buf body = { 0 };
    if (put)
        format_python(&body, NULL, alone, record, sink_skip_warn);
    struct sink_result *x = splice_write(r, "python", &t, body.data, true, old, oldlen, rd);
    target_close(&t);
    if (x && chain) {
        struct buf note = { 0 };
        buf_printf(&note, "chains to %s", chain);
        x->reason = note.data;
    }
    struct buf pyc = { 0 };
    buf_printf(&pyc, "%s/__pycache__/sitecustomize.cpython-%.*s%s.pyc", h->stdlib, 1, h->version,
               h->version + 2);
    /* Compiled when written or missing. On remove, compiled again from the
     * file without its block, or deleted with the file (its root_len is the
     * hook's: both are under h->stdlib). A file written but not compiled
     * (under --root, an interpreter not trusted) loses the .pyc it had: a
     * file rewritten within the same second at the same size would pass
     * the old one's check (mtime and size) and run the old code. */
    bool written = x && strcmp(x->outcome, OUTCOME(0)) == 0;
    const char *src = conffile ? conffile : hook;
    if (x && strcmp(x->outcome, OUTCOME(2)) == 0)
        remove_file(r, "python", pyc.data, t.root_len, 0);
    else if ((written || (x && put && !*h->root && access(pyc.data, F_OK) != 0)) &&
             !byte_compile(h, src, pyc.data, written) && written)
        drop_stale_pyc(pyc.data, t.root_len);
    buf_free(&pyc);
    buf_free(&body);
    xfree(chain);
    xfree(conffile);
    xfree(hook);
}

/* The python sink: the hook into (put) or out of every stdlib python_find
 * finds; path is the PATH it looks along. */
static void python_sink(struct sink_report *r, const struct sink_options *o, bool put,
                        const char *path)
{
    struct python_homes homes = { 0 };
    python_find(&homes, o->root, o->interpreters, o->ninterpreters, path);
    if (homes.n == 0)
        log_info("sink python: no Python interpreter found");
    /* The record's path as the hook's processes see it: under --root
     * those run inside the root, where it is /run/nccl-init/profile.env,
     * as the env plugin opens it. */
    for (size_t i = 0; i < homes.n; i++)
        write_python(r, &homes.v[i], put, RECORD_ENV);
}

void sinks_install_hooks(struct sink_report *r, const struct sink_options *o)
{
    python_sink(r, o, true, getenv("PATH"));
}

/* The nccl-conf sink's file: NCCL reads $NCCL_CONF_FILE, or ~/.nccl.conf
 * (home from getpwuid) when that is unset, then /etc/nccl.conf every
 * time, each line with setenv(k, v, 0): writing to $NCCL_CONF_FILE when it
 * is set puts the block ahead of /etc/nccl.conf. remove goes by its own
 * environment's NCCL_CONF_FILE the same way (s NULL). Without --root it is
 * used as given, walked whole (root_len 0; a relative one from the working
 * directory). Under --root it names a file as the root's processes see it,
 * like every path there (written with the root in front or not): the
 * root's file, reached from the root. One that could climb out of it (a
 * "..", or not absolute and clean) gives NULL: nothing outside the root is
 * written. */
static char *conf_path(const char *root, const struct envset *s, size_t *root_len, bool *from_env)
{
    const char *cf = s ? envset_get(s, "NCCL_CONF_FILE") : getenv("NCCL_CONF_FILE");
    *from_env = cf && *cf;
    *root_len = 0;
    struct sink_options o = { .root = root };
    if (!*from_env)
        return rooted(&o, ETC_NCCL_CONF, root_len);
    if (!root || !*root)
        return xstrdup(cf);
    char *inside = state_path_inside(root, cf);
    char *p = inside ? rooted(&o, inside, root_len) : NULL;
    xfree(inside);
    return p;
}

/* text: the file as the sink already read it (len bytes), or NULL. */
static void conf_block(struct buf *body, const char *root, const struct envset *s,
                       const char *path, bool from_env, const char *text, size_t len,
                       struct env_plugin *p)
{
    struct env_plugin_where w = { NULL, root, path, from_env, text, len };
    env_plugin_find(p, &w, s);
    format_nccl_conf(body, s, p->name, sink_skip_warn);
}

void sink_nccl_conf_block(struct buf *body, const char *root, const struct envset *s,
                          struct env_plugin *p)
{
    size_t rl;
    bool from_env;
    char *path = conf_path(root, s, &rl, &from_env);
    if (!path) /* render: the block as it would be, with no file looked at */
        path = xstrdup(ETC_NCCL_CONF);
    conf_block(body, root, s, path, from_env, NULL, 0, p);
    xfree(path);
}

/* A record its readers would refuse: one warning, a failed result,
 * nothing written. Takes why. */
static void record_refused(struct sink_report *r, char *why)
{
    log_warn("sink record: %s: %s; skipped", r->record_path, why);
    result(r, "record", r->record_path, "failed")->reason = why;
    r->failures++;
    r->record_failed = r->record_refused = true;
}

/* Over its readers' bounds (format_env_file). */
static void record_too_large(struct sink_report *r)
{
    const struct buf *b = &r->record_text;
    size_t lines = 0;
    for (size_t i = 0; i < b->len; i++)
        lines += b->data[i] == '\n';
    struct buf why = { 0 };
    buf_printf(&why, "%zu lines, %zu bytes: more than its readers take (%d lines, %d bytes)",
               lines, b->len, RECORD_LINES_MAX, RECORD_SIZE_MAX);
    record_refused(r, why.data);
}

static void record_env(struct sink_report *r, const struct sink_options *o, bool enforce);

/* The file t names, as this start has just left it, kept for
 * sinks_retract: its directory (a descriptor of its own) and identity. */
static void keep_for_retract(struct sink_retract_file *f, const struct target *t)
{
    if (strlen(t->name) >= sizeof f->name ||
        fstatat(t->dfd, t->name, &f->st, AT_SYMLINK_NOFOLLOW) < 0 ||
        (f->dfd = fcntl(t->dfd, F_DUPFD_CLOEXEC, 3)) < 0)
        return;
    strcpy(f->name, t->name);
    f->path = xstrdup(t->path);
    f->kept = true;
}

/* Whether f's file is still the one this start left. */
static bool unchanged_since(const struct sink_retract_file *f)
{
    struct stat st;
    return fstatat(f->dfd, f->name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode) &&
           st.st_dev == f->st.st_dev && st.st_ino == f->st.st_ino &&
           st.st_size == f->st.st_size && st.st_mtim.tv_sec == f->st.st_mtim.tv_sec &&
           st.st_mtim.tv_nsec == f->st.st_mtim.tv_nsec;
}

void sinks_retract(struct sink_retract *x)
{
    struct sink_retract_file *f = &x->record;
    if (f->kept) {
        if (!unchanged_since(f))
            log_info("sink record: %s: not taken back: it changed since this start wrote it",
                     f->path);
        else if (unlinkat(f->dfd, f->name, 0) < 0)
            log_warn("sink record: %s: cannot take it back: %s", f->path, strerror(errno));
        else
            log_info("sink record: %s: taken back: the --enforce run has ended", f->path);
    }
    f = &x->conf;
    if (f->kept) {
        struct target t = { .path = f->path, .dfd = f->dfd, .name = f->name };
        int e = unchanged_since(f) ? atomic_write(&t, f->text.data ? f->text.data : "",
                                                  f->text.len)
                                   : -ESTALE;
        if (e == -ESTALE)
            log_info("sink nccl-conf: %s: its NCCL_ENV_PLUGIN line not taken back: the file "
                     "changed since this start wrote it", f->path);
        else if (e < 0)
            log_warn("sink nccl-conf: %s: cannot take its NCCL_ENV_PLUGIN line back: %s%s%s",
                     f->path, t.step ? t.step : "", t.step ? ": " : "", strerror(-e));
        else
            log_info("sink nccl-conf: %s: NCCL_ENV_PLUGIN line taken back: the --enforce run "
                     "has ended", f->path);
    }
}

void sink_retract_free(struct sink_retract *x)
{
    struct sink_retract_file *f[] = { &x->record, &x->conf };
    for (size_t i = 0; i < ARRAY_SIZE(f); i++) {
        if (f[i]->kept)
            close(f[i]->dfd);
        xfree(f[i]->path);
        buf_free(&f[i]->text);
        memset(f[i], 0, sizeof *f[i]);
    }
}

/* Skips nothing twice: the plugin-less nccl.conf block for sinks_retract
 * is rendered after the block itself, whose skips were said. */
static void skip_quietly(const char *sink, const char *key, const char *why)
{
    (void)sink, (void)key, (void)why;
}

void sinks_write(struct sink_report *r, const struct sink_options *o, const struct envset *s)
{
    /* The two files with a block, each rendered once (its warnings said
     * once), then compared with the file and written only when it
     * differs. */
    struct {
        const char *sink;
        char *path;
        size_t root_len;
        bool conf, from_env;
        struct buf body;
    } c[2] = { { 0 } };
    size_t n = 0;
    bool stop = false;
    if (o->mask & SINK_ETC_ENVIRONMENT) {
        c[n].sink = "etc-environment";
        c[n].path = rooted(o, ETC_ENVIRONMENT, &c[n].root_len);
        n++;
    }
    if (o->mask & SINK_NCCL_CONF) {
        c[n].sink = "nccl-conf";
        c[n].path = conf_path(o->root, s, &c[n].root_len, &c[n].from_env);
        if (!c[n].path) {
            const char *cf = s ? envset_get(s, "NCCL_CONF_FILE") : getenv("NCCL_CONF_FILE");
            log_warn("sink nccl-conf: NCCL_CONF_FILE=%s: under --root %s it must be an absolute "
                     "path without '.', '..' or empty parts: it could name a file outside the "
                     "root; skipped", cf, o->root);
            result(r, "nccl-conf", cf, "failed")->reason =
                xstrdup("NCCL_CONF_FILE is not a clean absolute path inside --root");
            r->failures++;
        } else {
            if (c[n].from_env && s)
                log_info("NCCL_CONF_FILE is set: writing the nccl.conf block to %s", c[n].path);
            c[n++].conf = true;
        }
    }
    /* The record first: in a pod with a read-only root it is the one file
     * that carries the profile (to the baked hook and the env plugin), and
     * it does not wait on the /etc files. */
    if (s && (o->mask & SINK_RECORD)) {
        r->record_path = rooted(o, RECORD_ENV, &r->record_root_len);
        /* The record names this process, which runs as long as the
         * server does, so that its readers take it only while it runs. */
        /* Its pid as its PID namespace numbers it, where its readers run;
         * its start time from /proc/self, which is this process even when
         * /proc belongs to another namespace (unshare --pid without
         * --mount-proc): there the readers find another process under
         * that pid, and refuse the record. */
        struct proc_stat self;
        if (!proc_stat_read(0, &self)) {
            record_refused(r, xstrdup("cannot read this process's /proc/PID/stat, which the "
                                      "record must name (its readers check its writer runs)"));
            stop = o->strict;
        } else {
            struct record_writer w = { (long)getpid(), self.start };
            if (format_env_file(&r->record_text, s, &w, sink_skip_warn) < 0) {
                record_too_large(r);
                stop = o->strict; /* then nothing at all is written */
            }
        }
        if (!stop)
            record_env(r, o, s->enforce);
    }
    for (size_t i = 0; i < n && !stop; i++) {
        /* Each file read once: its block is compared with what it would
         * be, and nccl.conf's lines outside the block are what the env
         * plugin's lookup looks through. */
        struct env_plugin p = { 0 };
        struct target t;
        bool open = s ? open_sink(r, c[i].sink, &t, c[i].path, c[i].root_len)
                      : open_sink_to_remove(r, c[i].sink, &t, c[i].path, c[i].root_len);
        char *old = NULL;
        size_t oldlen = 0;
        int rd = open ? target_read(&t, &old, &oldlen) : -1;
        if (s && c[i].conf)
            conf_block(&c[i].body, o->root, s, c[i].path, c[i].from_env,
                       rd >= 0 ? (old ? old : "") : NULL, oldlen, &p);
        else if (s)
            format_etc_environment(&c[i].body, s, sink_skip_warn);
        /* An --enforce start's block without the plugin's line, for
         * sinks_retract: the file as it is to be when the run has ended. */
        struct buf retract = { 0 };
        bool take_back = open && rd >= 0 && s && c[i].conf && s->enforce && p.name;
        if (take_back) {
            struct buf body = { 0 };
            format_nccl_conf(&body, s, NULL, skip_quietly);
            take_back = block_splice(&retract, old, oldlen, body.data ? body.data : "", false,
                                     rd == 1) >= 0;
            buf_free(&body);
        }
        struct sink_result *done = NULL;
        if (open)
            done = splice_write(r, c[i].sink, &t, s ? c[i].body.data ? c[i].body.data : "" : NULL,
                                false, old, oldlen, rd);
        if (take_back && done) {
            keep_for_retract(&r->retract.conf, &t);
            r->retract.conf.text = retract;
        } else {
            buf_free(&retract);
        }
        target_close(&t);
        if (p.outcome)
            result(r, "env-plugin", p.path ? p.path : "", p.outcome)->reason = xstrdup(p.note);
        env_plugin_free(&p);
        buf_free(&c[i].body);
    }
    for (size_t i = 0; i < ARRAY_SIZE(c); i++)
        xfree(c[i].path);
    if (!stop && (o->mask & SINK_PYTHON))
        python_sink(r, o, s != NULL, s ? envset_get(s, "PATH") : getenv("PATH"));
}

static void remove_record_file(struct sink_report *r, const char *path, size_t root_len);
static void state_read(struct state_paths *sp, const struct sink_options *o);
static void remove_state_paths(struct sink_report *r, const struct sink_options *o,
                               const struct state_paths *sp);

void sinks_remove(struct sink_report *r, const struct sink_options *o)
{
    /* Under --root, state.json names the hooks of interpreters the search
     * does not look at: read before the record goes. */
    struct state_paths sp = { 0 };
    if (o->root)
        state_read(&sp, o);
    sinks_write(r, o, NULL);
    remove_state_paths(r, o, &sp);
    state_paths_free(&sp);
    static const char *const record[] = { RECORD_ENV, RECORD_STATE, RECORD_DIR };
    for (size_t i = 0; i < ARRAY_SIZE(record); i++) {
        size_t rl;
        char *p = rooted(o, record[i], &rl);
        /* The record's files as the record sink reaches them, in an
         * emptyDir (0777) too; the directory itself as any other. */
        if (i < ARRAY_SIZE(record) - 1)
            remove_record_file(r, p, rl);
        else
            remove_file(r, "record", p, rl, AT_REMOVEDIR);
        xfree(p);
    }
}

/* The root's state.json, read as the readers read the record (doc/sinks.md,
 * "The readers' trust rule"): reached without a link, a regular file with
 * one link, root's or ours, writable by no one else. Anything else, or
 * none, gives no paths (a debug line). */
static void state_read(struct state_paths *sp, const struct sink_options *o)
{
    size_t rl;
    char *path = rooted(o, RECORD_STATE, &rl), *text = NULL;
    struct target t;
    int fd = target_open_flags(&t, path, rl, WALK_SHARED_DIR) == 0
                 ? openat(t.dfd, t.name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY | O_NONBLOCK)
                 : -1;
    target_close(&t);
    struct stat st;
    size_t len;
    bool ok = fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_nlink == 1 &&
              (st.st_uid == 0 || st.st_uid == geteuid()) && !(st.st_mode & 022);
    if (ok)
        ok = read_fd(fd, st.st_size, 1u << 20, &text, &len) == 0; /* closes fd */
    else if (fd >= 0)
        close(fd);
    if (ok)
        state_paths_parse(sp, text);
    else
        log_debug("sink record: %s: not read (none, or not trusted)", path);
    xfree(text);
    xfree(path);
}

/* Takes the block out of one file state.json names, inside the root:
 * a stdlib's hook as the python sink does (its .pyc and Debian's
 * conffile link too), any other file (a conffile, $NCCL_CONF_FILE under
 * the root) where it is. A file without the block is only read. */
static void remove_state_path(struct sink_report *r, const struct sink_options *o,
                              const struct state_path *p, const char *inside)
{
    struct python_homes homes = { 0 };
    if (strcmp(p->sink, "python") == 0 && python_find_hook(&homes, o->root, inside)) {
        write_python(r, &homes.v[0], false, NULL);
        return;
    }
    const char *base = strrchr(inside, '/') + 1;
    if (strcmp(p->sink, "python") == 0 ? strcmp(base, "sitecustomize.py") != 0
        : strcmp(p->sink, "etc-environment") == 0 && strcmp(inside, ETC_ENVIRONMENT) != 0) {
        left_alone(r, p->sink, p->path, "named in state.json, not a file of that sink's; left "
                   "alone", "not a file of that sink's");
        return;
    }
    size_t rl;
    char *path = rooted(o, inside, &rl);
    struct target t;
    if (open_sink(r, p->sink, &t, path, rl))
        splice_write(r, p->sink, &t, NULL, strcmp(p->sink, "python") == 0, NULL, 0, 0);
    target_close(&t);
    xfree(path);
}

/* Whether this remove already has a result for path (the search's), a
 * path as this remove wrote it: the root in front. */
static bool reported(const struct sink_report *r, const char *path)
{
    bool seen = false;
    for (size_t i = 0; i < r->n && !seen; i++)
        seen = strcmp(r->v[i].path, path) == 0;
    return seen;
}

/* remove --root: each file state.json names that the search did not
 * already find (most are found: those are not looked at twice; an older
 * nccl-init wrote the root's paths under --root . as they were found,
 * relative). A path that would lead out of the root is left alone: one
 * warning, and remove's exit 1, since a block may be left there. */
static void remove_state_paths(struct sink_report *r, const struct sink_options *o,
                               const struct state_paths *sp)
{
    for (size_t i = 0; i < sp->n; i++) {
        const struct state_path *p = &sp->v[i];
        char *inside = state_path_inside(o->root, p->path), *path = NULL;
        size_t rl;
        if (inside)
            path = rooted(o, inside, &rl);
        if (inside && !reported(r, path)) {
            remove_state_path(r, o, p, inside);
        } else if (!inside && !reported(r, p->path)) {
            struct buf why = { 0 };
            buf_printf(&why, "named in state.json, not a path inside --root %s; left alone",
                       o->root);
            left_alone(r, p->sink, p->path, why.data, "not a path inside --root");
            buf_free(&why);
        }
        xfree(path);
        xfree(inside);
    }
}

/* Makes /run/nccl-init, 0755 whatever the umask (verify runs as any
 * user), in a parent reached without following a link. */
static bool make_record_dir(struct sink_report *r, const char *dir, size_t root_len)
{
    struct target d;
    if (!open_sink(r, "record", &d, dir, root_len))
        return false;
    int e = target_mkdir(&d, 0755);
    if (e < 0)
        target_failed(r, "record", &d, e);
    target_close(&d);
    return e == 0;
}

/* The record's directory may be an emptyDir, which Kubernetes makes 0777
 * and not sticky (walk.h, WALK_SHARED_DIR): its two files, and only they,
 * are reached through such a directory, and written as the writer's own
 * (atomic.h, own_file). */
static int open_record_file(struct target *t, const char *path, size_t root_len)
{
    int e = target_open_flags(t, path, root_len, WALK_SHARED_DIR);
    t->no_sync = true; /* under /run, a tmpfs */
    t->own_file = true;
    return e;
}

/* Deletes a previous start's record file (none there: nothing to do). */
static void remove_record_file(struct sink_report *r, const char *path, size_t root_len)
{
    struct target t;
    int e = open_record_file(&t, path, root_len);
    if (e == 0)
        e = unlink_target(&t, 0);
    target_close(&t);
    if (e == 2)
        log_info("sink record: %s %s", path, OUTCOME(2));
    else if (e != -ENOENT)
        target_failed(r, "record", &t, e);
}

static void record_env(struct sink_report *r, const struct sink_options *o, bool enforce)
{
    if (!(o->mask & SINK_RECORD))
        return;
    if (r->record_refused) {
        /* The previous start's record would pass for this one's. */
        static const char *const stale[] = { RECORD_ENV, RECORD_STATE };
        for (size_t i = 0; i < ARRAY_SIZE(stale); i++) {
            size_t rl;
            char *p = rooted(o, stale[i], &rl);
            remove_record_file(r, p, rl);
            xfree(p);
        }
        return;
    }
    const char *path = r->record_path;
    size_t rl = r->record_root_len;
    size_t dir_rl;
    char *dir = rooted(o, RECORD_DIR, &dir_rl);
    struct target t;
    /* The walk to profile.env checks the directory just made or found: a
     * link or someone else's directory at /run/nccl-init stops the record
     * before anything at all is made in it. On a restart it is there: the
     * walk comes first, and the mkdir only when it is missing. */
    int e = open_record_file(&t, path, rl);
    bool ok = e == 0;
    if (e == -ENOENT && make_record_dir(r, dir, dir_rl)) {
        e = open_record_file(&t, path, rl);
        ok = e == 0;
        if (!ok)
            target_failed(r, "record", &t, e);
    } else if (e < 0 && e != -ENOENT) {
        target_failed(r, "record", &t, e);
    }
    xfree(dir);
    if (!ok) {
        r->record_failed = true;
        return;
    }
    /* No directory for the Python hook: it writes nothing, it reads this
     * record at each start and keeps it open (see format_python). A /run/nccl-init/applied left by an
     * older nccl-init, kept across a restart, is left alone and unused. */
    /* The record is nccl-init's own file: written whole, no block. */
    const struct buf *b = &r->record_text;
    e = atomic_write(&t, b->data ? b->data : "", b->len);
    if (e >= 0 && enforce)
        keep_for_retract(&r->retract.record, &t);
    target_close(&t);
    if (e < 0) {
        target_failed(r, "record", &t, e);
        r->record_failed = true;
        return;
    }
    result(r, "record", path, e == 1 ? OUTCOME(1) : OUTCOME(0));
}

/* state.json's text but the child's pid, which goes at *pid_at. Under
 * --root each path is as the root's processes see it (root_len_in):
 * remove --root reads them back inside the root. */
static void state_text(struct buf *b, const struct envset *s, const struct sink_report *r,
                       const char *root, size_t *pid_at)
{
    buf_str(b, "{\n  \"profile\": ");
    json_string(b, s->names);
    buf_str(b, ",\n  \"digest\": \"");
    buf_str(b, s->digest);
    buf_str(b, s->enforce ? "\",\n  \"enforce\": true" : "\",\n  \"enforce\": false");
    buf_str(b, ",\n  \"child_pid\": ");
    *pid_at = b->len;
    buf_str(b, ",\n  \"variables\": [");
    for (size_t i = 0, k = 0; i < s->n; i++)
        if (sink_carries(&s->v[i])) {
            buf_str(b, k++ ? ",\n    " : "\n    ");
            json_var(b, &s->v[i]);
        }
    buf_str(b, "\n  ],\n  \"sinks\": [");
    for (size_t i = 0; i < r->n; i++) {
        buf_str(b, i ? ",\n    {\"sink\": \"" : "\n    {\"sink\": \"");
        buf_str(b, r->v[i].sink);
        buf_str(b, "\", \"path\": ");
        char *inside = seen_inside(r->v[i].path, root);
        json_string(b, inside);
        xfree(inside);
        buf_str(b, ", \"outcome\": \"");
        buf_str(b, r->v[i].outcome);
        buf_str(b, "\"");
        if (r->v[i].reason) {
            buf_str(b, ", \"note\": ");
            json_string(b, r->v[i].reason);
        }
        buf_str(b, "}");
    }
    buf_str(b, "\n  ]\n}\n");
}

/* Room for the pid's digits: a pid_t in decimal. */
#define PID_DIGITS 10

void record_state_prepare(struct record_state *rs, const struct sink_report *r,
                          const struct sink_options *o, const struct envset *s)
{
    memset(rs, 0, sizeof *rs);
    if (!(o->mask & SINK_RECORD) || r->record_failed)
        return; /* the record's directory already gave its one warning */
    rs->path = rooted(o, RECORD_STATE, &rs->root_len);
    state_text(&rs->text, s, r, o->root, &rs->pid_at);
    /* The room the pid takes after the fork, where nothing may allocate. */
    buf_reserve(&rs->text, rs->text.len + PID_DIGITS + 1);
}

void record_state_commit(struct record_state *rs, pid_t child)
{
    if (!rs->path)
        return;
    struct buf *b = &rs->text;
    char digits[PID_DIGITS + 1];
    struct buf d = BUF_FIXED(digits);
    buf_uint(&d, (unsigned long)child);
    memmove(b->data + rs->pid_at + d.len, b->data + rs->pid_at, b->len - rs->pid_at + 1);
    memcpy(b->data + rs->pid_at, digits, d.len);
    b->len += d.len;
    struct target t;
    int e = open_record_file(&t, rs->path, rs->root_len);
    if (e == 0)
        e = atomic_write(&t, b->data, b->len);
    target_close(&t);
    if (e >= 0)
        return;
    /* Logged here rather than through target_failed(), which allocates. */
    char why[512];
    struct buf w = BUF_FIXED(why);
    if (t.why.kind != REFUSED_NOTHING)
        refusal_text(&w, t.path, &t.why);
    else
        buf_printf(&w, "%s: %s", t.step, strerror(-e));
    log_warn("sink record: %s: %s; skipped", rs->path, why);
}

void sink_report_free(struct sink_report *r)
{
    for (size_t i = 0; i < r->n; i++) {
        xfree(r->v[i].path);
        xfree(r->v[i].reason);
    }
    xfree(r->v);
    buf_free(&r->record_text);
    xfree(r->record_path);
    sink_retract_free(&r->retract);
    memset(r, 0, sizeof *r);
}

void record_state_free(struct record_state *rs)
{
    xfree(rs->path);
    buf_free(&rs->text);
    memset(rs, 0, sizeof *rs);
}
