#include "verify.h"

#include "log.h"
#include "procfs.h"
#include "sink_formats.h"
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* What an execve can pass is at most 6 MiB (3/4 of _STK_LIM); only
 * prctl(PR_SET_MM) makes /proc/PID/environ larger. Read it whole up to
 * this, and call a larger one unreadable rather than guess. */
#define ENVIRON_MAX (32u << 20)
/* The record is a few hundred bytes; this bounds one read through a
 * process's descriptor. */
#define RECORD_MAX (1u << 20)

struct kv {
    char *key, *value;
};

struct set {
    struct kv *v;
    size_t n, cap;
};

/* KEY=VALUE lines of an env-file or nccl.conf; '#' lines skipped. NCCL's
 * conf reader takes the first value of a key (setenv without overwrite). */
static void parse_pairs(struct set *s, char *text, bool nccl_only)
{
    for (char *line = text, *next; line && *line; line = next) {
        next = strchr(line, '\n');
        if (next)
            *next++ = '\0';
        char *eq = strchr(line, '=');
        if (line[0] == '#' || !eq || (nccl_only && strncmp(line, "NCCL_", 5) != 0))
            continue;
        /* NCCL's setEnvFile keeps at most 1023 bytes of a key and of a
         * value; an env-file keeps them whole. */
        size_t kl = (size_t)(eq - line), vl = strlen(eq + 1), cut = nccl_only ? 1023 : vl + kl;
        grow((void **)&s->v, &s->cap, s->n + 1, sizeof *s->v);
        s->v[s->n++] = (struct kv){ xstrndup(line, kl < cut ? kl : cut),
                                    xstrndup(eq + 1, vl < cut ? vl : cut) };
    }
}

static void read_pairs(struct set *s, const char *path, bool nccl_only)
{
    char *text;
    size_t len;
    if (read_file(path, RECORD_MAX, &text, &len) < 0)
        return;
    parse_pairs(s, text, nccl_only);
    free(text);
}

static const char *lookup(const struct set *s, const char *key)
{
    for (size_t i = 0; i < s->n; i++)
        if (strcmp(s->v[i].key, key) == 0)
            return s->v[i].value;
    return NULL;
}

/* A record file as some process holds it open: the current one (index 0)
 * or an older one that a later start replaced (its name says
 * "(deleted)"). Each distinct file is read once. */
struct record {
    dev_t dev;
    ino_t ino;
    struct set pairs;
    const char *digest;
};

struct records {
    struct record *v;
    size_t n, cap;
    uid_t owner;        /* of the current record: an older one must match */
    const char *suffix; /* "/run/nccl-init/profile.env" */
};

struct proc {
    pid_t pid, ppid;
    char state;
    char comm[32];
    bool python, nccl, wanted;
    bool unknown; /* wanted only because its map could not be read */
    int maps_err; /* errno reading /proc/PID/maps; 0 when read */
};

static int cmp_pid(const void *a, const void *b)
{
    pid_t x = ((const struct proc *)a)->pid, y = ((const struct proc *)b)->pid;
    return (x > y) - (x < y);
}

/* 0, or -errno; *text is NUL-terminated. */
static int proc_file(pid_t pid, const char *name, size_t max, char **text, size_t *len)
{
    char path[48];
    struct buf b = BUF_FIXED(path);
    buf_printf(&b, "/proc/%d/%s", (int)pid, name);
    return read_file(path, max, text, len);
}

/* The process has exited (or is exiting) since the walk of /proc: not an
 * error, it simply is no longer there to check. */
static bool gone(pid_t pid)
{
    struct proc_stat st;
    return !proc_stat_read(pid, &st) || st.state == 'Z' || st.state == 'X';
}

static bool read_proc(pid_t pid, struct proc *p)
{
    size_t len;
    struct proc_stat st;
    if (!proc_stat_read(pid, &st))
        return false;
    memset(p, 0, sizeof *p);
    p->pid = pid;
    p->ppid = st.ppid;
    p->state = st.state;
    memcpy(p->comm, st.comm, sizeof p->comm);
    char exe[256];
    struct buf b = BUF_FIXED(exe);
    buf_printf(&b, "/proc/%d/exe", (int)pid);
    char target[256];
    ssize_t n = readlink(exe, target, sizeof target - 1);
    const char *base = p->comm;
    if (n > 0) {
        target[n] = '\0';
        base = strrchr(target, '/') ? strrchr(target, '/') + 1 : target;
    }
    p->python = strncmp(base, "python", 6) == 0;
    /* libnccl mapped: NCCL is (or will be) in this process */
    char *maps;
    int e = proc_file(pid, "maps", 64 << 20, &maps, &len);
    if (e == 0) {
        p->nccl = find_bytes(maps, len, "/libnccl", 8) != NULL;
        free(maps);
    } else {
        p->maps_err = -e;
    }
    return true;
}

static const char *env_of(const char *env, size_t len, const char *key)
{
    size_t kl = strlen(key);
    for (size_t i = 0; i < len; i += strlen(env + i) + 1)
        if (strncmp(env + i, key, kl) == 0 && env[i + kl] == '=')
            return env + i + kl + 1;
    return NULL;
}

static bool ends_with(const char *s, size_t n, const char *tail)
{
    size_t t = strlen(tail);
    return n >= t && memcmp(s + n - t, tail, t) == 0;
}

/* Which record the site hook holds open in this process: the hook opens
 * the record read-only at start-up and keeps the descriptor for the life
 * of the process (forked children inherit it with the environment; exec
 * closes it). Only the process itself can put a descriptor in its table,
 * so no other user can forge one or take it away. Returns the record's
 * index, -1 when the process holds none, or -errno when its descriptors
 * cannot be read. */
static int held_record(pid_t pid, struct records *rs)
{
    char dir[32];
    struct buf d = BUF_FIXED(dir);
    buf_printf(&d, "/proc/%d/fd", (int)pid);
    DIR *fds = opendir(dir);
    if (!fds)
        return -errno;
    int found = -1;
    struct dirent *e;
    struct buf deleted = { 0 };
    buf_printf(&deleted, "%s (deleted)", rs->suffix);
    int err = 0;
    for (;;) {
        errno = 0;
        if (found >= 0 || !(e = readdir(fds))) {
            err = found < 0 ? errno : 0; /* 0: the end of the table */
            break;
        }
        if (e->d_name[0] < '0' || e->d_name[0] > '9')
            continue;
        char link[64], target[4096];
        struct buf l = BUF_FIXED(link);
        buf_printf(&l, "%s/%s", dir, e->d_name);
        ssize_t n = readlink(link, target, sizeof target - 1);
        if (n <= 0 || !(ends_with(target, (size_t)n, rs->suffix) ||
                        ends_with(target, (size_t)n, deleted.data)))
            continue; /* closed meanwhile, or another file */
        struct stat st;
        if (stat(link, &st) < 0 || !S_ISREG(st.st_mode) || st.st_uid != rs->owner)
            continue;
        for (size_t i = 0; found < 0 && i < rs->n; i++)
            if (rs->v[i].dev == st.st_dev && rs->v[i].ino == st.st_ino)
                found = (int)i;
        if (found >= 0)
            break;
        /* An older record, replaced since: read it through the process's
         * descriptor, to know the values the hook applied then. */
        struct record r = { st.st_dev, st.st_ino, { 0 }, NULL };
        char *text;
        size_t len;
        if (read_file(link, RECORD_MAX, &text, &len) < 0)
            continue;
        parse_pairs(&r.pairs, text, false);
        free(text);
        r.digest = lookup(&r.pairs, "NCCL_INIT_DIGEST");
        if (!r.digest)
            continue; /* not a record nccl-init wrote */
        grow((void **)&rs->v, &rs->cap, rs->n + 1, sizeof *rs->v);
        rs->v[rs->n] = r;
        found = (int)rs->n++;
    }
    closedir(fds);
    buf_free(&deleted);
    return found >= 0 ? found : err ? -err : -1;
}

/* For a terminal: every control byte (C0, DEL, and C1 as UTF-8) and every
 * byte that is not UTF-8 as \xNN, a backslash as \\; the rest as is. No
 * value can move the cursor, change colours or forge a line. */
static void text_escaped(struct buf *b, const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t n = strlen(s);
    for (size_t i = 0; i < n;) {
        size_t l = utf8_seq_len(p + i, n - i);
        bool c1 = l == 2 && p[i] == 0xc2 && p[i + 1] < 0xa0;
        if (l == 0 || c1 || p[i] < 0x20 || p[i] == 0x7f) {
            for (size_t k = 0; k < (l ? l : 1); k++)
                buf_printf(b, "\\x%02x", p[i + k]);
            i += l ? l : 1;
        } else if (p[i] == '\\') {
            buf_str(b, "\\\\");
            i++;
        } else {
            buf_add(b, p + i, l);
            i += l;
        }
    }
}

/* text_escaped, then padded with spaces to width columns. */
static void text_cell(struct buf *b, const char *s, size_t width)
{
    size_t at = b->len;
    text_escaped(b, s);
    for (size_t w = b->len - at; w < width; w++)
        buf_str(b, " ");
}

/* Ends a table row: no padding after the last column. */
static void end_row(struct buf *b)
{
    while (b->len && b->data[b->len - 1] == ' ')
        b->len--;
    buf_str(b, "\n");
}

enum { VIA_ENV, VIA_SITE, VIA_CONF, VIA_MISSING, VIA_CONFLICT };
static const char *const via_names[] = { "env", "site", "nccl.conf", "MISSING", "CONFLICT" };

/* Why a process could not be verified: a short reason for the table and
 * JSON, and what exactly failed. */
struct unverified {
    const char *reason;
    struct buf detail;
};

static void cannot_read(struct unverified *u, pid_t pid, const char *what, const char *file, int e)
{
    bool environ = strcmp(file, "environ") == 0;
    u->reason = e == EACCES || e == EPERM ? "permission denied"
                : e == EFBIG              ? (environ ? "environment over 32 MiB" : "too large")
                                          : xstrdup(errstr(e));
    buf_printf(&u->detail, "cannot read its %s (/proc/%d/%s): %s", what, (int)pid, file,
               e != EFBIG     ? errstr(e)
               : environ      ? "larger than 32 MiB"
               : *file == 'm' ? "larger than 64 MiB"
                              : "larger than 1 MiB");
}

/* The conf file NCCL reads before /etc/nccl.conf in this process
 * (src/misc/param.cc initEnvFunc): $NCCL_CONF_FILE when set and not empty,
 * else ~/.nccl.conf with the home of its real uid in the password database
 * (its root's /etc/passwd, else ours), not $HOME. *name: the path as NCCL
 * sees it (cut at 1023 bytes, as NCCL's snprintf does), empty when there
 * is none. Read through /proc/PID/root, or /proc/PID/cwd when relative.
 * Missing, a directory or not a regular file (/dev/null): nothing, as for
 * NCCL. There but unreadable: *u says why. */
/* The digits at s, as a number; *end after them. */
static long long decimal(char *s, char **end)
{
    long long v = 0;
    for (*end = s; **end >= '0' && **end <= '9' && v < (1ll << 40); ++*end)
        v = v * 10 + (**end - '0');
    return v;
}

static void user_conf(pid_t pid, const char *env, size_t len, struct set *s, struct buf *name,
                      struct unverified *u)
{
    const char *f = env_of(env, len, "NCCL_CONF_FILE");
    char *text = NULL, *l;
    size_t tl;
    struct buf path = { 0 };
    if (f && *f) {
        buf_str(name, f);
    } else if (proc_file(pid, "status", 1 << 16, &text, &tl) == 0) {
        l = (char *)find_bytes(text, tl, "\nUid:\t", 6);
        char *end;
        long long uid = l ? decimal(l + 6, &end) : -1;
        free(text);
        buf_printf(&path, "/proc/%d/root/etc/passwd", (int)pid);
        if (uid >= 0 && (read_file(path.data, RECORD_MAX, &text, &tl) == 0 ||
                         read_file("/etc/passwd", RECORD_MAX, &text, &tl) == 0))
            /* name:pw:UID:gid:gecos:DIR:shell, the first line with the uid */
            for (l = text; l && *l && !name->len; l = strchr(l, '\n'), l = l ? l + 1 : l) {
                char *c[6];
                int k = 0;
                for (char *q = l; *q && *q != '\n' && k < 6; q++)
                    if (*q == ':')
                        c[k++] = q + 1;
                if (k == 6 && decimal(c[1], &end) == uid && end > c[1] && end + 1 == c[2])
                    buf_printf(name, "%.*s/.nccl.conf", (int)(c[5] - c[4] - 1), c[4]);
            }
    }
    if (!name->len)
        return;
    if (name->len > 1023)
        name->data[name->len = 1023] = '\0';
    path.len = 0;
    buf_printf(&path, "/proc/%d/%s%s", (int)pid, name->data[0] == '/' ? "root" : "cwd/",
               name->data);
    int e = read_file(path.data, RECORD_MAX, &text, &tl);
    if (e == 0)
        parse_pairs(s, text, true);
    else if (e != -ENOENT && e != -ENOTDIR && e != -EISDIR && e != -EINVAL)
        cannot_read(u, pid, "NCCL conf file", strchr(path.data + 6, '/') + 1, -e);
}

int verify(const struct verify_options *o)
{
    const char *root = o->root ? o->root : "";
    struct buf path = { 0 };
    struct set want = { 0 }, conf = { 0 };
    buf_printf(&path, "%s" NCCL_INIT_RECORD, root);
    read_pairs(&want, path.data, false);
    if (!want.n)
        die(EXIT_USAGE, "verify: no resolved set in %s (is nccl-init running here?)", path.data);
    const char *digest = lookup(&want, "NCCL_INIT_DIGEST");
    struct records recs = { .suffix = NCCL_INIT_RECORD };
    struct stat rst;
    if (stat(path.data, &rst) == 0) {
        grow((void **)&recs.v, &recs.cap, 1, sizeof *recs.v);
        recs.v[recs.n++] = (struct record){ rst.st_dev, rst.st_ino, want, digest };
        recs.owner = rst.st_uid;
    }
    path.len = 0;
    buf_printf(&path, "%s/run/nccl-init/state.json", root);
    char *state;
    size_t len;
    pid_t child = 0;
    if (read_file(path.data, 1 << 20, &state, &len) == 0) {
        const char *c = find_bytes(state, len, "\"child_pid\": ", 13);
        long long v;
        if (c && parse_c_integer(c + 13, &v))
            child = (pid_t)v;
        free(state);
    }
    path.len = 0;
    buf_printf(&path, "%s/etc/nccl.conf", root);
    read_pairs(&conf, path.data, true);

    /* Every process, to know the tree; then the ones that matter. */
    struct proc *procs = NULL;
    size_t n = 0, cap = 0;
    DIR *d = opendir("/proc");
    struct dirent *e;
    while (d && (e = readdir(d))) {
        long long pid;
        if (e->d_name[0] < '1' || e->d_name[0] > '9' || !parse_c_integer(e->d_name, &pid) ||
            pid == getpid())
            continue;
        grow((void **)&procs, &cap, n + 1, sizeof *procs);
        if (read_proc((pid_t)pid, &procs[n]))
            n++;
    }
    if (d)
        closedir(d);
    sort(procs, n, sizeof *procs, cmp_pid);
    struct buf notes = { 0 };
    for (size_t k = 0; k < o->npids; k++) {
        struct proc key = { .pid = o->pids[k] };
        if (!bsearch(&key, procs, n, sizeof *procs, cmp_pid))
            buf_printf(&notes, "pid %d: no such process\n", (int)o->pids[k]);
    }
    struct buf unread = { 0 };
    unsigned outside = 0; /* processes outside the tree whose map is unreadable */
    for (size_t i = 0; i < n; i++) {
        struct proc *p = &procs[i];
        bool below = false, listed = false; /* below: a descendant of nccl-init's child */
        const struct proc *a = p;
        for (size_t hops = 0; a && hops < n && !below; hops++) {
            below = child && a->pid == child;
            struct proc key = { .pid = a->ppid };
            a = bsearch(&key, procs, n, sizeof *procs, cmp_pid);
        }
        for (size_t k = 0; k < o->npids; k++)
            listed = listed || o->pids[k] == p->pid;
        p->wanted = o->all || (o->npids ? listed : p->nccl || (p->python && below));
        /* Without --pid or --all, a process whose map cannot be read may
         * have NCCL loaded. In nccl-init's tree it counts as not verified;
         * outside it (a host's or another user's process) it is named in a
         * note, and the exit status is the tree's. */
        bool unknown = !p->wanted && !o->all && !o->npids && p->maps_err &&
                       p->maps_err != ENOENT && p->maps_err != ESRCH &&
                       p->state != 'Z' && p->state != 'X';
        p->unknown = unknown && below;
        p->wanted = p->wanted || p->unknown;
        if (unknown && !below) {
            if (outside++ < 10)
                buf_printf(&unread, "%s%d", outside > 1 ? ", " : "", (int)p->pid);
            else if (outside == 11)
                buf_str(&unread, ", ...");
        }
        /* An exited process that is not yet reaped has nothing to check. */
        if (p->state == 'Z' || p->state == 'X') {
            if (listed)
                buf_printf(&notes, "pid %d: has exited\n", (int)p->pid);
            p->wanted = false;
        }
    }

    struct buf out = { 0 }, cell = { 0 };
    unsigned checked = 0, good = 0, unreadable = 0;
    if (o->json) {
        buf_str(&out, "{\n  \"digest\": ");
        json_string(&out, digest ? digest : "");
        buf_str(&out, ",\n  \"processes\": [");
    } else {
        buf_printf(&out, "%-7s %-15s", "PID", "COMMAND");
        for (size_t k = 0; k < want.n; k++)
            if (strncmp(want.v[k].key, "NCCL_INIT_", 10) != 0) {
                const char *key = want.v[k].key;
                cell.len = 0;
                buf_printf(&cell, "%.10s", key + (strncmp(key, "NCCL_", 5) ? 0 : 5));
                buf_str(&out, " ");
                text_cell(&out, cell.data, 10);
            }
        end_row(&out);
    }
    for (size_t i = 0; i < n; i++) {
        struct proc *p = &procs[i];
        if (!p->wanted)
            continue;
        struct unverified u = { NULL, { 0 } };
        char *env = NULL;
        int held = -1;
        bool vanished = false;
        if (p->unknown) {
            vanished = gone(p->pid);
            cannot_read(&u, p->pid, "memory map, to tell whether it loaded NCCL", "maps",
                        p->maps_err);
        } else {
            int err = proc_file(p->pid, "environ", ENVIRON_MAX, &env, &len);
            /* An exiting process reads as an empty environment. */
            if ((err == 0 && len == 0) || err == -ENOENT || err == -ESRCH)
                vanished = gone(p->pid);
            if (err < 0)
                cannot_read(&u, p->pid, "environment", "environ", -err);
        }
        /* The site hook sets exactly the keys absent from the exec-time
         * environment: look for its record only when one is absent. The
         * user's conf file matters for a key that the record lacks too. */
        struct set user = { 0 };
        struct buf uname = { 0 };
        bool looked = false;
        for (size_t k = 0; !vanished && !u.reason && k < want.n; k++) {
            const char *key = want.v[k].key;
            if (strncmp(key, "NCCL_INIT_", 10) == 0 || env_of(env, len, key))
                continue;
            if (!looked) {
                looked = true;
                held = held_record(p->pid, &recs);
                if (held < -1 && !(vanished = gone(p->pid)))
                    cannot_read(&u, p->pid, "open descriptors", "fd", -held);
            }
            if (held < -1 || (held >= 0 && lookup(&recs.v[held].pairs, key)))
                continue;
            user_conf(p->pid, env, len, &user, &uname, &u);
            vanished = u.reason && gone(p->pid);
            break;
        }
        if (vanished) {
            if (o->npids)
                buf_printf(&notes, "pid %d: has exited\n", (int)p->pid);
            buf_free(&u.detail);
            free(env);
            continue;
        }
        checked++;
        bool ok = true;
        if (o->json) {
            buf_printf(&out, "%s\n    {\"pid\": %d, \"command\": ", checked > 1 ? "," : "",
                       (int)p->pid);
            json_string(&out, p->comm);
            buf_printf(&out, ", \"python\": %s, \"nccl\": %s", p->python ? "true" : "false",
                       p->nccl ? "true" : "false");
        } else {
            buf_printf(&out, "%-7d ", (int)p->pid);
            text_cell(&out, p->comm, 15);
        }
        if (u.reason) {
            unreadable++;
            if (o->json) {
                buf_str(&out, ", \"verified\": false, \"reason\": ");
                json_string(&out, u.reason);
                buf_str(&out, ", \"detail\": ");
                json_string(&out, u.detail.data);
                buf_str(&out, ", \"ok\": false}");
            } else {
                buf_printf(&out, " not verified: %s", u.reason);
                end_row(&out);
                buf_printf(&notes, "pid %d: not verified: %s\n", (int)p->pid, u.detail.data);
            }
            buf_free(&u.detail);
            free(env);
            continue;
        }
        const struct record *rec = held >= 0 ? &recs.v[held] : NULL;
        if (o->json) {
            buf_str(&out, ", \"verified\": true, \"site_digest\": ");
            if (rec && rec->digest)
                json_string(&out, rec->digest);
            else
                buf_str(&out, "null");
            buf_str(&out, ", \"variables\": {");
        }
        unsigned shown = 0;
        for (size_t k = 0; k < want.n; k++) {
            const char *key = want.v[k].key, *wv = want.v[k].value, *have = NULL;
            if (strncmp(key, "NCCL_INIT_", 10) == 0)
                continue;
            int via = VIA_MISSING;
            const char *ev = env_of(env, len, key);
            const char *sv = rec ? lookup(&rec->pairs, key) : NULL;
            /* NCCL reads the user's file first; the first file with a key wins */
            const char *uv = lookup(&user, key);
            const char *cv = uv                             ? uv
                             : strncmp(key, "NCCL_", 5) == 0 ? lookup(&conf, key)
                                                             : NULL;
            /* The hook carries only values that are valid UTF-8. */
            if (sv && !utf8_valid(sv, strlen(sv)))
                sv = NULL;
            if (ev) {
                via = strcmp(ev, wv) == 0 ? VIA_ENV : VIA_CONFLICT;
                have = ev;
            } else if (sv) {
                via = strcmp(sv, wv) == 0 ? VIA_SITE : VIA_CONFLICT;
                have = sv;
            } else if (cv) {
                via = strcmp(cv, wv) == 0 ? VIA_CONF : VIA_CONFLICT;
                have = cv;
            }
            ok = ok && via < VIA_MISSING;
            if (via == VIA_CONFLICT && !o->json) {
                buf_printf(&notes, "pid %d: ", (int)p->pid);
                text_escaped(&notes, key);
                buf_str(&notes, "=");
                text_escaped(&notes, have);
                if (!ev && sv) {
                    cell.len = 0;
                    buf_printf(&cell, "%.12s", rec->digest ? rec->digest : "?");
                    buf_str(&notes, " (by the site hook, from an older record, digest ");
                    text_escaped(&notes, cell.data);
                    buf_str(&notes, ")");
                } else if (!ev && uv) {
                    buf_str(&notes, " (from ");
                    text_escaped(&notes, uname.data);
                    buf_str(&notes, ", read before /etc/nccl.conf)");
                }
                buf_str(&notes, ", the profile says ");
                text_escaped(&notes, wv);
                buf_str(&notes, "\n");
            }
            if (o->json) {
                buf_str(&out, shown++ ? ", " : "");
                json_string(&out, key);
                buf_printf(&out, ": {\"via\": \"%s\", \"value\": ", via_names[via]);
                if (have)
                    json_string(&out, have);
                else
                    buf_str(&out, "null");
                if (!ev && !sv && uv) {
                    buf_str(&out, ", \"file\": ");
                    json_string(&out, uname.data);
                }
                buf_str(&out, "}");
            } else {
                buf_printf(&out, " %-10s", via_names[via]);
            }
        }
        good += ok;
        if (o->json)
            buf_str(&out, ok ? "}, \"ok\": true}" : "}, \"ok\": false}");
        else
            end_row(&out);
        free(env);
    }
    if (outside && !o->json)
        buf_printf(&notes, "not checked: %u process%s outside nccl-init's tree whose memory map "
                           "cannot be read, to tell whether it loaded NCCL (pid %s)\n",
                   outside, outside == 1 ? "" : "es", unread.data);
    const char *profile = lookup(&want, "NCCL_INIT_PROFILE");
    if (o->json) {
        buf_printf(&out, "\n  ],\n  \"checked\": %u,\n  \"not_verified\": %u,\n"
                         "  \"not_checked_outside_tree\": %u,\n  \"ok\": %s\n}\n",
                   checked, unreadable, outside, good == checked ? "true" : "false");
    } else {
        buf_printf(&out, "%s%u process%s checked, %u with every value",
                   notes.data ? notes.data : "", checked, checked == 1 ? "" : "es", good);
        if (unreadable)
            buf_printf(&out, ", %u not verified", unreadable);
        buf_str(&out, " (profile ");
        text_escaped(&out, profile ? profile : "?");
        buf_str(&out, ", digest ");
        cell.len = 0;
        buf_printf(&cell, "%.12s", digest ? digest : "?");
        text_escaped(&out, cell.data);
        buf_str(&out, ")\n");
    }
    write_all(STDOUT_FILENO, out.data, out.len);
    return good == checked ? 0 : 1;
}
