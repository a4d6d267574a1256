#include "sinks/python_find.h"

#include "lib/log.h"
#include "lib/buf.h"
#include "lib/fileio.h"
#include "lib/mem.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Under --root every path of an interpreter is the root's, as the
 * processes inside it see it ("inside"), and is read at root + path
 * ("outside"); without a root (NULL) the two are the same. */
static char *outside(const char *root, const char *inside)
{
    return root ? path_join(root, inside) : xstrdup(inside);
}

/* "python3.11" -> "3.11"; NULL for anything else. */
static const char *version_of(const char *name)
{
    if (strncmp(name, "python3.", 8) != 0 || !name[8])
        return NULL;
    for (const char *p = name + 8; *p; p++)
        if (*p < '0' || *p > '9')
            return NULL;
    return name + 6;
}

/* Links followed before in_root() gives up: Linux's own bound for a path
 * (MAXSYMLINKS). */
#define ROOT_LINKS_MAX 40

/* Drops done's last component ("..": never above the root). */
static void up(struct buf *done)
{
    char *slash = done->len ? strrchr(done->data, '/') : NULL;
    done->len = slash ? (size_t)(slash - done->data) : 0;
    if (done->data)
        done->data[done->len] = '\0';
}

/* path (absolute, inside root) resolved as a process whose root is root
 * resolves it: each component looked at with lstat in the directory
 * already resolved, a link's text put in its place (an absolute one from
 * the root), ".." no higher than the root. So nothing outside root is
 * reached. The path inside the root, with no link and no "..", or NULL
 * when a component is missing or links loop. */
static char *in_root(const char *root, const char *path)
{
    struct buf done = { 0 }, todo = { 0 };
    buf_str(&todo, path);
    size_t at = 0;
    int links = 0;
    bool ok = true;
    while (ok) {
        const char *p = todo.data + at;
        p += strspn(p, "/");
        size_t n = strcspn(p, "/");
        if (!n)
            break;
        at = (size_t)(p - todo.data) + n;
        if (n == 1 && p[0] == '.')
            continue;
        if (n == 2 && p[0] == '.' && p[1] == '.') {
            up(&done);
            continue;
        }
        size_t keep = done.len;
        buf_add(&done, "/", 1);
        buf_add(&done, p, n);
        char *o = outside(root, done.data), link[PATH_MAX];
        struct stat st;
        ssize_t l = 0;
        ok = lstat(o, &st) == 0;
        if (ok && S_ISLNK(st.st_mode)) {
            l = readlink(o, link, sizeof link - 1);
            ok = l > 0 && ++links <= ROOT_LINKS_MAX;
        }
        xfree(o);
        if (!ok || !S_ISLNK(st.st_mode))
            continue;
        link[l] = '\0';
        struct buf next = { 0 };
        buf_str(&next, link);
        buf_str(&next, todo.data + at);
        buf_free(&todo);
        todo = next;
        at = 0;
        done.len = link[0] == '/' ? 0 : keep;
        done.data[done.len] = '\0';
    }
    buf_free(&todo);
    if (!ok) {
        buf_free(&done);
        return NULL;
    }
    if (!done.len)
        buf_str(&done, "/");
    return done.data;
}

/* Follows symlinks at the last component, as /usr/bin/python3 -> python3.11. */
static char *follow(const char *path)
{
    char *cur = xstrdup(path);
    for (int i = 0; i < 8; i++) {
        char link[PATH_MAX];
        ssize_t n = readlink(cur, link, sizeof link - 1);
        if (n <= 0)
            break;
        link[n] = '\0';
        char *next;
        if (link[0] == '/') {
            next = xstrdup(link);
        } else {
            char *dir = xstrndup(cur, (size_t)(strrchr(cur, '/') - cur));
            next = path_join(*dir ? dir : "/", link);
            xfree(dir);
        }
        xfree(cur);
        cur = next;
    }
    return cur;
}

/* path with its links followed: at the last component on /, every
 * component inside the root (NULL there when it leads nowhere). */
static char *resolve(const char *root, const char *path)
{
    return root ? in_root(root, path) : follow(path);
}

/* The interpreter of a stdlib at prefix, to byte-compile with (sinks.c
 * checks it before it runs it); never one under a root: that is the
 * image's code, not to be run on the host. */
static char *binary_of(const char *root, const char *prefix, const char *version)
{
    if (root)
        return NULL;
    struct buf bin = { 0 };
    buf_printf(&bin, "%s/bin/python%s", prefix, version);
    if (access(bin.data, X_OK) == 0)
        return bin.data;
    buf_free(&bin);
    return NULL;
}

/* Is inside, a path of the root's, a regular file or (dir) a directory
 * where its links lead inside the root (lstat there: nothing outside the
 * root is looked at)? Without a root, path as it is, links followed. st:
 * what it is. */
static bool root_is(const char *root, const char *inside, bool dir, struct stat *st)
{
    char *real = root ? in_root(root, inside) : NULL;
    char *o = real ? outside(root, real) : NULL;
    bool ok = root ? o && lstat(o, st) == 0 : stat(inside, st) == 0;
    xfree(real);
    xfree(o);
    return ok && (dir ? S_ISDIR(st->st_mode) : S_ISREG(st->st_mode));
}

/* stdlib is always <prefix>/lib/python3.X (prefix inside the root, its
 * links resolved). True when there is one (os.py), a duplicate too. Under
 * a root lib/python3.X and os.py are resolved inside it too: an absolute
 * link there is the root's path, not the host's. */
static bool add(struct python_homes *out, const char *root, const char *prefix,
                const char *version)
{
    struct buf in = { 0 };
    buf_printf(&in, "%s/lib/python%s", strcmp(prefix, "/") ? prefix : "", version);
    char *real = root ? in_root(root, in.data) : xstrdup(in.data);
    char *landmark = real ? path_join(real, "os.py") : NULL;
    struct stat st, os_st;
    /* os.py is the landmark Python itself uses to find its stdlib. The same
     * directory can be reached by several paths (/lib -> usr/lib): compare
     * inodes, not names. */
    bool found = real && root_is(root, landmark, false, &os_st) &&
                 root_is(root, real, true, &st),
         dup = !found;
    for (size_t i = 0; !dup && i < out->n; i++)
        dup = out->v[i].dev == st.st_dev && out->v[i].ino == st.st_ino;
    xfree(landmark);
    buf_free(&in);
    if (dup) {
        xfree(real);
        return found;
    }
    grow((void **)&out->v, &out->cap, out->n + 1, sizeof out->v[0]);
    struct python_home *h = &out->v[out->n++];
    h->stdlib = outside(root, real);
    h->prefix = xstrdup(prefix);
    h->version = xstrdup(version);
    h->root = xstrdup(root ? root : "");
    h->dev = st.st_dev;
    h->ino = st.st_ino;
    h->binary = binary_of(root, prefix, version);
    log_debug("python: %s (%s)", h->stdlib, version);
    xfree(real);
    return true;
}

char *python_shadowed(const struct python_home *h)
{
    const char *root = *h->root ? h->root : NULL;
    const char *p = strcmp(h->prefix, "/") ? h->prefix : "";
    struct buf c[4] = { { 0 }, { 0 }, { 0 }, { 0 } };
    buf_printf(&c[0], "%s/lib/python%s/site-packages/sitecustomize.py", p, h->version);
    /* Debian's site.py: local/lib/python3.X/dist-packages, lib/python3/
     * dist-packages, lib/python3.X/dist-packages */
    buf_printf(&c[1], "%s/local/lib/python%s/dist-packages/sitecustomize.py", p, h->version);
    buf_printf(&c[2], "%s/lib/python3/dist-packages/sitecustomize.py", p);
    buf_printf(&c[3], "%s/lib/python%s/dist-packages/sitecustomize.py", p, h->version);
    char *found = NULL;
    for (int i = 0; i < 4; i++) {
        struct stat st;
        if (!found && root_is(root, c[i].data, false, &st))
            found = xstrdup(c[i].data);
        buf_free(&c[i]);
    }
    return found;
}

/* Every PREFIX/lib/python3.X with a stdlib in it (prefix inside the root,
 * where it is looked at where its links lead inside the root). */
static bool scan_prefix(struct python_homes *out, const char *root, const char *prefix)
{
    char *real = root ? in_root(root, prefix) : xstrdup(prefix);
    char *lib = real ? outside(root, real) : NULL, *dir = lib ? path_join(lib, "lib") : NULL;
    DIR *d = dir ? opendir(dir) : NULL;
    xfree(dir);
    xfree(lib);
    bool found = false;
    struct dirent *e;
    while (d && (e = readdir(d))) {
        const char *v = version_of(e->d_name);
        if (v && add(out, root, real, v))
            found = true;
    }
    if (d)
        closedir(d);
    xfree(real);
    return found;
}

/* The first line of a script, if it is a "#!" line: the interpreter and,
 * for "/usr/bin/env NAME", the name. */
static char *shebang(const char *path)
{
    int fd = open_regular(path);
    if (fd < 0)
        return NULL;
    char line[256];
    ssize_t n = read(fd, line, sizeof line - 1);
    close(fd);
    if (n < 3 || line[0] != '#' || line[1] != '!')
        return NULL;
    line[n] = '\0';
    char *s = line + 2 + strspn(line + 2, " \t");
    size_t l = strcspn(s, " \t\n");
    char *rest = s + l + strspn(s + l, " \t");
    if (l == 12 && strncmp(s, "/usr/bin/env", 12) == 0 && *rest && *rest != '\n') {
        s = rest;
        l = strcspn(s, " \t\n");
    }
    return xstrndup(s, l);
}

/* A file of the root read as its processes would read it: at the path its
 * links lead to inside the root. NULL when it leads nowhere. */
static char *root_file(const char *root, const char *path)
{
    char *real = resolve(root, path);
    char *o = real ? outside(root, real) : NULL;
    xfree(real);
    return o;
}

/* An interpreter path given on the command line, inside the root: one
 * under the root as the root's processes see it (ROOT/usr/bin/python3 is
 * /usr/bin/python3), any other as it is (/usr/bin/python3 is the root's
 * /usr/bin/python3), a relative one from the working directory first. */
static char *inside_path(const char *root, const char *path)
{
    char cwd[PATH_MAX];
    bool rel = path[0] != '/' || root[0] != '/';
    if (rel && !getcwd(cwd, sizeof cwd))
        return NULL;
    char *full = path[0] == '/' ? path_join("/", path) : path_join(cwd, path);
    char *r = root[0] == '/' ? path_join(root, ".") : path_join(cwd, root);
    size_t n = strlen(r);
    char *in = n > 1 && strncmp(full, r, n) == 0 && full[n] == '/' ? xstrdup(full + n)
             : n > 1 && strcmp(full, r) == 0                       ? xstrdup("/")
                                                                    : xstrdup(full);
    xfree(r);
    xfree(full);
    return in;
}

static char *which(const char *root, const char *name, const char *path_env)
{
    if (strchr(name, '/'))
        return root ? inside_path(root, name) : xstrdup(name);
    const char *p = path_env ? path_env : "/usr/local/bin:/usr/bin:/bin";
    for (;;) {
        const char *c = strchr(p, ':');
        size_t l = c ? (size_t)(c - p) : strlen(p);
        char *dir = xstrndup(l ? p : ".", l ? l : 1);
        char *full = path_join(dir, name);
        xfree(dir);
        /* Under a root, only its absolute directories: a relative one
         * names the working directory, which is not the root's. */
        char *file = !root ? xstrdup(full) : full[0] == '/' ? root_file(root, full) : NULL;
        bool ok = file && access(file, X_OK) == 0;
        xfree(file);
        if (ok)
            return full;
        xfree(full);
        if (!c)
            return NULL;
        p = c + 1;
    }
}

/* A venv's pyvenv.cfg, next to bindir's parent as CPython's getpath looks
 * for it: "home = /usr/bin" and "version = 3.11.2". */
static bool venv_base(const char *root, const char *bindir, char **home, char **version)
{
    char *cfg = path_join(bindir, "../pyvenv.cfg"), *text = NULL;
    char *file = root ? root_file(root, cfg) : xstrdup(cfg);
    size_t len;
    int r = file ? read_file(file, 1 << 16, &text, &len) : -ENOENT;
    xfree(file);
    xfree(cfg);
    if (r < 0)
        return false;
    *home = *version = NULL;
    for (char *line = text, *next; line; line = next) {
        next = strchr(line, '\n');
        if (next)
            *next++ = '\0';
        char *eq = strchr(line, '=');
        if (!eq)
            continue;
        char *k = line, *v = eq + 1 + strspn(eq + 1, " \t");
        char *kend = eq;
        while (kend > k && (kend[-1] == ' ' || kend[-1] == '\t'))
            kend--;
        *kend = '\0';
        if (strcmp(k, "home") == 0)
            *home = xstrdup(v);
        else if ((strcmp(k, "version") == 0 || strcmp(k, "version_info") == 0) && !*version) {
            const char *dot = strchr(v, '.');
            dot = dot ? strchr(dot + 1, '.') : NULL;
            *version = dot ? xstrndup(v, (size_t)(dot - v)) : xstrdup(v);
        }
    }
    xfree(text);
    return *home && *version;
}

/* What an interpreter given on the command line came to. */
enum found { NOT_PYTHON, NO_STDLIB, FOUND };

/* The prefix (inside the root) and version of the interpreter at full,
 * whose directory is bindir: a venv's base, or <prefix>/bin/python3.X
 * once links are followed (*version NULL for a "python3" that is not a
 * link). False when it leads nowhere inside the root. */
static bool prefix_of(const char *root, const char *full, const char *bindir, char **prefix,
                      char **version)
{
    char *home = NULL;
    *version = NULL;
    if (venv_base(root, bindir, &home, version)) {
        /* A venv has no stdlib of its own: the base interpreter's covers it. */
        *prefix = path_join(home, "..");
        xfree(home);
        return true;
    }
    xfree(home);
    xfree(*version);
    *version = NULL;
    char *real = resolve(root, full);
    if (!real)
        return false;
    char *slash = strrchr(real, '/');
    const char *v = version_of(slash + 1);
    *version = v ? xstrdup(v) : NULL;
    *slash = '\0';
    *prefix = path_join(*real ? real : "/", "..");
    xfree(real);
    return true;
}

/* The stdlib of the interpreter at path, or of the script's interpreter. */
static enum found from_interpreter(struct python_homes *out, const char *root, const char *path,
                                   const char *path_env, int depth)
{
    const char *given = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
    enum found none = strncmp(given, "python", 6) == 0 ? NO_STDLIB : NOT_PYTHON;
    char *full = which(root, path, path_env);
    if (!full)
        return none;
    char *file = root ? root_file(root, full) : xstrdup(full);
    char *interp = file ? shebang(file) : NULL;
    xfree(file);
    if (interp) {
        enum found f = depth < 2 ? from_interpreter(out, root, interp, path_env, depth + 1) : none;
        xfree(interp);
        xfree(full);
        return f;
    }
    const char *base = strrchr(full, '/') + 1;
    if (strncmp(base, "python", 6) != 0) {
        xfree(full);
        return none;
    }
    char *bindir = xstrndup(full, (size_t)(base - 1 - full));
    char *prefix = NULL, *version = NULL;
    bool found = false;
    if (prefix_of(root, full, bindir, &prefix, &version)) {
        /* A prefix that is a link, as uv's minor-version directory
         * (cpython-3.12-linux-x86_64-gnu -> cpython-3.12.N-...) that its
         * venvs name: the stdlib where it leads, since a sink's path holds
         * no link. */
        char *real = resolve(root, prefix);
        if (real)
            found = version ? add(out, root, real, version)
                            : scan_prefix(out, root, real); /* a "python3" that is not a link */
        xfree(real);
    }
    xfree(prefix);
    xfree(version);
    xfree(bindir);
    xfree(full);
    return found ? FOUND : NO_STDLIB;
}

void python_find(struct python_homes *out, const char *root, const char *const *interpreters,
                 size_t n, const char *path_env)
{
    static const char prefixes[][11] = { "/usr", "/usr/local", "/opt/conda" };
    for (size_t i = 0; i < ARRAY_SIZE(prefixes); i++)
        scan_prefix(out, root, prefixes[i]);
    char *envs = outside(root, "/opt/conda/envs");
    DIR *d = opendir(envs);
    struct dirent *e;
    while (d && (e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        char *prefix = path_join("/opt/conda/envs", e->d_name);
        scan_prefix(out, root, prefix);
        xfree(prefix);
    }
    if (d)
        closedir(d);
    xfree(envs);
    for (size_t i = 0; i < n; i++)
        if (from_interpreter(out, root, interpreters[i], path_env, 0) == NO_STDLIB && root)
            log_warn("sink python: %s: no Python standard library for it under --root %s; "
                     "no hook for it",
                     interpreters[i], root);
}

bool python_find_hook(struct python_homes *out, const char *root, const char *hook)
{
    /* <prefix>/lib/python3.X/sitecustomize.py */
    static const char name[] = "/sitecustomize.py";
    size_t n = strlen(hook), ln = sizeof name - 1;
    if (n <= ln || strcmp(hook + n - ln, name) != 0)
        return false;
    char *stdlib = xstrndup(hook, n - ln), *base = strrchr(stdlib, '/');
    const char *v = version_of(base + 1);
    size_t lp = (size_t)(base - stdlib);
    bool ok = v && lp >= 4 && strncmp(base - 4, "/lib", 4) == 0;
    char *prefix = ok ? xstrndup(stdlib, lp - 4) : NULL;
    char *real = ok ? in_root(root, *prefix ? prefix : "/") : NULL;
    ok = real && add(out, root, real, v);
    xfree(real);
    xfree(prefix);
    xfree(stdlib);
    return ok;
}
