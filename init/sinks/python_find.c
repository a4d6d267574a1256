#include "sinks/python_find.h"

#include "lib/log.h"
#include "lib/buf.h"
#include "lib/fileio.h"
#include "lib/mem.h"

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static bool exists(const char *dir, const char *name)
{
    char *p = path_join(dir, name);
    bool r = access(p, F_OK) == 0;
    xfree(p);
    return r;
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

/* stdlib is always <prefix>/lib/python3.X. */
static void add(struct python_homes *out, const char *root, const char *prefix,
                const char *version)
{
    struct buf stdlib = { 0 }, bin = { 0 };
    buf_printf(&stdlib, "%s/lib/python%s", prefix, version);
    struct stat st;
    /* os.py is the landmark Python itself uses to find its stdlib. The same
     * directory can be reached by several paths (/lib -> usr/lib): compare
     * inodes, not names. */
    bool dup = !exists(stdlib.data, "os.py") || stat(stdlib.data, &st) < 0;
    for (size_t i = 0; !dup && i < out->n; i++)
        dup = out->v[i].dev == st.st_dev && out->v[i].ino == st.st_ino;
    if (dup) {
        buf_free(&stdlib);
        return;
    }
    grow((void **)&out->v, &out->cap, out->n + 1, sizeof out->v[0]);
    struct python_home *h = &out->v[out->n++];
    h->stdlib = stdlib.data;
    h->prefix_len = strlen(prefix);
    h->version = xstrdup(version);
    h->root = xstrdup(root);
    h->dev = st.st_dev;
    h->ino = st.st_ino;
    buf_printf(&bin, "%s/bin/python%s", prefix, version);
    h->binary = access(bin.data, X_OK) == 0 ? bin.data : NULL;
    if (!h->binary)
        buf_free(&bin);
    log_debug("python: %s (%s)", h->stdlib, version);
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

/* Every PREFIX/lib/python3.X with a stdlib in it. */
static void scan_prefix(struct python_homes *out, const char *root, const char *prefix)
{
    char *lib = path_join(prefix, "lib");
    DIR *d = opendir(lib);
    xfree(lib);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d))) {
        const char *v = version_of(e->d_name);
        if (v)
            add(out, root, prefix, v);
    }
    closedir(d);
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

static char *which(const char *name, const char *path_env)
{
    if (strchr(name, '/'))
        return xstrdup(name);
    const char *p = path_env ? path_env : "/usr/local/bin:/usr/bin:/bin";
    for (;;) {
        const char *c = strchr(p, ':');
        size_t l = c ? (size_t)(c - p) : strlen(p);
        char *dir = xstrndup(l ? p : ".", l ? l : 1);
        char *full = path_join(dir, name);
        xfree(dir);
        if (access(full, X_OK) == 0)
            return full;
        xfree(full);
        if (!c)
            return NULL;
        p = c + 1;
    }
}

/* A venv's pyvenv.cfg: "home = /usr/bin" and "version = 3.11.2". */
static bool venv_base(const char *bindir, char **home, char **version)
{
    char *cfg = path_join(bindir, "../pyvenv.cfg"), *text;
    size_t len;
    int r = read_file(cfg, 1 << 16, &text, &len);
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

/* The stdlib of the interpreter at path, or of the script's interpreter. */
static void from_interpreter(struct python_homes *out, const char *path, const char *path_env,
                             int depth)
{
    char *full = which(path, path_env);
    if (!full)
        return;
    char *interp = shebang(full);
    if (interp) {
        if (depth < 2)
            from_interpreter(out, interp, path_env, depth + 1);
        xfree(interp);
        xfree(full);
        return;
    }
    const char *base = strrchr(full, '/') + 1;
    if (strncmp(base, "python", 6) != 0) {
        xfree(full);
        return;
    }
    char *bindir = xstrndup(full, (size_t)(base - 1 - full));
    char *home = NULL, *version = NULL, *prefix;
    if (venv_base(bindir, &home, &version)) {
        /* A venv has no stdlib of its own: the base interpreter's covers it. */
        prefix = path_join(home, "..");
    } else {
        /* <prefix>/bin/python3.X, once links are followed */
        xfree(version);
        char *real = follow(full);
        char *slash = strrchr(real, '/');
        const char *v = version_of(slash + 1);
        version = v ? xstrdup(v) : NULL;
        *slash = '\0';
        prefix = path_join(*real ? real : "/", "..");
        xfree(real);
    }
    /* A prefix that is a link, as uv's minor-version directory
     * (cpython-3.12-linux-x86_64-gnu -> cpython-3.12.N-...) that its venvs
     * name: the stdlib where it leads, since a sink's path holds no link. */
    char *real = follow(prefix);
    if (version)
        add(out, "", real, version);
    else
        scan_prefix(out, "", real); /* a "python3" that is not a link */
    xfree(real);
    xfree(prefix);
    xfree(home);
    xfree(version);
    xfree(bindir);
    xfree(full);
}

void python_find(struct python_homes *out, const char *root, const char *const *interpreters,
                 size_t n, const char *path_env)
{
    static const char prefixes[][11] = { "/usr", "/usr/local", "/opt/conda" };
    const char *r = root ? root : "";
    for (size_t i = 0; i < ARRAY_SIZE(prefixes); i++) {
        struct buf b = { 0 };
        buf_str(&b, r);
        buf_str(&b, prefixes[i]);
        scan_prefix(out, r, b.data);
        buf_free(&b);
    }
    struct buf envs = { 0 };
    buf_str(&envs, r);
    buf_str(&envs, "/opt/conda/envs");
    DIR *d = opendir(envs.data);
    struct dirent *e;
    while (d && (e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        char *prefix = path_join(envs.data, e->d_name);
        scan_prefix(out, r, prefix);
        xfree(prefix);
    }
    if (d)
        closedir(d);
    buf_free(&envs);
    for (size_t i = 0; i < n; i++)
        from_interpreter(out, interpreters[i], path_env, 0);
}
