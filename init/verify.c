#include "verify.h"

#include "log.h"
#include "procfs.h"
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define APPLIED "/run/nccl-init/applied"

struct kv {
    char *key, *value;
};

struct set {
    struct kv *v;
    size_t n, cap;
};

/* KEY=VALUE lines of an env-file or nccl.conf; '#' lines skipped. NCCL's
 * conf reader takes the first value of a key (setenv without overwrite). */
static void read_pairs(struct set *s, const char *path, bool nccl_only)
{
    char *text;
    size_t len;
    if (read_file(path, 1 << 20, &text, &len) < 0)
        return;
    for (char *line = text, *next; line && *line; line = next) {
        next = strchr(line, '\n');
        if (next)
            *next++ = '\0';
        char *eq = strchr(line, '=');
        if (line[0] == '#' || !eq || (nccl_only && strncmp(line, "NCCL_", 5) != 0))
            continue;
        grow((void **)&s->v, &s->cap, s->n + 1, sizeof *s->v);
        s->v[s->n++] = (struct kv){ xstrndup(line, (size_t)(eq - line)), xstrdup(eq + 1) };
    }
    free(text);
}

static const char *lookup(const struct set *s, const char *key)
{
    for (size_t i = 0; i < s->n; i++)
        if (strcmp(s->v[i].key, key) == 0)
            return s->v[i].value;
    return NULL;
}

struct proc {
    pid_t pid, ppid;
    unsigned long long start; /* clock ticks after boot */
    char comm[32];
    bool python, nccl, wanted;
};

static int cmp_pid(const void *a, const void *b)
{
    pid_t x = ((const struct proc *)a)->pid, y = ((const struct proc *)b)->pid;
    return (x > y) - (x < y);
}

static char *proc_file(pid_t pid, const char *name, size_t max, size_t *len)
{
    char path[48], *text;
    struct buf b = BUF_FIXED(path);
    buf_printf(&b, "/proc/%d/%s", (int)pid, name);
    return read_file(path, max, &text, len) == 0 ? text : NULL;
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
    p->start = st.start;
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
    char *maps = proc_file(pid, "maps", 64 << 20, &len);
    p->nccl = maps && find_bytes(maps, len, "/libnccl", 8);
    free(maps);
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

/* The site hook's note: /run/nccl-init/applied/PID, a symlink whose target
 * is "DIGEST:KEY,KEY...", made by the process itself (same owner) after it
 * started (not a note left by an earlier process with the same pid). */
static char *site_note(const char *dir, const struct proc *p, unsigned long long btime)
{
    char *path, note[4096];
    struct buf b = { 0 };
    buf_printf(&b, "%s/%d", dir, (int)p->pid);
    path = b.data;
    struct stat st, ps;
    char proc[32];
    struct buf pb = BUF_FIXED(proc);
    buf_printf(&pb, "/proc/%d", (int)p->pid);
    ssize_t n = -1;
    if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode) && stat(proc, &ps) == 0 &&
        st.st_uid == ps.st_uid &&
        (unsigned long long)st.st_mtime + 1 >= btime + p->start / (unsigned long long)sysconf(_SC_CLK_TCK))
        n = readlink(path, note, sizeof note - 1);
    buf_free(&b);
    if (n <= 0)
        return NULL;
    note[n] = '\0';
    return xstrdup(note);
}

static bool note_has(const char *note, const char *key)
{
    const char *s = strchr(note, ':');
    size_t kl = strlen(key);
    for (s = s ? s + 1 : note + strlen(note); *s; s += strcspn(s, ","), s += *s == ',')
        if (strncmp(s, key, kl) == 0 && (s[kl] == ',' || s[kl] == '\0'))
            return true;
    return false;
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

int verify(const struct verify_options *o)
{
    const char *root = o->root ? o->root : "";
    struct buf path = { 0 };
    struct set want = { 0 }, conf = { 0 };
    buf_printf(&path, "%s/run/nccl-init/profile.env", root);
    read_pairs(&want, path.data, false);
    if (!want.n)
        die(EXIT_USAGE, "verify: no resolved set in %s (is nccl-init running here?)", path.data);
    const char *digest = lookup(&want, "NCCL_INIT_DIGEST");
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
    path.len = 0;
    buf_printf(&path, "%s" APPLIED, root);
    unsigned long long btime = 0;
    char *ps;
    long long v;
    if (read_file("/proc/stat", 1 << 20, &ps, &len) == 0) {
        const char *bt = find_bytes(ps, len, "\nbtime ", 7);
        if (bt && parse_c_integer(bt + 7, &v))
            btime = (unsigned long long)v;
        free(ps);
    }

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
    }

    struct buf out = { 0 };
    unsigned checked = 0, good = 0;
    if (o->json)
        buf_printf(&out, "{\n  \"digest\": \"%s\",\n  \"processes\": [", digest ? digest : "");
    else {
        buf_printf(&out, "%-7s %-15s", "PID", "COMMAND");
        for (size_t k = 0; k < want.n; k++)
            if (strncmp(want.v[k].key, "NCCL_INIT_", 10) != 0)
                buf_printf(&out, " %-10.10s", want.v[k].key + (strncmp(want.v[k].key, "NCCL_", 5) ? 0 : 5));
        end_row(&out);
    }
    struct buf notes = { 0 };
    for (size_t i = 0; i < n; i++) {
        struct proc *p = &procs[i];
        if (!p->wanted)
            continue;
        char *env = proc_file(p->pid, "environ", 1 << 20, &len);
        if (!env) {
            if (o->npids)
                buf_printf(&notes, "pid %d: cannot read its environment: %s\n", (int)p->pid,
                           errstr(errno));
            continue;
        }
        char *note = p->python ? site_note(path.data, p, btime) : NULL;
        checked++;
        bool ok = true;
        if (o->json)
            buf_printf(&out, "%s\n    {\"pid\": %d, \"command\": ", checked > 1 ? "," : "",
                       (int)p->pid);
        else
            buf_printf(&out, "%-7d %-15s", (int)p->pid, p->comm);
        if (o->json) {
            json_string(&out, p->comm);
            buf_printf(&out, ", \"python\": %s, \"nccl\": %s, \"variables\": {",
                       p->python ? "true" : "false", p->nccl ? "true" : "false");
        }
        unsigned shown = 0;
        for (size_t k = 0; k < want.n; k++) {
            const char *key = want.v[k].key, *wv = want.v[k].value, *have = NULL;
            if (strncmp(key, "NCCL_INIT_", 10) == 0)
                continue;
            int via = VIA_MISSING;
            const char *ev = env_of(env, len, key);
            const char *cv = strncmp(key, "NCCL_", 5) == 0 ? lookup(&conf, key) : NULL;
            if (ev) {
                via = strcmp(ev, wv) == 0 ? VIA_ENV : VIA_CONFLICT;
                have = ev;
            } else if (note && note_has(note, key)) {
                bool same = digest && strncmp(note, digest, strlen(digest)) == 0;
                via = same ? VIA_SITE : VIA_CONFLICT;
                have = same ? wv : "(an older profile, by the site hook)";
            } else if (cv) {
                via = strcmp(cv, wv) == 0 ? VIA_CONF : VIA_CONFLICT;
                have = cv;
            }
            ok = ok && via < VIA_MISSING;
            if (via == VIA_CONFLICT)
                buf_printf(&notes, "pid %d: %s=%s, the profile says %s\n", (int)p->pid, key, have,
                           wv);
            if (o->json) {
                buf_str(&out, shown++ ? ", " : "");
                json_string(&out, key);
                buf_printf(&out, ": {\"via\": \"%s\", \"value\": ", via_names[via]);
                if (have)
                    json_string(&out, have);
                else
                    buf_str(&out, "null");
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
        free(note);
        free(env);
    }
    if (o->json)
        buf_printf(&out, "\n  ],\n  \"checked\": %u,\n  \"ok\": %s\n}\n", checked,
                   good == checked ? "true" : "false");
    else
        buf_printf(&out, "%s%u process%s checked, %u with every value (profile %s, digest %.12s)\n",
                   notes.data ? notes.data : "", checked, checked == 1 ? "" : "es", good,
                   lookup(&want, "NCCL_INIT_PROFILE") ? lookup(&want, "NCCL_INIT_PROFILE") : "?",
                   digest ? digest : "?");
    write_all(STDOUT_FILENO, out.data, out.len);
    return good == checked ? 0 : 1;
}
