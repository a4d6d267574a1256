#include "inspect/verify.h"

#include "nccl/nccl_lib.h"
#include "nccl/plugin_keys.h"
#include "nccl/profile.h"
#include "lib/elf.h"
#include "lib/proc_scan.h"
#include "lib/procfs.h"
#include "lib/fileio.h"
#include "lib/mem.h"
#include "lib/paths.h"
#include "lib/sort.h"
#include "lib/text.h"
#include "lib/witness.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/vfs.h>
#include <unistd.h>

/* What an execve can pass is at most 6 MiB (3/4 of _STK_LIM); only
 * prctl(PR_SET_MM) makes /proc/PID/environ larger. Read it whole up to
 * this, and call a larger one unreadable rather than guess. */
#define ENVIRON_MAX (32u << 20)
/* This bounds a read of a conf file or state.json; a record is read up to
 * one byte more than its readers take (RECORD_SIZE_MAX, lib/paths.h). */
#define RECORD_MAX (1u << 20)

struct kv {
    char *key, *value;
};

struct set {
    struct kv *v;
    size_t n, cap;
};

/* KEY=VALUE lines of an env-file or nccl.conf (kv_next: '#' lines
 * skipped), lines without '=' skipped, read up to the first NUL. NCCL's
 * conf reader takes the first value of a key (setenv without overwrite). */
static void parse_pairs(struct set *s, char *text, bool nccl_only)
{
    struct kv_reader r;
    struct kv_line l;
    kv_begin(&r, text, strlen(text));
    while (kv_next(&r, &l)) {
        if (!l.value || (nccl_only && strncmp(l.key, "NCCL_", 5) != 0))
            continue;
        /* NCCL's setEnvFile keeps at most NCCL_CONF_MAX bytes of a key and
         * of a value; an env-file keeps them whole. */
        size_t kl = l.key_len, vl = l.value_len, cut = nccl_only ? NCCL_CONF_MAX : vl + kl;
        grow((void **)&s->v, &s->cap, s->n + 1, sizeof *s->v);
        s->v[s->n++] = (struct kv){ xstrndup(l.key, kl < cut ? kl : cut),
                                    xstrndup(l.value, vl < cut ? vl : cut) };
    }
}

static const char *lookup(const struct set *s, const char *key)
{
    for (size_t i = 0; i < s->n; i++)
        if (strcmp(s->v[i].key, key) == 0)
            return s->v[i].value;
    return NULL;
}

static bool key_char(unsigned char c, bool first)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_' ||
           (!first && c >= '0' && c <= '9');
}

/* Whether text is a record its readers (the env plugin, plugin/record.c,
 * and the Python hook) take: at most RECORD_LINES_MAX lines, each
 * KEY=VALUE within RECORD_LINE_MAX bytes, a key [A-Za-z_][A-Za-z0-9_]*
 * once, no control byte, with NCCL_INIT_DIGEST, RECORD_ENFORCE only 1.
 * verify takes values from a record only when a reader could have. */
static bool record_parses(const char *text, size_t len)
{
    if (len == 0 || len > RECORD_SIZE_MAX || text[len - 1] != '\n')
        return false;
    const char *keys[RECORD_LINES_MAX];
    size_t klen[RECORD_LINES_MAX], n = 0;
    bool digest = false;
    for (const char *p = text, *end = text + len; p < end; n++) {
        const char *eol = memchr(p, '\n', (size_t)(end - p)), *q = p;
        if (n == RECORD_LINES_MAX || (size_t)(eol - p) > RECORD_LINE_MAX)
            return false;
        while (q < eol && key_char((unsigned char)*q, q == p))
            q++;
        if (q == p || q == eol || *q != '=')
            return false;
        for (const char *c = q + 1; c < eol; c++)
            if ((unsigned char)*c < 0x20 || *c == 0x7f)
                return false;
        keys[n] = p;
        klen[n] = (size_t)(q - p);
        for (size_t i = 0; i < n; i++)
            if (klen[i] == klen[n] && memcmp(keys[i], p, klen[n]) == 0)
                return false;
        size_t vl = (size_t)(eol - q - 1);
        if (klen[n] == 16 && memcmp(p, "NCCL_INIT_DIGEST", 16) == 0)
            digest = vl > 0;
        if (klen[n] == sizeof RECORD_ENFORCE - 1 && memcmp(p, RECORD_ENFORCE, klen[n]) == 0 &&
            !(vl == 1 && q[1] == '1'))
            return false;
        p = eol + 1;
    }
    return digest;
}

/* Whether a record has the line RECORD_ENFORCE=1 (a start with --enforce). */
static bool enforced(const struct set *record)
{
    const char *e = lookup(record, RECORD_ENFORCE);
    return e && strcmp(e, "1") == 0;
}

/* A record file as some process holds it open: the current one (index 0)
 * or an older one that a later start replaced (its name says
 * "(deleted)"). Each distinct file is read once. */
struct record {
    dev_t dev;
    ino_t ino;
    struct set pairs;
    const char *digest;
    bool enforce; /* RECORD_ENFORCE=1: the env plugin gives its values first */
    bool trusted; /* a file and a text its readers would take (record_parses) */
};

struct records {
    struct record *v;
    size_t n, cap;
    uid_t owner; /* of the current record: an older one must match */
};

/* A process as the walk of /proc found it. */
struct proc {
    pid_t pid, ppid;
    /* the thread its files are read through: pid itself, or a live thread
     * of its group when its main thread has exited (pthread_exit) and the
     * others run on; 0: none, it has exited (or is a kernel thread) */
    pid_t task;
    char dir[48]; /* /proc/PID, or /proc/PID/task/TASK */
    unsigned long long start; /* clock ticks after boot: a reused pid has another */
    char comm[32];
    bool kthread; /* PF_KTHREAD: a kernel thread, which runs no program */
    /* python: a CPython runtime is in it, mapped as a libpython3.N.so
     * (maps_libpython) or inside its executable (python_exe), whatever
     * the program is named */
    bool python, nccl, wanted;
    bool unknown; /* wanted only because its map could not be read */
    int maps_err; /* errno reading /proc/PID/maps; 0 when read */
    char *lib;    /* the first line of its map that names a libnccl.so, or NULL */
};

static int cmp_pid(const void *a, const void *b)
{
    pid_t x = ((const struct proc *)a)->pid, y = ((const struct proc *)b)->pid;
    return (x > y) - (x < y);
}

/* 0, or -errno; *text is NUL-terminated. */
static int proc_file(const struct proc *p, const char *name, size_t max, char **text, size_t *len)
{
    char path[80];
    struct buf b = BUF_FIXED(path);
    buf_printf(&b, "%s/%s", p->dir, name);
    return read_file(path, max, text, len);
}

/* The digits at s, as a number; *end after them. */
static long long decimal(char *s, char **end)
{
    long long v = 0;
    for (*end = s; **end >= '0' && **end <= '9' && v < (1ll << 40); ++*end)
        v = v * 10 + (**end - '0');
    return v;
}

/* A zombie, or dying. */
static bool exited(char state)
{
    return state == 'Z' || state == 'X';
}

/* The kernel's PF_KTHREAD (include/linux/sched.h), in /proc/PID/stat's
 * flags: set for kernel threads alone. */
#define PF_KTHREAD 0x00200000ul

/* The thread to read pid's files through, state its /proc/PID/stat's: pid
 * while its main thread runs. A main thread that has exited while others
 * run on (pthread_exit: "Zl" in ps) is a zombie, its memory and
 * descriptors gone from /proc/PID's files; then a live thread of its
 * group, whose /proc/PID/task/TID has them. 0 when none is live: the
 * process has exited. */
static pid_t live_task(pid_t pid, char state)
{
    if (!exited(state))
        return pid;
    char dir[40];
    struct buf d = BUF_FIXED(dir);
    buf_printf(&d, "/proc/%d/task", (int)pid);
    DIR *tasks = opendir(dir);
    pid_t live = 0;
    for (struct dirent *e; tasks && !live && (e = readdir(tasks));) {
        char *end;
        long long tid = decimal(e->d_name, &end);
        struct proc_stat st;
        /* /proc/TID/stat is that thread's */
        if (*end == '\0' && end > e->d_name && tid != pid &&
            proc_stat_read((pid_t)tid, &st) && !exited(st.state))
            live = (pid_t)tid;
    }
    if (tasks)
        closedir(tasks);
    return live;
}

/* The process has exited (or is exiting) since the walk of /proc, or its
 * pid is another process's by now: not an error, it simply is no longer
 * there to check. */
static bool gone(const struct proc *p)
{
    struct proc_stat st;
    return !proc_stat_read(p->pid, &st) || st.start != p->start || !live_task(p->pid, st.state);
}

/* The O_PATH descriptor pfd (closed here) opened for reading, when it is a
 * regular file of at most max bytes: open_regular_file's second half. */
static int reopen_regular(int pfd, size_t max, struct stat *st)
{
    int e = fstat(pfd, st) < 0            ? -errno
            : S_ISLNK(st->st_mode)        ? -ELOOP
            : !S_ISREG(st->st_mode)       ? -EINVAL
            : (size_t)st->st_size > max   ? -EFBIG
                                          : 0;
    char self[40];
    struct buf b = BUF_FIXED(self);
    buf_printf(&b, "/proc/self/fd/%d", pfd);
    int fd = e < 0 ? e : open(self, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0 && e == 0)
        e = -errno;
    struct stat again;
    if (e == 0 && (fstat(fd, &again) < 0 || again.st_dev != st->st_dev ||
                   again.st_ino != st->st_ino || !S_ISREG(again.st_mode)))
        e = -ESTALE;
    close(pfd);
    if (e < 0 && fd >= 0)
        close(fd);
    return e < 0 ? e : fd;
}

/* Opens path (a file of another process's, or one that others may write)
 * for reading, only when it is a regular file of at most max bytes: first
 * O_PATH, which opens nothing (a FIFO cannot block, a device cannot act),
 * then, once fstat has said so, for reading through /proc/self/fd: the
 * same file, O_NONBLOCK. nofollow: a symbolic link at path is refused
 * (-ELOOP); without it /proc's magic links (fd/N, map_files/...) are
 * followed. Returns the descriptor with *st, or -errno: -EINVAL not a
 * regular file, -EFBIG larger than max. */
static int open_regular_file(const char *path, bool nofollow, size_t max, struct stat *st)
{
    int pfd = open(path, O_PATH | O_CLOEXEC | (nofollow ? O_NOFOLLOW : 0));
    return pfd < 0 ? -errno : reopen_regular(pfd, max, st);
}

/* The whole of such a file, NUL-terminated: 0 or -errno (-EFBIG: over max). */
static int read_regular_file(const char *path, bool nofollow, size_t max, struct stat *st,
                             char **text, size_t *len)
{
    int fd = open_regular_file(path, nofollow, max, st);
    return fd < 0 ? fd : read_fd(fd, st->st_size, max, text, len);
}

/* openat2(2), which musl and glibc do not wrap: its number is the same on
 * every architecture (the unified syscall table, Linux 5.6), and
 * struct open_how is linux/openat2.h's. */
#ifndef SYS_openat2
#define SYS_openat2 437
#endif
#ifndef RESOLVE_IN_ROOT
#define RESOLVE_IN_ROOT 0x10
#endif
struct open_how_v0 {
    uint64_t flags, mode, resolve;
};

/* Opens name, an absolute path as the process whose files are under dir
 * (/proc/PID) sees it, as open_regular_file does: in its root
 * (dir/root), following symbolic links as the process would. With
 * RESOLVE_IN_ROOT an absolute link (and "..") resolves inside that root;
 * the kernel resolves one met under dir/root against verify's own root
 * instead. Without openat2 (ENOSYS before Linux 5.6; EPERM from a seccomp
 * filter that predates it), the path under dir/root is what is opened. */
static int open_in_root(const char *dir, const char *name, bool nofollow, size_t max,
                        struct stat *st)
{
    struct buf b = { 0 };
    buf_printf(&b, "%s/root", dir);
    int rfd = open(b.data, O_PATH | O_DIRECTORY | O_CLOEXEC), pfd = -1, e = rfd < 0 ? errno : 0;
    struct open_how_v0 how = { O_PATH | O_CLOEXEC | (nofollow ? O_NOFOLLOW : 0), 0,
                               RESOLVE_IN_ROOT };
    /* EAGAIN: a rename raced with a ".." in the walk; the kernel asks for a retry */
    for (int tries = 0; rfd >= 0 && (tries == 0 || (e == EAGAIN && tries < 4)); tries++) {
        pfd = (int)syscall(SYS_openat2, rfd, name, &how, sizeof how);
        e = pfd < 0 ? errno : 0;
    }
    if (rfd >= 0)
        close(rfd);
    if (pfd < 0 && (e == ENOSYS || e == EPERM)) {
        buf_str(&b, name);
        pfd = open(b.data, how.flags);
        e = pfd < 0 ? errno : 0;
    }
    buf_free(&b);
    return pfd < 0 ? -e : reopen_regular(pfd, max, st);
}

/* The whole of such a file (open_in_root), NUL-terminated: 0 or -errno. */
static int read_in_root(const char *dir, const char *name, size_t max, char **text, size_t *len)
{
    struct stat st;
    int fd = open_in_root(dir, name, false, max, &st);
    return fd < 0 ? fd : read_fd(fd, st.st_size, max, text, len);
}

/* Whether a map names a CPython runtime library, as a "/libpython3.N.so"
 * file (3.N: "libpython3.11.so.1.0"; an ABI flag may follow the minor,
 * "libpython3.7m.so", "libpython3.13t.so"): an interpreter embedded in a
 * program of any name, or a python linked with --enable-shared. */
static bool maps_libpython(const char *maps, size_t len)
{
    for (const char *q = maps; (q = memmem(q, len - (size_t)(q - maps), "/libpython3.", 12));) {
        q += 12;
        const char *d = q;
        while (d < maps + len && *d >= '0' && *d <= '9')
            d++;
        if (d == q)
            continue;
        while (d < maps + len && *d >= 'a' && *d <= 'z')
            d++;
        if ((size_t)(maps + len - d) >= 3 && memcmp(d, ".so", 3) == 0)
            return true;
    }
    return false;
}

/* An executable already looked at (python_exe), by device and inode: the
 * workers of one server run one program. */
struct exe_seen {
    dev_t dev;
    ino_t ino;
    bool python;
};

struct exes {
    struct exe_seen *v;
    size_t n, cap;
};

/* Whether p's executable has the CPython runtime inside it: it defines
 * Py_Initialize, which every CPython 3 has and exports from a static
 * build for its extension modules (Debian's /usr/bin/python3.11), whatever
 * the file is named and wherever it lies. Read through /proc/PID/exe (the
 * file itself, however long its path, deleted or not; the same ptrace
 * rights as its environment); false when it cannot be read. */
static bool python_exe(const struct proc *p, struct exes *seen)
{
    char exe[64];
    struct buf b = BUF_FIXED(exe);
    buf_printf(&b, "%s/exe", p->dir);
    struct stat st;
    int fd = open_regular_file(exe, false, SIZE_MAX, &st);
    if (fd < 0)
        return false;
    for (size_t i = 0; i < seen->n; i++)
        if (seen->v[i].dev == st.st_dev && seen->v[i].ino == st.st_ino) {
            close(fd);
            return seen->v[i].python;
        }
    bool python = elf_defines(fd, (size_t)st.st_size, "Py_Initialize");
    close(fd);
    grow((void **)&seen->v, &seen->cap, seen->n + 1, sizeof *seen->v);
    seen->v[seen->n++] = (struct exe_seen){ st.st_dev, st.st_ino, python };
    return python;
}

/* 0, or -ESRCH when the process is gone. A map that cannot be read is
 * not a failure here: p->maps_err keeps why, for select_procs to judge.
 * A kernel thread, or a process that has exited, has nothing more to
 * read (p->task 0). */
static int read_proc(pid_t pid, struct proc *p)
{
    size_t len;
    struct proc_stat st;
    if (!proc_stat_read(pid, &st))
        return -ESRCH;
    memset(p, 0, sizeof *p);
    p->pid = pid;
    p->ppid = st.ppid;
    p->start = st.start;
    memcpy(p->comm, st.comm, sizeof p->comm);
    /* not by an environ that cannot be read: some kernels give a kernel
     * thread's as empty, which would read as a process without the set */
    p->kthread = (st.flags & PF_KTHREAD) != 0;
    p->task = p->kthread ? 0 : live_task(pid, st.state);
    if (!p->task)
        return 0;
    struct buf dir = BUF_FIXED(p->dir);
    if (p->task == pid)
        buf_printf(&dir, "/proc/%d", (int)pid);
    else
        buf_printf(&dir, "/proc/%d/task/%d", (int)pid, (int)p->task);
    /* libnccl mapped: NCCL is (or will be) in this process */
    char *maps;
    int e = proc_file(p, "maps", 64 << 20, &maps, &len);
    if (e == 0) {
        /* a Python runtime in a library; one inside the executable is
         * python_exe's to tell, for the processes that may be checked */
        p->python = maps_libpython(maps, len);
        p->nccl = memmem(maps, len, "/libnccl", 8) != NULL;
        const char *l = p->nccl ? memmem(maps, len, "/libnccl.so", 11) : NULL, *end = l;
        while (l && l > maps && l[-1] != '\n')
            l--;
        while (end && end < maps + len && *end != '\n')
            end++;
        p->lib = l ? xstrndup(l, (size_t)(end - l)) : NULL;
        xfree(maps);
    } else {
        p->maps_err = -e;
    }
    return 0;
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

/* Whether a file could be a record its readers take: regular, owned by
 * the current record's owner, writable by no group or others, not larger
 * than RECORD_SIZE_MAX. (Its directory, checked by the reader when it
 * opened it, is not there to look at any more: the file may be deleted.) */
static bool record_file_ok(const struct stat *st, uid_t owner)
{
    return S_ISREG(st->st_mode) && st->st_uid == owner && !(st->st_mode & (S_IWGRP | S_IWOTH)) &&
           st->st_size <= RECORD_SIZE_MAX;
}

/* The record behind one of a process's descriptors (link:
 * /proc/PID/fd/N), or NULL when it is not a record of nccl-init's that its
 * readers would take: another file, closed meanwhile, not the current
 * record's owner's, writable by others, or a text they refuse
 * (record_parses). An older record, replaced since, is read through the
 * descriptor (to know the values the hook applied then) and added to rs. */
static const struct record *record_of_fd(struct records *rs, const char *link)
{
    char target[4096];
    ssize_t n = readlink(link, target, sizeof target - 1);
    if (n <= 0 || !(ends_with(target, (size_t)n, RECORD_ENV) ||
                    ends_with(target, (size_t)n, RECORD_ENV " (deleted)")))
        return NULL;
    /* what is checked is what is read: one descriptor of the file */
    struct stat st;
    int fd = open_regular_file(link, false, RECORD_SIZE_MAX, &st);
    if (fd < 0)
        return NULL;
    if (!record_file_ok(&st, rs->owner)) {
        close(fd);
        return NULL;
    }
    for (size_t i = 0; i < rs->n; i++)
        if (rs->v[i].dev == st.st_dev && rs->v[i].ino == st.st_ino) {
            close(fd);
            return rs->v[i].trusted ? &rs->v[i] : NULL;
        }
    struct record r = { st.st_dev, st.st_ino, { 0 }, NULL, false, true };
    char *text;
    size_t len;
    if (read_fd(fd, st.st_size, RECORD_SIZE_MAX, &text, &len) < 0)
        return NULL;
    bool ok = record_parses(text, len);
    if (ok)
        parse_pairs(&r.pairs, text, false);
    xfree(text);
    r.digest = lookup(&r.pairs, "NCCL_INIT_DIGEST");
    if (!ok || !r.digest)
        return NULL; /* not a record nccl-init wrote, nor one a reader took */
    r.enforce = enforced(&r.pairs);
    grow((void **)&rs->v, &rs->cap, rs->n + 1, sizeof *rs->v);
    rs->v[rs->n] = r;
    return &rs->v[rs->n++];
}

/* The kernel's O_PATH and O_CLOEXEC as /proc/PID/fdinfo/N's "flags:"
 * field writes them, in octal (Linux's uapi asm-generic/fcntl.h; musl and
 * glibc define them as the same bits on x86_64 and aarch64). fdinfo sets
 * O_CLOEXEC from the descriptor's FD_CLOEXEC as it is now. */
#define FDINFO_PATH 010000000
#define FDINFO_CLOEXEC 02000000

/* Who opened a record descriptor, by its fdinfo flags. */
enum holder { HELD_BY_NONE, HELD_BY_SITE, HELD_BY_PLUGIN };

/* Which reader the descriptor behind /proc/PID/fdinfo/N (path) is: the
 * hook and the plugin open the record O_CLOEXEC, the plugin O_PATH. One
 * without O_CLOEXEC crossed an exec (made inheritable, then passed on):
 * the program it was passed to never ran the reader, and it is no
 * evidence (HELD_BY_NONE); one with it was opened by this process image,
 * or by the one it forked from, whose memory (os.environ, the plugin) it
 * has. -errno when it cannot be read (closed meanwhile). */
static int fd_holder(const char *path)
{
    char *text, *end;
    size_t len;
    int e = read_file(path, 4096, &text, &len);
    if (e < 0)
        return e;
    const char *f = memmem(text, len, "flags:\t", 7);
    long long flags = 0;
    for (end = f ? (char *)f + 7 : NULL; end && *end >= '0' && *end <= '7'; end++)
        flags = flags * 8 + (*end - '0');
    xfree(text);
    if (!f)
        return -ENODATA;
    if (!(flags & FDINFO_CLOEXEC))
        return HELD_BY_NONE;
    return flags & FDINFO_PATH ? HELD_BY_PLUGIN : HELD_BY_SITE;
}

/* Which records this process holds open, and who holds them:
 * - the site hook opens the record read-only at start-up and keeps the
 *   descriptor for the life of the process (forked children inherit it
 *   with the environment; exec closes it);
 * - nccl-init's NCCL env plugin, once it has trusted and parsed the record
 *   at NCCL's first init, keeps an O_PATH descriptor of it until NCCL
 *   finalizes the plugin.
 * /proc/PID/fdinfo/N's flags tell the two apart, and whether the reader
 * ran in this process (fd_holder). A read-only one counts only in a Python
 * process (p->python): any program can open the record so (perl's open
 * sets O_CLOEXEC, and the env plugin itself reads it through one for a
 * moment before it keeps its O_PATH one, in a C++ server mid-init), and
 * only the hook, in an interpreter, puts its values into the environment.
 * A plugin's descriptor counts only in a process with a witness of its
 * own (plugin): the plugin writes one at NCCL's first init, so NCCL has
 * asked it. A mapped file named libnccl-env*.so was the evidence before:
 * anything can be given that name, an empty file too.
 * A process may hold both, of the same record or of two (a restart
 * replaced the record between the hook's start and NCCL's init). Only the
 * process itself can put a descriptor in its table, so no other user can
 * forge one or take it away. *site, *plugin: the records' indexes in rs,
 * or -1 for none; the first descriptor of each kind counts. Returns 0, or
 * -errno when its descriptors cannot be read. */
static int held_records(const struct proc *p, bool witnessed, struct records *rs, int *site,
                        int *plugin)
{
    char dir[64];
    struct buf d = BUF_FIXED(dir);
    buf_printf(&d, "%s/fd", p->dir);
    *site = *plugin = -1;
    DIR *fds = opendir(dir);
    if (!fds)
        return -errno;
    int err = 0;
    while (*site < 0 || *plugin < 0) {
        errno = 0;
        struct dirent *e = readdir(fds);
        if (!e) {
            err = errno; /* 0: the end of the table */
            break;
        }
        if (e->d_name[0] < '0' || e->d_name[0] > '9')
            continue;
        char link[96];
        struct buf l = BUF_FIXED(link);
        buf_printf(&l, "%s/%s", dir, e->d_name);
        const struct record *rec = record_of_fd(rs, link);
        if (!rec)
            continue;
        char info[96];
        struct buf i = BUF_FIXED(info);
        buf_printf(&i, "%s/fdinfo/%s", p->dir, e->d_name);
        int who = fd_holder(info); /* < 0: closed meanwhile, neither */
        int *held = who == HELD_BY_SITE && p->python         ? site
                    : who == HELD_BY_PLUGIN && witnessed     ? plugin
                                                             : NULL;
        if (held && *held < 0)
            *held = (int)(rec - rs->v);
    }
    closedir(fds);
    return -err;
}

/* Why a process could not be verified: a short reason for the table and
 * JSON, and what exactly failed. */
struct unverified {
    const char *reason;
    struct buf detail;
};

/* Fills *u with why p's FILE (what it is: "environment"; under p->dir)
 * could not be read, e its errno; returns -e, for the caller to pass on. */
static int cannot_read(struct unverified *u, const struct proc *p, const char *what,
                       const char *file, int e)
{
    bool environ = strcmp(file, "environ") == 0;
    u->reason = e == EACCES || e == EPERM ? "permission denied"
                : e == EFBIG              ? (environ ? "environment over 32 MiB" : "too large")
                                          : xstrdup(strerror(e));
    buf_printf(&u->detail, "cannot read its %s (%s/%s): %s", what, p->dir, file,
               e != EFBIG     ? strerror(e)
               : environ      ? "larger than 32 MiB"
               : *file == 'm' ? "larger than 64 MiB"
                              : "larger than 1 MiB");
    return -e;
}

/* The process's real uid, from /proc/PID/status; -1 when unknown. */
static long long real_uid(const struct proc *p)
{
    char *text, *end;
    size_t len;
    if (proc_file(p, "status", 1 << 16, &text, &len) < 0)
        return -1;
    const char *l = memmem(text, len, "\nUid:\t", 6);
    long long uid = l ? decimal((char *)l + 6, &end) : -1;
    xfree(text);
    return uid;
}

/* 0, or read_regular_file's -errno. */
static int read_pairs(struct set *s, const char *path, bool nccl_only)
{
    char *text;
    size_t len;
    struct stat st;
    int e = read_regular_file(path, false, RECORD_MAX, &st, &text, &len);
    if (e < 0)
        return e;
    parse_pairs(s, text, nccl_only);
    xfree(text);
    return 0;
}

/* "DIR/.nccl.conf" into name, DIR the home of uid in the password
 * database: the process's root's /etc/passwd, else ours. Nothing when
 * neither has the uid. Both are read as regular files only: the first is
 * what the process's user may have put there (a link to a device). */
static void home_conf(const struct proc *p, long long uid, struct buf *name)
{
    char *text, *end;
    size_t len;
    struct stat st;
    if (read_in_root(p->dir, "/etc/passwd", RECORD_MAX, &text, &len) < 0 &&
        read_regular_file("/etc/passwd", false, RECORD_MAX, &st, &text, &len) < 0)
        text = NULL;
    /* name:pw:UID:gid:gecos:DIR:shell, the first line with the uid */
    for (char *l = text; l && *l && !name->len; l = strchr(l, '\n'), l = l ? l + 1 : l) {
        char *c[6];
        int k = 0;
        for (char *q = l; *q && *q != '\n' && k < 6; q++)
            if (*q == ':')
                c[k++] = q + 1;
        if (k == 6 && decimal(c[1], &end) == uid && end > c[1] && end + 1 == c[2])
            buf_printf(name, "%.*s/.nccl.conf", (int)(c[5] - c[4] - 1), c[4]);
    }
    xfree(text);
}

/* The conf file NCCL reads before /etc/nccl.conf in this process
 * (src/misc/param.cc initEnvFunc): $NCCL_CONF_FILE when set and not empty,
 * else ~/.nccl.conf with the home of its real uid in the password database,
 * not $HOME. *name: the path as NCCL sees it (cut at NCCL_CONF_MAX bytes,
 * as NCCL's snprintf does), empty when there is none. Read in the
 * process's root (open_in_root), or through /proc/PID/cwd when relative
 * (an absolute link met there resolves against verify's root). The user
 * may flip the name between a file and a link to a device: what is read
 * is what was checked regular (open_regular_file), and a FIFO or a device
 * is never opened. Missing, a directory or not a regular file
 * (/dev/null): nothing, as for NCCL. Returns 0, or -errno when it is
 * there but unreadable, *u saying why. */
static int user_conf(const struct proc *p, const char *env, size_t len, struct set *s,
                     struct buf *name, struct unverified *u)
{
    const char *f = env_of(env, len, "NCCL_CONF_FILE");
    if (f && *f) {
        buf_str(name, f);
    } else {
        long long uid = real_uid(p);
        if (uid >= 0)
            home_conf(p, uid, name);
    }
    if (!name->len)
        return 0;
    if (name->len > NCCL_CONF_MAX)
        name->data[name->len = NCCL_CONF_MAX] = '\0';
    struct buf path = { 0 };
    bool abs = name->data[0] == '/';
    buf_printf(&path, "%s/%s%s", p->dir, abs ? "root" : "cwd/", name->data);
    char *text;
    size_t tl;
    struct stat st;
    int e = abs ? read_in_root(p->dir, name->data, RECORD_MAX, &text, &tl)
                : read_regular_file(path.data, false, RECORD_MAX, &st, &text, &tl);
    if (e == 0) {
        parse_pairs(s, text, true);
        xfree(text);
    } else if (e == -ENOENT || e == -ENOTDIR || e == -EISDIR || e == -EINVAL) {
        e = 0;
    } else {
        cannot_read(u, p, "NCCL conf file", path.data + strlen(p->dir) + 1, -e);
    }
    buf_free(&path);
    return e;
}

/* The readers' rule for the record they read (doc/sinks.md, "The readers'
 * trust rule"), for verify's own reading of it: root's or this user's,
 * writable by no one else, one link. Its directory may be an emptyDir that
 * anyone can write (0777): what another user could have put there is what
 * this refuses, since the set it names is what every process is judged
 * by, and a record with no keys would pass them all. */
static bool record_owner_ok(const struct stat *st)
{
    return (st->st_uid == 0 || st->st_uid == geteuid()) && !(st->st_mode & (S_IWGRP | S_IWOTH)) &&
           st->st_nlink == 1;
}

/* A decimal number, digits only: the writer's lines as the readers take
 * them (plugin/record.c). */
static bool writer_number(const char *s, unsigned long long *v)
{
    size_t n = s ? strspn(s, "0123456789") : 0;
    if (n == 0 || n > 19 || s[n] || (s[0] == '0' && n > 1))
        return false;
    *v = strtoull(s, NULL, 10);
    return true;
}

/* The readers' writer rule (lib/paths.h, RECORD_WRITER_PID): a record is
 * the current run's only while the nccl-init that wrote it runs. Checked
 * in verify's own /proc: verify runs in the server's PID namespace. 0, or
 * -errno with *why. */
static int check_writer(const struct set *want, const char *path, struct buf *why)
{
    unsigned long long pid, start;
    if (!writer_number(lookup(want, RECORD_WRITER_PID), &pid) || pid == 0 || pid > INT32_MAX ||
        !writer_number(lookup(want, RECORD_WRITER_START), &start)) {
        buf_printf(why, "the resolved set in %s names no writer (" RECORD_WRITER_PID " and "
                        RECORD_WRITER_START "): an older nccl-init wrote it, and its readers "
                        "refuse it", path);
        return -EINVAL;
    }
    struct proc_stat st;
    if (!proc_stat_read((pid_t)pid, &st) || st.start != start || st.state == 'Z' ||
        st.state == 'X') {
        buf_printf(why, "the resolved set in %s was written by nccl-init pid %llu, which is not "
                        "running in this PID namespace: a run that has ended, or an older "
                        "record put back, which its readers refuse (run verify in the "
                        "server's PID namespace, while nccl-init runs)", path, pid);
        return -ESRCH;
    }
    return 0;
}

/* The resolved set, from the record nccl-init wrote: the first of recs,
 * and r's digest, profile and keys. 0, or -errno (-ENODATA: the record
 * holds no pair) with *why saying so. */
static int read_resolved(const char *root, struct set *want, struct records *recs,
                         struct verify_report *r, struct buf *why)
{
    struct buf path = { 0 };
    buf_printf(&path, "%s" RECORD_ENV, root);
    char *text = NULL;
    size_t len = 0;
    /* an emptyDir record directory is anyone's: no link followed, no FIFO
     * opened, and no more read than any record may have */
    struct stat st;
    int e = read_regular_file(path.data, true, RECORD_MAX, &st, &text, &len);
    if (e == 0 && !record_owner_ok(&st)) {
        buf_printf(why, "the resolved set in %s is uid %lu's, mode %04o, %lu link(s): another "
                    "user could have written it; verify takes a record of root's or its own "
                    "user's, writable by no one else, with one link (run verify as root or as "
                    "the server's user)", path.data, (unsigned long)st.st_uid,
                   (unsigned)(st.st_mode & 07777), (unsigned long)st.st_nlink);
        xfree(text);
        buf_free(&path);
        return -EPERM;
    }
    bool parses = e == 0 && record_parses(text, len);
    if (e == 0)
        parse_pairs(want, text, false);
    xfree(text);
    if (e == 0 && !want->n)
        e = -ENODATA;
    if (e == -ENOENT || e == -ENODATA)
        buf_printf(why, "no resolved set in %s (is nccl-init running here?)", path.data);
    else if (e < 0)
        buf_printf(why, "cannot read the resolved set, %s: %s", path.data,
                   e == -ELOOP    ? "a symbolic link"
                   : e == -EINVAL ? "not a regular file"
                                  : strerror(-e));
    if (e == 0)
        e = check_writer(want, path.data, why);
    if (e < 0) {
        buf_free(&path);
        return e;
    }
    r->digest = lookup(want, "NCCL_INIT_DIGEST");
    r->profile = lookup(want, "NCCL_INIT_PROFILE");
    grow((void **)&recs->v, &recs->cap, 1, sizeof *recs->v);
    /* A process that holds it has it from a reader only when a reader
     * could take it: else its descriptor is no evidence. */
    recs->v[recs->n++] = (struct record){ st.st_dev, st.st_ino, *want, r->digest, enforced(want),
                                          parses && record_file_ok(&st, st.st_uid) };
    recs->owner = st.st_uid;
    buf_free(&path);
    r->keys = xmalloc(want->n * sizeof *r->keys);
    for (size_t k = 0; k < want->n; k++)
        if (strncmp(want->v[k].key, "NCCL_INIT_", 10) != 0)
            r->keys[r->nkeys++] = (struct verify_key){ want->v[k].key, want->v[k].value };
    return 0;
}

/* nccl-init's child, from its state file; 0 when unknown. */
static pid_t read_child(const char *root)
{
    struct buf path = { 0 };
    buf_printf(&path, "%s" RECORD_STATE, root);
    char *state;
    size_t len;
    pid_t child = 0;
    struct stat st;
    if (read_regular_file(path.data, true, RECORD_MAX, &st, &state, &len) == 0) {
        const char *c = memmem(state, len, "\"child_pid\": ", 13);
        long long v;
        if (c && parse_c_integer(c + 13, &v))
            child = (pid_t)v;
        xfree(state);
    }
    buf_free(&path);
    return child;
}

/* Every process but ours into *procs, by pid: the parent links make the
 * tree. One that exits during the walk is left out. 0, or the -errno of
 * opening /proc. */
static int read_procs(struct proc **procs, size_t *n)
{
    char dents[4096] __attribute__((aligned(8)));
    struct proc_scan scan;
    size_t cap = 0;
    *procs = NULL;
    *n = 0;
    /* /proc is the caller's, whichever namespace it is */
    int e = proc_scan_open(&scan, dents, sizeof dents, false);
    if (e < 0)
        return e;
    for (pid_t pid; (pid = proc_scan_next(&scan));) {
        grow((void **)procs, &cap, *n + 1, sizeof **procs);
        if (read_proc(pid, &(*procs)[*n]) == 0)
            ++*n;
    }
    proc_scan_close(&scan);
    sort(*procs, *n, sizeof **procs, cmp_pid);
    return 0;
}

static struct proc *find_proc(struct proc *procs, size_t n, pid_t pid)
{
    struct proc key = { .pid = pid };
    /* no process at all (another PID namespace): procs is NULL */
    return n ? bsearch(&key, procs, n, sizeof *procs, cmp_pid) : NULL;
}

/* Why no process was checked, in one line: no process checked is no pass.
 * A record left behind by a server that is gone, and a verify in another
 * PID namespace than the server's (a host's shell, a kubectl debug
 * container without a shared process namespace), both see no process of
 * nccl-init's tree: state.json's child is not in their /proc. */
static char *why_nothing(const struct verify_options *o, const char *root, pid_t child,
                         bool child_seen)
{
    struct buf b = { 0 };
    if (o->npids)
        buf_str(&b, "none of the processes named with --pid could be checked");
    else if (o->all)
        buf_str(&b, "every process but verify itself exited before it could be checked");
    else if (child && !child_seen)
        buf_printf(&b, "nccl-init's child (pid %d in %s" RECORD_STATE ") is not in this /proc: "
                       "is the server running, and is verify in its PID namespace?",
                   (int)child, root);
    else if (!child)
        buf_printf(&b, "no process maps a libnccl, and nccl-init's child is unknown (no "
                       "child_pid in %s" RECORD_STATE "): is verify in the server's PID "
                       "namespace?", root);
    else
        buf_printf(&b, "no process maps a libnccl, and no Python process runs under "
                       "nccl-init's child (pid %d): none holds the profile's evidence",
                   (int)child);
    return b.data;
}

/* Whether p is nccl-init's child or descends from it. */
static bool in_tree(const struct proc *p, struct proc *procs, size_t n, pid_t child)
{
    for (size_t hops = 0; p && hops < n; hops++) {
        if (child && p->pid == child)
            return true;
        p = find_proc(procs, n, p->ppid);
    }
    return false;
}

static bool named(const struct verify_options *o, pid_t pid)
{
    for (size_t k = 0; k < o->npids; k++)
        if (o->pids[k] == pid)
            return true;
    return false;
}

static struct verify_row *add_row(struct verify_report *r, enum verify_row_kind kind, pid_t pid)
{
    grow((void **)&r->rows, &r->cap, r->nrows + 1, sizeof *r->rows);
    struct verify_row *w = &r->rows[r->nrows++];
    *w = (struct verify_row){ .kind = kind, .pid = pid, .lib = -1 };
    return w;
}

/* lib_of for a process that is gone (its library not read, nothing kept). */
#define LIB_GONE (-2)

/* overlayfs's f_type (include/uapi/linux/magic.h) */
#define OVERLAYFS_SUPER_MAGIC 0x794c7630

/* Whether fd (st) is the file that a map line names by "DEV INODE" (id:
 * "MAJ:MIN INODE ...", the kernel's "%02x:%02x %lu"). An inode number
 * alone may be another file system's (two tmpfs number their files
 * alike). On overlayfs the two need not agree on the device: older kernels
 * map the layer's file and name its device, where stat on the overlay's
 * path gives the overlay's (both give the layer's inode number); there the
 * inode number is all there is to compare. */
static bool is_mapped_file(int fd, const struct stat *st, const char *id)
{
    char want[64];
    struct buf b = BUF_FIXED(want);
    buf_printf(&b, "%02x:%02x ", major(st->st_dev), minor(st->st_dev));
    size_t dev_len = b.len;
    buf_printf(&b, "%llu ", (unsigned long long)st->st_ino);
    if (strncmp(id, want, b.len) == 0)
        return true;
    const char *ino = strchr(id, ' ');
    struct statfs fs;
    return ino && strncmp(ino + 1, want + dev_len, b.len - dev_len) == 0 && fstatfs(fd, &fs) == 0 &&
           fs.f_type == OVERLAYFS_SUPER_MAGIC;
}

/* The mapped library at path, open for reading, or -errno: through
 * /proc/PID/map_files/START-END, exactly the file mapped, when we may (that
 * takes CAP_SYS_ADMIN or CAP_CHECKPOINT_RESTORE), else the path in the
 * process's root (open_in_root) when that is still the file mapped, by the
 * map's DEV and INODE (id, is_mapped_file; a library replaced since is
 * "PATH (deleted)" in the map: map_files' error). The process's mount
 * namespace may have put anything there (a FIFO, a device): only a
 * regular file is opened (-EINVAL), and only the file mapped (-ESTALE).
 * map_files is not among /proc/PID/task/TID's files: /proc/TID/map_files
 * is the thread's, when p->task is another (proc(5): /proc/TID is there to
 * open, though a listing of /proc leaves it out). */
static int open_lib(const struct proc *p, const char *range, size_t range_len, const char *path,
                    const char *id)
{
    struct buf b = { 0 };
    struct stat st;
    buf_printf(&b, "/proc/%d/map_files/%.*s", (int)p->task, (int)range_len, range);
    int fd = open_regular_file(b.data, false, SIZE_MAX, &st);
    buf_free(&b);
    if (fd < 0 && !ends_with(path, strlen(path), " (deleted)")) {
        fd = open_in_root(p->dir, path, true, SIZE_MAX, &st);
        if (fd >= 0 && !is_mapped_file(fd, &st, id)) {
            close(fd);
            fd = -ESTALE;
        }
    }
    return fd;
}

/* Which libnccl.so p maps, as an index in r->libs; -1 for none; LIB_GONE
 * when it could not be read because p is gone. Its map line is
 * "START-END PERMS OFFSET DEV INODE PATH", and a library is known by its
 * DEV and INODE: read once (open_lib), however many processes map it. */
static int lib_of(struct verify_report *r, const struct proc *p)
{
    const char *f[6];
    int k = 0;
    for (const char *q = p->lib; q && *q && k < 6;) {
        while (*q == ' ')
            q++;
        f[k++] = q;
        while (k < 6 && *q && *q != ' ')
            q++;
    }
    if (k < 6)
        return -1;
    char *id = xstrndup(f[3], (size_t)(strchr(f[4], ' ') - f[3]));
    for (size_t i = 0; i < r->nlibs; i++)
        if (strcmp(r->libs[i].id, id) == 0) {
            xfree(id);
            return (int)i;
        }
    int fd = open_lib(p, f[0], (size_t)(strchr(f[0], ' ') - f[0]), f[5], f[3]);
    if (fd < 0 && gone(p)) {
        xfree(id);
        return LIB_GONE;
    }
    grow((void **)&r->libs, &r->libcap, r->nlibs + 1, sizeof *r->libs);
    struct verify_lib *l = &r->libs[r->nlibs];
    *l = (struct verify_lib){ id, xstrdup(f[5]), NULL, fd < 0 ? -fd : 0 };
    if (fd >= 0) {
        l->version = nccl_lib_version(fd);
        l->err = l->version ? 0 : ENOEXEC;
        close(fd);
    }
    return (int)r->nlibs++;
}

/* The row of a process that was checked (or that could not be), which
 * maps lib (lib_of). */
static struct verify_row *add_proc_row(struct verify_report *r, enum verify_row_kind kind,
                                       const struct proc *p, int lib)
{
    struct verify_row *w = add_row(r, kind, p->pid);
    memcpy(w->comm, p->comm, sizeof w->comm);
    w->python = p->python;
    w->nccl = p->nccl;
    w->lib = lib;
    r->checked++;
    return w;
}

/* Which processes to check: the options name them, or else those that
 * have NCCL mapped and the Python interpreters in nccl-init's tree. Adds
 * the rows of those that cannot be checked. */
static void select_procs(const struct verify_options *o, struct proc *procs, size_t n,
                         pid_t child, struct verify_report *r)
{
    struct exes seen = { 0 };
    for (size_t i = 0; i < n; i++) {
        struct proc *p = &procs[i];
        bool listed = named(o, p->pid), below = in_tree(p, procs, n, child);
        /* A Python runtime inside the executable is looked for only in
         * the processes that may be checked: the rest may be many. */
        if (!p->python && p->task &&
            (o->all || (o->npids ? listed : p->nccl || below)))
            p->python = python_exe(p, &seen);
        p->wanted = o->all || (o->npids ? listed : p->nccl || (p->python && below));
        /* Without --pid or --all, a process whose map cannot be read may
         * have NCCL loaded. In nccl-init's tree it counts as not verified;
         * outside it (a host's or another user's process) it is named in a
         * note, and the exit status is the tree's. */
        bool unknown = !p->wanted && !o->all && !o->npids && p->maps_err &&
                       p->maps_err != ENOENT && p->maps_err != ESRCH && p->task;
        p->unknown = unknown && below;
        p->wanted = p->wanted || p->unknown;
        if (unknown && !below) {
            add_row(r, ROW_OUTSIDE, p->pid);
            r->outside++;
        }
        /* A kernel thread runs no program, and an exited process that is
         * not yet reaped no more: nothing to check. */
        if (!p->task) {
            if (listed)
                add_row(r, p->kthread ? ROW_KTHREAD : ROW_EXITED, p->pid);
            p->wanted = false;
        }
    }
    xfree(seen.v);
}

/* What decides a process's values besides the resolved set. */
struct evidence {
    char *env; /* its exec-time environment */
    size_t len;
    const struct record *site;   /* the record its site hook holds; NULL: none */
    const struct record *plugin; /* the record nccl-init's env plugin holds; NULL: none */
    struct set user;             /* the user's conf file, when a key needs it */
    struct buf uname;            /* that file's name */
    struct witness wit;          /* what NCCL itself read, when trusted */
};

/* The value the site hook has for key: its record's (the hook applies every
 * line, as bytes; it sets the keys absent from the exec environment, and
 * with an enforced record every key, value_of). */
static const char *site_value(const struct evidence *ev, const char *key)
{
    return ev->site ? lookup(&ev->site->pairs, key) : NULL;
}

/* The value nccl-init's env plugin has for key: the record's, for a key
 * that NCCL asks the plugin for (its own parameters, NCCL_*, and not the
 * ones it reads with getenv before the plugin is loaded). */
static const char *plugin_value(const struct evidence *ev, const char *key)
{
    if (!ev->plugin || strncmp(key, "NCCL_", 5) != 0 || nccl_read_before_plugin(key))
        return NULL;
    return lookup(&ev->plugin->pairs, key);
}

/* Whether key's value is known without the user's conf file: NCCL reads
 * that file only for what the enforced record, the environment and the
 * hook leave unset. */
static bool settled(const struct evidence *ev, const char *key)
{
    const char *pv = plugin_value(ev, key);
    return (pv && ev->plugin->enforce) || env_of(ev->env, ev->len, key) || site_value(ev, key);
}

/* Reads p's evidence. Returns 0, or -errno when what decides its values
 * cannot be read, *u saying what (check tells a process that exited
 * meanwhile from one that could not be read). */
static int gather(const struct proc *p, const struct verify_report *r, struct records *recs,
                  struct evidence *ev, struct unverified *u)
{
    if (p->unknown)
        return cannot_read(u, p, "memory map, to tell whether it loaded NCCL", "maps",
                           p->maps_err);
    /* ESRCH: no memory any more (exiting) */
    int err = proc_file(p, "environ", ENVIRON_MAX, &ev->env, &ev->len);
    if (err < 0)
        return cannot_read(u, p, "environment", "environ", -err);
    /* The records it holds: the site hook's matters for the keys absent
     * from the exec-time environment, and with an enforced record for
     * every key (the hook then overwrites the environment's); the env
     * plugin's, loaded by a libnccl, for every key (an enforced record
     * beats the environment). A process that maps neither a libnccl nor
     * the plugin (libnccl-env.so matches "/libnccl" too), is not Python
     * and has every key in its environment needs neither. */
    bool look = p->nccl || p->python;
    for (size_t k = 0; k < r->nkeys && !look; k++)
        look = !env_of(ev->env, ev->len, r->keys[k].name);
    if (look) {
        int site, plugin;
        err = witness_read(&ev->wit, p->dir, p->start);
        if (err == 0)
            err = held_records(p, ev->wit.state == WITNESS_TRUSTED, recs, &site, &plugin);
        if (err < 0)
            return cannot_read(u, p, "open descriptors", "fd", -err);
        ev->site = site >= 0 ? &recs->v[site] : NULL;
        ev->plugin = plugin >= 0 ? &recs->v[plugin] : NULL;
    }
    /* The user's conf file matters for a key the above leave unset, and
     * for NCCL_ENV_PLUGIN where verify says which plugin NCCL loads. */
    bool need = (p->nccl || ev->plugin) && !settled(ev, "NCCL_ENV_PLUGIN");
    for (size_t k = 0; k < r->nkeys && !need; k++)
        need = !settled(ev, r->keys[k].name);
    if (!need)
        return 0;
    return user_conf(p, ev->env, ev->len, &ev->user, &ev->uname, u);
}

/* How key reaches NCCL in the process, in the order NCCL decides it:
 * 1. with nccl-init's env plugin holding an enforced record that has the
 *    key (one NCCL asks the plugin for), the plugin gives NCCL the
 *    record's value whatever the environment says;
 * 2. with the site hook holding an enforced record that has the key, the
 *    record's value: the hook put it into os.environ over the exec
 *    environment's;
 * 3. its environment; the site hook's record (the hook sets the keys
 *    absent from the environment); the user's conf file (NCCL applies it
 *    with setenv, no overwrite, at its first init);
 * 4. the env plugin's record: NCCL applies /etc/nccl.conf with setenv
 *    before the plugin loads, and the plugin answers with getenv first,
 *    so a different value there is what NCCL gets; else the record's;
 * 5. /etc/nccl.conf. */
static struct verify_value value_of(const struct verify_key *key, const struct evidence *ev,
                                    const struct set *conf)
{
    const char *pv = plugin_value(ev, key->name), *cv = NULL;
    if (strncmp(key->name, "NCCL_", 5) == 0)
        cv = lookup(conf, key->name);
    struct verify_value v = { FROM_NONE, false, NULL, false, NULL };
    const char *have, *sv = site_value(ev, key->name);
    if (pv && ev->plugin->enforce)
        have = pv, v.from = FROM_PLUGIN;
    else if (sv && ev->site->enforce)
        have = sv, v.from = FROM_SITE;
    else if ((have = env_of(ev->env, ev->len, key->name)))
        v.from = FROM_ENV;
    else if ((have = sv))
        v.from = FROM_SITE;
    else if ((have = lookup(&ev->user, key->name)))
        v.from = FROM_USER_CONF;
    else if (pv && cv && strcmp(cv, pv) != 0)
        have = cv, v.from = FROM_CONF, v.over_plugin = true;
    else if (pv)
        have = pv, v.from = FROM_PLUGIN;
    else if ((have = cv))
        v.from = FROM_CONF;
    if (have) {
        v.have = xstrdup(have);
        v.same = strcmp(have, key->value) == 0;
    }
    return v;
}

/* Whether NCCL's answer a is the profile's value: a value cut at
 * WITNESS_VALUE_KEEP bytes is when the profile's is longer and starts so. */
static bool ask_same(const struct witness_ask *a, const char *want)
{
    if (!a->value)
        return false;
    if (!a->cut)
        return strcmp(a->value, want) == 0;
    return strlen(want) > WITNESS_VALUE_KEEP && strlen(a->value) == WITNESS_VALUE_KEEP &&
           strncmp(a->value, want, WITNESS_VALUE_KEEP) == 0;
}

/* NCCL's own word on key in a trusted witness: the last ask of it by each
 * copy (and by copy 0, a caller outside every copy). What every copy that
 * asked read decides; the first that read another value (or nothing)
 * makes it a CONFLICT (MISSING). false when none asked: the key is judged
 * by value_of's guess. */
static bool nccl_read(const struct verify_key *key, const struct witness *w,
                      struct verify_value *v)
{
    const struct witness_ask *decide = NULL;
    for (size_t c = 0; c <= w->ncopies; c++) {
        const struct witness_ask *a =
            witness_last_ask(w, c < w->ncopies ? w->copies[c].copy : 0, key->name);
        if (a && (!decide || (ask_same(decide, key->value) && !ask_same(a, key->value))))
            decide = a;
    }
    if (!decide)
        return false;
    *v = (struct verify_value){ decide->from == WITNESS_NONE ? FROM_NONE : FROM_NCCL,
                                ask_same(decide, key->value),
                                decide->value ? xstrdup(decide->value) : NULL, false, decide };
    return true;
}

/* A checked row's values, from p's evidence. */
static void fill_checked(struct verify_row *w, const struct proc *p, struct evidence *ev,
                         const struct set *conf, const struct verify_report *r)
{
    w->site_digest = ev->site ? ev->site->digest : NULL;
    w->conf_file = ev->uname.data;
    if (p->nccl || ev->plugin) {
        /* NCCL_ENV_PLUGIN is read with getenv before any plugin: the
         * order of value_of without one */
        const struct record *plugin = ev->plugin;
        ev->plugin = NULL;
        w->env_plugin = (struct verify_env_plugin){
            true, plugin ? plugin->digest : NULL, plugin && plugin->enforce,
            value_of(&(struct verify_key){ "NCCL_ENV_PLUGIN", "" }, ev, conf)
        };
        ev->plugin = plugin;
    }
    w->values = xmalloc(r->nkeys * sizeof *w->values);
    w->ok = true;
    bool trusted = ev->wit.state == WITNESS_TRUSTED;
    for (size_t k = 0; k < r->nkeys; k++) {
        if (!trusted || !nccl_read(&r->keys[k], &ev->wit, &w->values[k]))
            w->values[k] = value_of(&r->keys[k], ev, conf);
        w->ok = w->ok && w->values[k].from && w->values[k].same;
    }
}

/* Checks p and adds its row: checked, or not verified. A process that is
 * gone by the end of its check (or whose memory could not be read at all,
 * ESRCH: exiting) is neither: what was read of it may be half, and it no
 * longer runs with any value. It has a row only when the user named
 * processes (--pid). A process read through another thread than its main
 * one (live_task) that runs on when that thread has gone (ESRCH) is not
 * verified. */
static void check(const struct proc *p, bool named_pids, struct records *recs,
                  const struct set *conf, struct verify_report *r)
{
    struct evidence ev = { 0 };
    struct unverified u = { NULL, { 0 } };
    int e = gather(p, r, recs, &ev, &u);
    int lib = e == -ESRCH ? LIB_GONE : lib_of(r, p);
    bool vanished = gone(p);
    if (!vanished && e == -ESRCH && p->task != p->pid) {
        buf_free(&u.detail);
        u.reason = "its thread exited";
        buf_printf(&u.detail, "thread %d, through which it was read (its main thread has "
                              "exited), exited meanwhile", (int)p->task);
        e = -EAGAIN;
        lib = -1;
    }
    if (e == -ESRCH || lib == LIB_GONE || vanished) {
        if (named_pids)
            add_row(r, ROW_EXITED, p->pid)->reason = vanished ? NULL : "is exiting";
        buf_free(&u.detail);
        buf_free(&ev.uname);
    } else if (e < 0) {
        struct verify_row *w = add_proc_row(r, ROW_UNVERIFIED, p, lib);
        w->reason = u.reason;
        w->detail = u.detail.data;
        r->unverified++;
    } else {
        struct verify_row *w = add_proc_row(r, ROW_CHECKED, p, lib);
        fill_checked(w, p, &ev, conf, r);
        r->good += w->ok;
        if (ev.wit.state != WITNESS_ABSENT || ev.wit.others) {
            w->witness = xmalloc(sizeof *w->witness);
            *w->witness = ev.wit; /* the values' nccl point into it */
            ev.wit = (struct witness){ 0 };
        }
    }
    witness_free(&ev.wit);
    xfree(ev.env);
}

int verify_collect(struct verify_report *r, const struct verify_options *o, struct buf *why)
{
    const char *root = o->root ? o->root : "";
    struct set want = { 0 }, conf = { 0 };
    struct records recs = { 0 };
    r->all = o->all;
    int e = read_resolved(root, &want, &recs, r, why);
    if (e < 0)
        return e;
    pid_t child = read_child(root);
    struct buf path = { 0 };
    buf_printf(&path, "%s" ETC_NCCL_CONF, root);
    /* Missing or unreadable: no values from it, as NCCL, which skips a
     * conf file it cannot open. */
    (void)read_pairs(&conf, path.data, true);
    buf_free(&path);

    size_t n;
    struct proc *procs;
    e = read_procs(&procs, &n);
    if (e < 0) {
        buf_printf(why, "cannot read /proc: %s", strerror(-e));
        return e;
    }
    for (size_t k = 0; k < o->npids; k++)
        if (!find_proc(procs, n, o->pids[k]))
            add_row(r, ROW_NO_SUCH, o->pids[k]);
    select_procs(o, procs, n, child, r);
    for (size_t i = 0; i < n; i++)
        if (procs[i].wanted)
            check(&procs[i], o->npids > 0, &recs, &conf, r);
    if (!r->checked)
        r->nothing = why_nothing(o, root, child, child && find_proc(procs, n, child));
    return 0;
}

int verify(const struct verify_options *o, struct buf *out, struct buf *why)
{
    struct verify_report r = { 0 };
    int e = verify_collect(&r, o, why);
    if (e < 0)
        return e;
    if (o->json)
        verify_print_json(out, &r);
    else
        verify_print_text(out, &r);
    return verify_status(&r);
}

unsigned verify_named_unchecked(const struct verify_report *r)
{
    unsigned n = 0;
    for (size_t i = 0; i < r->nrows; i++)
        n += r->rows[i].kind == ROW_NO_SUCH || r->rows[i].kind == ROW_EXITED ||
             r->rows[i].kind == ROW_KTHREAD;
    return n;
}

int verify_status(const struct verify_report *r)
{
    if (!r->checked)
        return VERIFY_NOTHING;
    return r->unverified || r->good != r->checked || verify_named_unchecked(r) ? VERIFY_FAILED
                                                                               : VERIFY_OK;
}
