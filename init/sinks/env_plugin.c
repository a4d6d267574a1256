/* Which env plugin NCCL loads, and whether the nccl-conf block may name
 * ours. NCCL 2.28.9 (src/misc/param.cc initEnvFunc, src/plugin/env.cc
 * ncclEnvPluginLoad, src/plugin/plugin_open.cc): at its first init it
 * applies $NCCL_CONF_FILE (or ~/.nccl.conf) and then /etc/nccl.conf with
 * setenv(k, v, 0), and only then reads NCCL_ENV_PLUGIN with getenv: "none"
 * loads no plugin, a value is dlopen'ed as a path or as
 * libnccl-env-VALUE.so, and unset is dlopen("libnccl-env.so"), which the
 * loader looks for along LD_LIBRARY_PATH, ld.so.cache and the system
 * directories. So a NCCL_ENV_PLUGIN line in the block reaches every process
 * that reads the file, with no loader configuration; and a plugin someone
 * else configured in any of those ways is theirs to keep. */
#include "sinks/env_plugin.h"

#include "lib/buf.h"
#include "lib/fileio.h"
#include "lib/log.h"
#include "lib/mem.h"
#include "lib/paths.h"
#include "lib/text.h"
#include "lib/walk.h"
#include "sinks/block.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

/* The build's multiarch directory (Debian's /usr/lib/<triplet>) and its
 * ld.so.cache flags (glibc elf/dl-cache.h: FLAG_ELF_LIBC6 with
 * FLAG_X8664_LIB64 or FLAG_AARCH64_LIB64). */
#if defined(__x86_64__)
#define LDCACHE_ARCH 0x0300
#elif defined(__aarch64__)
#define LDCACHE_ARCH 0x0a00
#endif
#ifdef ENV_PLUGIN_TRIPLET
#define TRIPLET ENV_PLUGIN_TRIPLET
#endif
#define LDCACHE_LIBC6 0x0003

#define STR_(x) #x
#define STR(x) STR_(x)

/* The largest ld.so.cache and nccl.conf read: a few hundred KiB in
 * practice; anything larger is not looked into. */
#define LDCACHE_MAX (16u << 20)
#define CONF_READ_MAX (1u << 20)

/* ---- glibc's ld.so.cache ---- */

/* glibc elf/dl-cache.h, struct cache_file_new: magic "glibc-ld.so.cache"
 * and version "1.1" (20 bytes), uint32 nlibs, uint32 len_strings, uint8
 * flags, 3 bytes of padding, uint32 extension_offset, 3 uint32 unused: 48
 * bytes; then nlibs struct file_entry_new of 24 bytes: int32 flags,
 * uint32 key, uint32 value (offsets of NUL-terminated strings from the
 * start of the file), uint32 osversion, uint64 hwcap. */
#define LDCACHE_MAGIC "glibc-ld.so.cache1.1"
#define LDCACHE_HEADER 48
#define LDCACHE_ENTRY 24

static const char *ldcache_string(const char *data, size_t len, uint32_t off)
{
    if (off >= len || !memchr(data + off, '\0', len - off))
        return NULL;
    return data + off;
}

int ldcache_each(const char *data, size_t len, const char *soname, ldcache_fn *fn, void *ctx)
{
    if (len < LDCACHE_HEADER || memcmp(data, LDCACHE_MAGIC, sizeof LDCACHE_MAGIC - 1) != 0)
        return -EINVAL;
    uint32_t nlibs;
    memcpy(&nlibs, data + 20, sizeof nlibs);
    if (nlibs > (len - LDCACHE_HEADER) / LDCACHE_ENTRY)
        return -EINVAL;
    int found = 0;
    for (uint32_t i = 0; i < nlibs; i++) {
        const char *e = data + LDCACHE_HEADER + (size_t)i * LDCACHE_ENTRY;
        int32_t flags;
        uint32_t key, value;
        memcpy(&flags, e, 4);
        memcpy(&key, e + 4, 4);
        memcpy(&value, e + 8, 4);
        const char *k = ldcache_string(data, len, key), *v = ldcache_string(data, len, value);
        if (!k || !v)
            return -EINVAL;
        if ((flags & 0xff) != LDCACHE_LIBC6 || strcmp(k, soname) != 0)
            continue;
#ifdef LDCACHE_ARCH
        if ((flags & 0xff00) != LDCACHE_ARCH)
            continue;
#endif
        found++;
        if (fn(v, ctx))
            break;
    }
    return found;
}

/* ---- ours ---- */

/* Is the file at path (absolute, clean) one to name: reached without a
 * link, a regular file, owned by root (not as root: by root or us), not
 * writable by group or others? 0 with *st filled; 1 with why said (and
 * *st filled when the file was reached); -ENOENT when there is none. */
static int trusted(const char *path, struct stat *st, struct buf *why)
{
    const char *name;
    struct refusal r;
    memset(st, 0, sizeof *st); /* not S_ISREG until fstatat says so */
    int fd = walk_parent(path, 0, &name, &r);
    if (fd == -ENOENT || fd == -ENOTDIR)
        return -ENOENT;
    if (fd < 0) {
        if (r.kind != REFUSED_NOTHING)
            refusal_text(why, path, &r);
        else
            buf_str(why, strerror(-fd));
        return 1;
    }
    int e = fstatat(fd, name, st, AT_SYMLINK_NOFOLLOW) < 0 ? -errno : 0;
    walk_release(fd);
    if (e == -ENOENT)
        return -ENOENT;
    uid_t me = geteuid();
    if (e < 0)
        buf_str(why, strerror(-e));
    else if (S_ISLNK(st->st_mode))
        buf_str(why, "it is a symlink");
    else if (!S_ISREG(st->st_mode))
        buf_str(why, "it is not a regular file");
    else if (st->st_uid != 0 && (me == 0 || st->st_uid != me))
        buf_printf(why, "it is owned by uid %u, not by root%s", (unsigned)st->st_uid,
                   me == 0 ? "" : " or us");
    else if (st->st_mode & (S_IWGRP | S_IWOTH))
        buf_printf(why, "it is writable by %s (mode %04o)",
                   st->st_mode & S_IWGRP ? (st->st_mode & S_IWOTH ? "group and others" : "group")
                                         : "others",
                   (unsigned)(st->st_mode & 07777));
    else
        return 0;
    return 1;
}

/* The binary's path: w->exe, or /proc/self/exe read. NULL when unknown. */
static char *running_binary(const struct env_plugin_where *w)
{
    if (w->exe)
        return xstrdup(w->exe);
    char buf[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
    if (n <= 0 || buf[0] != '/')
        return NULL;
    buf[n] = '\0';
    return xstrdup(buf);
}

/* ---- other plugins ---- */

/* What is looked for on the loader's path. */
struct search {
    const char *root; /* NULL: / */
    bool ours;        /* ours exists: dev, ino */
    dev_t dev;
    ino_t ino;
    struct buf *found; /* what was found, said for the warning */
    const char *how;   /* where it was found: "LD_LIBRARY_PATH" */
};

/* A libnccl-env.so at path (under the root) that is not ours, linked or
 * not: said in s->found. True when one was. */
static bool other_at(struct search *s, const char *path)
{
    char *p = s->root ? path_join(s->root, path) : xstrdup(path);
    struct stat st;
    bool other = stat(p, &st) == 0 && S_ISREG(st.st_mode) &&
                 !(s->ours && st.st_dev == s->dev && st.st_ino == s->ino);
    if (other)
        buf_printf(s->found, "another %s at %s (%s)", ENV_PLUGIN_NAME, p, s->how);
    xfree(p);
    return other;
}

static bool other_in_dir(struct search *s, const char *dir)
{
    char *p = path_join(dir, ENV_PLUGIN_NAME);
    bool other = other_at(s, p);
    xfree(p);
    return other;
}

static bool ldcache_entry(const char *path, void *ctx)
{
    return other_at(ctx, path);
}

/* (c): a libnccl-env.so that NCCL's dlopen("libnccl-env.so") would find
 * before or instead of ours: along the child's LD_LIBRARY_PATH (glibc
 * splits it at ':' and ';'; an empty or relative entry names the process's
 * working directory, unknown here, and is passed over), then in
 * ld.so.cache, then in the system directories. */
static bool other_on_loader_path(struct search *s, const struct envset *set)
{
    const char *llp = envset_get(set, "LD_LIBRARY_PATH");
    s->how = "LD_LIBRARY_PATH";
    for (const char *c = llp; c && *c;) {
        size_t n = strcspn(c, ":;");
        if (n && c[0] == '/') {
            char *dir = xmalloc(n + 1);
            memcpy(dir, c, n);
            dir[n] = '\0';
            bool other = other_in_dir(s, dir);
            xfree(dir);
            if (other)
                return true;
        }
        c += n + (c[n] != '\0');
    }
    s->how = "ld.so.cache";
    char *cache = s->root ? path_join(s->root, "/etc/ld.so.cache") : xstrdup("/etc/ld.so.cache");
    char *data;
    size_t len;
    int e = read_file(cache, LDCACHE_MAX, &data, &len);
    if (e == 0) {
        int k = ldcache_each(data, len, ENV_PLUGIN_NAME, ldcache_entry, s);
        if (k < 0)
            log_debug("env plugin: %s: not glibc's ld.so.cache format; not looked into", cache);
        xfree(data);
    }
    xfree(cache);
    if (s->found->len)
        return true;
    s->how = "a system library directory";
    static const char *const system_dirs[] = {
#ifdef TRIPLET
        "/lib/" TRIPLET, "/usr/lib/" TRIPLET,
#endif
        "/lib", "/usr/lib",
    };
    for (size_t i = 0; i < sizeof system_dirs / sizeof system_dirs[0]; i++)
        if (other_in_dir(s, system_dirs[i]))
            return true;
    return false;
}

/* (b): a NCCL_ENV_PLUGIN line outside nccl-init's block in an nccl.conf
 * (NCCL's reader: a line that starts with the key and '='; the value is
 * the rest, a CR too), unless it names ours. */
static bool other_in_text(const char *path, const char *data, size_t len, const char *ours,
                          struct buf *found, bool *off)
{
    static const char key[] = "NCCL_ENV_PLUGIN=";
    bool in_block = false, other = false;
    for (const char *l = data; l < data + len && !other;) {
        const char *nl = memchr(l, '\n', (size_t)(data + len - l));
        size_t n = nl ? (size_t)(nl - l) : (size_t)(data + len - l);
        size_t m = n && l[n - 1] == '\r' ? n - 1 : n; /* a marker may end in CRLF */
        if (m == strlen(BLOCK_BEGIN) && memcmp(l, BLOCK_BEGIN, m) == 0)
            in_block = true;
        else if (m == strlen(BLOCK_END) && memcmp(l, BLOCK_END, m) == 0)
            in_block = false;
        else if (!in_block && n >= sizeof key - 1 && memcmp(l, key, sizeof key - 1) == 0) {
            const char *v = l + sizeof key - 1;
            size_t vl = n - (sizeof key - 1);
            if (!(ours && strlen(ours) == vl && memcmp(v, ours, vl) == 0)) {
                *off = vl == 4 && strncasecmp(v, "none", 4) == 0;
                buf_str(found, "NCCL_ENV_PLUGIN=");
                buf_add(found, v, vl); /* the log escapes it */
                buf_printf(found, " in %s", path);
                other = true;
            }
        }
        l += n + 1;
    }
    return other;
}

/* other_in_text of the file at path; a file that cannot be read has no
 * such line. */
static bool other_in_conf(const char *path, const char *ours, struct buf *found, bool *off)
{
    char *data;
    size_t len;
    if (read_file(path, CONF_READ_MAX, &data, &len) < 0)
        return false;
    bool other = other_in_text(path, data, len, ours, found, off);
    xfree(data);
    return other;
}

/* (a), (b) and (c), in that order: the first found is said in found;
 * *off when it is NCCL_ENV_PLUGIN=none (case-insensitive, as NCCL reads
 * it: no env plugin at all). */
static bool other_plugin(const struct env_plugin_where *w, const struct envset *s,
                         const char *ours, const struct stat *st, struct buf *found, bool *off)
{
    const char *env = envset_get(s, "NCCL_ENV_PLUGIN");
    *off = false;
    if (env && !(ours && strcmp(env, ours) == 0)) {
        *off = strcasecmp(env, "none") == 0;
        buf_str(found, "NCCL_ENV_PLUGIN=");
        buf_str(found, env); /* the log escapes it */
        buf_str(found, " in the environment");
        return true;
    }
    if (w->conf && (w->conf_text ? other_in_text(w->conf, w->conf_text, w->conf_len, ours, found, off)
                                 : other_in_conf(w->conf, ours, found, off)))
        return true;
    if (w->conf_is_env) {
        char *etc = w->root ? path_join(w->root, ETC_NCCL_CONF) : xstrdup(ETC_NCCL_CONF);
        bool other = other_in_conf(etc, ours, found, off);
        xfree(etc);
        if (other)
            return true;
    }
    struct search se = { w->root, st != NULL, st ? st->st_dev : 0, st ? st->st_ino : 0, found,
                         NULL };
    return other_on_loader_path(&se, s);
}

/* path inside root (both canonical): the part below it, or NULL. */
static const char *inside(const char *path, const char *root)
{
    size_t n = strlen(root);
    while (n > 0 && root[n - 1] == '/')
        n--;
    if (n == 0)
        return path;
    return strncmp(path, root, n) == 0 && path[n] == '/' ? path + n : NULL;
}

/* A name the block can carry as NCCL reads it: no control byte (a newline
 * would end the line), at most NCCL_CONF_MAX bytes (setEnvFile). NULL, or
 * why not. */
static const char *unfit(const char *name)
{
    for (const char *c = name; *c; c++)
        if ((unsigned char)*c < 0x20 || *c == 0x7f)
            return "its path contains a control character";
    if (strlen(name) > NCCL_CONF_MAX)
        return "its path is longer than the " STR(NCCL_CONF_MAX)
               " bytes NCCL's nccl.conf reader keeps";
    return NULL;
}

/* Ours beside the running binary (NULL: unknown), and *name, as NCCL in
 * the root would see it: the binary of a root that holds it names what is
 * below the root; one outside names nothing (NULL). *name points into the
 * path returned. */
static char *ours_beside(const struct env_plugin_where *w, const char **name)
{
    char *path = NULL, *exe = running_binary(w);
    if (exe) {
        char *dir = path_join(exe, "..");
        path = path_join(dir, ENV_PLUGIN_BESIDE);
        xfree(dir);
        xfree(exe);
    }
    *name = path;
    char root[PATH_MAX];
    if (path && w->root)
        *name = realpath(w->root, root) ? inside(path, root) : NULL;
    return path;
}

int env_plugin_ours(const char *exe, const char *root, char **path, char **name, struct buf *why)
{
    struct env_plugin_where w = { exe, root, NULL, false, NULL, 0 };
    const char *in;
    *path = ours_beside(&w, &in);
    *name = in ? xstrdup(in) : NULL;
    if (!*path)
        return -ENOENT;
    if (!in)
        return -EXDEV;
    struct stat st;
    int t = trusted(*path, &st, why);
    if (t == 0 && unfit(in)) {
        buf_str(why, unfit(in));
        return 1;
    }
    return t;
}

void env_plugin_find(struct env_plugin *p, const struct env_plugin_where *w,
                     const struct envset *s)
{
    memset(p, 0, sizeof *p);
    const char *name;
    p->path = ours_beside(w, &name);
    if (!p->path)
        log_debug("env plugin: the running binary's path is unknown; none named");
    else if (!name)
        log_debug("env plugin: %s is outside --root %s; none named", p->path, w->root);
    struct stat st;
    struct buf why = { 0 }, found = { 0 };
    int t = name ? trusted(p->path, &st, &why) : -ENOENT;
    if (name && t == -ENOENT)
        log_debug("env plugin: none at %s", p->path);
    bool ours = t >= 0 && S_ISREG(st.st_mode);
    const char *bad = t == 0 ? unfit(name) : NULL;

    bool off;
    if (other_plugin(w, s, name, ours ? &st : NULL, &found, &off)) {
        log_warn("sink nccl-conf: %s (%s): left alone; %s, and the profile reaches NCCL only "
                 "through the environment, the Python hook and nccl.conf (--enforce does not "
                 "hold against a process's own value)",
                 off ? "env plugins turned off" : "another env plugin", found.data,
                 off ? "NCCL then loads no env plugin"
                     : "NCCL takes its parameters through that plugin");
        p->outcome = "left out";
        struct buf note = { 0 };
        buf_printf(&note, "%s: %s", off ? "env plugins turned off" : "another env plugin",
                   found.data);
        p->note = note.data;
    } else if (t == 1 || bad) {
        if (bad)
            buf_str(&why, bad);
        log_warn("sink nccl-conf: env plugin %s: %s; not named", p->path, why.data);
        p->outcome = "left out";
        p->note = xstrdup(why.data);
    } else if (t == 0) {
        p->name = xstrdup(name);
        p->outcome = "named";
        struct buf note = { 0 };
        buf_printf(&note, "NCCL_ENV_PLUGIN=%s", p->name);
        p->note = note.data;
        log_debug("sink nccl-conf: naming the env plugin %s", p->name);
    }
    buf_free(&why);
    buf_free(&found);
}

void env_plugin_free(struct env_plugin *p)
{
    xfree(p->name);
    xfree(p->path);
    xfree(p->note);
    memset(p, 0, sizeof *p);
}
