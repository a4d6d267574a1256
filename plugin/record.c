/* The record as the env plugin reads it: see record.h, and the spec of the
 * record in init/lib/paths.h (its bounds) and init/sinks/sink_formats.c
 * (format_env_file, its writer). The plugin runs as the process's user,
 * inside every NCCL process: it trusts a file only when neither it nor a
 * directory above it could have been changed by anyone but root or that
 * user, it never opens anything that could block before it knows it is a
 * regular file, and whatever it finds wrong leaves NCCL with its defaults. */
#include "record.h"

#include "lib/paths.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The record's text, NUL-terminated in place, and its index: static, one
 * record a process, filled once at init and only read afterwards. One byte
 * more than a record may have, to tell a record that is too large. */
static char text[RECORD_SIZE_MAX + 1];
static struct record_entry entries[RECORD_LINES_MAX];

#define INIT_PREFIX "NCCL_INIT_"
#define INIT_DIGEST INIT_PREFIX "DIGEST"
#define INIT_PROFILE INIT_PREFIX "PROFILE"

/* How often the record is opened again when the file read is not the one
 * checked (it was replaced in between). */
#define OPEN_TRIES 3

__attribute__((format(printf, 2, 3))) static void say_why(struct record *r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    (void)vsnprintf(r->why, sizeof r->why, fmt, ap);
    va_end(ap);
}

static void serve_nothing(struct record *r)
{
    __atomic_store_n(&r->n, 0, __ATOMIC_RELEASE);
    r->v = entries;
    r->enforce = false;
    r->profile = NULL;
    r->digest = NULL;
    r->writer = NULL;
    r->start = NULL;
}

/* The identity and the facts the checks need, of what fd refers to (an
 * O_PATH descriptor included: AT_EMPTY_PATH). statx, not fstat: built on
 * Debian 12's glibc (2.36), fstat and fstatat bind to GLIBC_2.33 symbols,
 * which the glibc of the servers the plugin loads into may lack (RHEL 8 has
 * 2.28); statx is a GLIBC_2.28 symbol. */
#define STATX_NEEDED (STATX_TYPE | STATX_MODE | STATX_UID | STATX_INO | STATX_SIZE | STATX_NLINK)

static int stat_fd(int fd, struct statx *st)
{
    if (statx(fd, "", AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW, STATX_NEEDED, st) < 0)
        return -errno;
    if ((st->stx_mask & STATX_NEEDED) != STATX_NEEDED)
        return -EIO;
    return 0;
}

static bool owner_ok(const struct statx *st)
{
    return st->stx_uid == 0 || st->stx_uid == (unsigned)geteuid();
}

/* A directory of the path, path[0..len): owned by root or by us, and
 * writable by no group or others, unless it is sticky (like /tmp: no one
 * can rename or remove what is not theirs there). The record's own
 * directory (own) may be writable by group or others, sticky or not: an
 * emptyDir, which Kubernetes makes 0777. Then *shared is set, and the
 * record must have one link (check_file): no one else can make a file
 * owned by root or by us there, nor a link we would follow (O_NOFOLLOW),
 * and a hard link to a file of ours planted there is refused. The worst
 * another user can do there is delete the record: NCCL's defaults. */
static int check_dir(struct record *r, int fd, const char *path, size_t len, bool own,
                     bool *shared)
{
    struct statx st;
    int e = stat_fd(fd, &st);
    int l = (int)len;
    if (e < 0) {
        say_why(r, "directory %.*s: statx: %s", l, path, strerror(-e));
        return e;
    }
    if (!S_ISDIR(st.stx_mode)) {
        say_why(r, "%.*s is not a directory", l, path);
        return -ENOTDIR;
    }
    if (!owner_ok(&st)) {
        say_why(r, "directory %.*s is owned by uid %u, neither root nor this process's %u", l,
                path, st.stx_uid, (unsigned)geteuid());
        return -EPERM;
    }
    if (own && (st.stx_mode & (S_IWGRP | S_IWOTH))) {
        *shared = true;
    } else if ((st.stx_mode & (S_IWGRP | S_IWOTH)) && !(st.stx_mode & S_ISVTX)) {
        say_why(r, "directory %.*s is writable by group or others (mode %04o)", l, path,
                st.stx_mode & 07777u);
        return -EPERM;
    }
    return 0;
}

/* The record itself, through either of its descriptors: a regular file (an
 * O_PATH|O_NOFOLLOW descriptor of a link shows the link, of a FIFO the
 * FIFO), owned by root or by us, writable by no group or others, with one
 * link when its directory is shared (check_dir), and no larger than a
 * record may be. */
static int check_file(struct record *r, int fd, const char *path, bool shared, struct statx *st)
{
    int e = stat_fd(fd, st);
    if (e < 0) {
        say_why(r, "%s: statx: %s", path, strerror(-e));
        return e;
    }
    if (S_ISLNK(st->stx_mode)) {
        say_why(r, "%s is a symbolic link", path);
        return -ELOOP;
    }
    if (S_ISFIFO(st->stx_mode)) {
        say_why(r, "%s is a FIFO", path);
        return -EPERM;
    }
    if (!S_ISREG(st->stx_mode)) {
        say_why(r, "%s is not a regular file (type %06o)", path, st->stx_mode & S_IFMT);
        return -EPERM;
    }
    if (!owner_ok(st)) {
        say_why(r, "%s is owned by uid %u, neither root nor this process's %u", path, st->stx_uid,
                (unsigned)geteuid());
        return -EPERM;
    }
    if (st->stx_mode & (S_IWGRP | S_IWOTH)) {
        say_why(r, "%s is writable by group or others (mode %04o)", path, st->stx_mode & 07777u);
        return -EPERM;
    }
    if (shared && st->stx_nlink != 1) {
        say_why(r, "%s has %u hard links, in a directory others may write to", path,
                (unsigned)st->stx_nlink);
        return -EPERM;
    }
    if (st->stx_size > RECORD_SIZE_MAX) {
        say_why(r, "%s is %llu bytes, more than the %d a record may have", path,
                (unsigned long long)st->stx_size, RECORD_SIZE_MAX);
        return -EFBIG;
    }
    return 0;
}

static bool same_file(const struct statx *a, const struct statx *b)
{
    return a->stx_ino == b->stx_ino && a->stx_dev_major == b->stx_dev_major &&
           a->stx_dev_minor == b->stx_dev_minor;
}

/* Up to sizeof text bytes of rfd into text: the count, or -errno. */
static ssize_t read_all(int rfd)
{
    size_t len = 0;
    while (len < sizeof text) {
        ssize_t k = read(rfd, text + len, sizeof text - len);
        if (k < 0 && errno == EINTR)
            continue;
        if (k < 0)
            return -errno;
        if (k == 0)
            break;
        len += (size_t)k;
    }
    return (ssize_t)len;
}

/* The record in directory dfd, named base: opened first with O_PATH (which
 * cannot block, even on a FIFO, and does not follow a link) and checked,
 * then for reading from the same directory, and used only when the two are
 * the same file. On success r->fd keeps the O_PATH descriptor. */
static int open_record(struct record *r, int dfd, const char *path, const char *base,
                       bool shared)
{
    for (int tries = 0; tries < OPEN_TRIES; tries++) {
        int pfd = openat(dfd, base, O_PATH | O_NOFOLLOW | O_CLOEXEC);
        if (pfd < 0) {
            int e = -errno;
            if (e == -ENOENT)
                say_why(r, "no %s", path);
            else
                say_why(r, "%s: open: %s", path, strerror(-e));
            return e;
        }
        struct statx ps, rs;
        int e = check_file(r, pfd, path, shared, &ps);
        if (e < 0) {
            close(pfd);
            return e;
        }
        int rfd = openat(dfd, base, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
        if (rfd < 0) {
            e = -errno;
            close(pfd);
            if (e == -ENOENT || e == -ELOOP)
                continue; /* replaced or removed since: look again */
            say_why(r, "%s: open for reading: %s", path, strerror(-e));
            return e;
        }
        e = check_file(r, rfd, path, shared, &rs);
        if (e == 0 && !same_file(&ps, &rs))
            e = 1; /* another file than the one checked: look again */
        if (e != 0) {
            close(rfd);
            close(pfd);
            if (e < 0)
                return e;
            continue;
        }
        ssize_t len = read_all(rfd);
        close(rfd);
        if (len < 0) {
            say_why(r, "%s: read: %s", path, strerror((int)-len));
            close(pfd);
            return (int)len;
        }
        if (len > RECORD_SIZE_MAX) {
            say_why(r, "%s has more than the %d bytes a record may have", path, RECORD_SIZE_MAX);
            close(pfd);
            return -EFBIG;
        }
        e = record_parse(r, text, (size_t)len);
        if (e < 0) {
            /* "PATH: line 3: ..." */
            char detail[RECORD_WHY_MAX];
            memcpy(detail, r->why, sizeof detail);
            say_why(r, "%s: %s", path, detail);
            close(pfd);
            return e;
        }
        r->fd = pfd;
        return 0;
    }
    say_why(r, "%s changed while it was opened (%d tries)", path, OPEN_TRIES);
    return -EAGAIN;
}

int record_load(struct record *r, const char *path)
{
    serve_nothing(r);
    r->fd = -1;
    r->why[0] = '\0';
    const char *slash = strrchr(path, '/');
    if (path[0] != '/' || !slash[1]) {
        say_why(r, "%s: not an absolute path of a file", path);
        return -EINVAL;
    }
    const char *base = slash + 1;
    /* From "/", one directory at a time, each opened from the one above
     * without following a link, and checked before the next is opened. */
    int dfd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (dfd < 0) {
        int e = -errno;
        say_why(r, "/: open: %s", strerror(-e));
        return e;
    }
    bool shared = false;
    int e = check_dir(r, dfd, "/", 1, base == path + 1, &shared);
    const char *p = path + 1;
    while (e == 0 && p < base) {
        const char *end = strchr(p, '/');
        size_t n = (size_t)(end - p);
        size_t upto = (size_t)(end - path);
        if (n == 0) {
            p++;
            continue;
        }
        char comp[NAME_MAX + 1];
        if (n > NAME_MAX || (n == 1 && p[0] == '.') || (n == 2 && p[0] == '.' && p[1] == '.')) {
            say_why(r, "%.*s: not a plain directory name", (int)upto, path);
            e = -EINVAL;
            break;
        }
        memcpy(comp, p, n);
        comp[n] = '\0';
        int next = openat(dfd, comp, O_PATH | O_NOFOLLOW | O_DIRECTORY | O_CLOEXEC);
        if (next < 0) {
            e = -errno;
            if (e == -ENOENT)
                say_why(r, "no %.*s", (int)upto, path);
            else if (e == -ENOTDIR || e == -ELOOP)
                say_why(r, "%.*s is a symbolic link or not a directory", (int)upto, path);
            else
                say_why(r, "%.*s: open: %s", (int)upto, path, strerror(-e));
            break;
        }
        close(dfd);
        dfd = next;
        e = check_dir(r, dfd, path, upto, end + 1 == base, &shared);
        p = end + 1;
    }
    if (e == 0)
        e = open_record(r, dfd, path, base, shared);
    close(dfd);
    if (e == 0 && (e = record_writer_runs(r, "/proc")) < 0) {
        char why[sizeof r->why];
        memcpy(why, r->why, sizeof why);
        say_why(r, "%s: %s", path, why);
    }
    if (e < 0) {
        serve_nothing(r);
        if (r->fd >= 0)
            close(r->fd);
        r->fd = -1;
    }
    return e;
}

/* A decimal number of at most 19 digits, no sign, no leading zero. */
static bool decimal(const char *s, unsigned long long *v)
{
    size_t n = strspn(s, "0123456789");
    if (n == 0 || n > 19 || s[n] || (s[0] == '0' && n > 1))
        return false;
    *v = strtoull(s, NULL, 10);
    return true;
}

bool record_stat_start(const char *line, char *state, unsigned long long *start)
{
    const char *p = strrchr(line, ')');
    if (!p || p[1] != ' ' || !p[2])
        return false;
    *state = p[2];
    p += 2;
    for (int field = 3; field < 22; field++) {
        p = strchr(p, ' ');
        if (!p)
            return false;
        p++;
    }
    char *end;
    errno = 0;
    *start = strtoull(p, &end, 10);
    return errno == 0 && end != p && (*end == ' ' || *end == '\n' || !*end);
}

int record_writer_runs(struct record *r, const char *proc)
{
    unsigned long long pid, start, now;
    if (!r->writer) {
        say_why(r, "no " RECORD_WRITER_PID " line: not written by this nccl-init (an older one "
                   "wrote it, or nobody's run does)");
        return -EINVAL;
    }
    if (!decimal(r->writer, &pid) || pid == 0 || pid > INT_MAX || !r->start ||
        !decimal(r->start, &start)) {
        say_why(r, RECORD_WRITER_PID " or " RECORD_WRITER_START " is not a number");
        return -EINVAL;
    }
    char path[64], line[1024];
    snprintf(path, sizeof path, "%s/%llu/stat", proc, pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
    ssize_t n = -1;
    if (fd >= 0) {
        do
            n = read(fd, line, sizeof line - 1);
        while (n < 0 && errno == EINTR);
    }
    int e = n < 0 ? errno : 0;
    if (fd >= 0)
        close(fd);
    char state = 0;
    bool gone = e == ENOENT || e == ESRCH;
    if (e == 0) {
        line[n] = '\0';
        if (!record_stat_start(line, &state, &now)) {
            say_why(r, "cannot check its writer, pid %llu: %s: not a stat line", pid, path);
            return -EINVAL;
        }
        gone = now != start || state == 'Z' || state == 'X';
    }
    if (gone) {
        say_why(r, "written by nccl-init pid %llu, which is no longer running (a run that has "
                   "ended, or an older record put back)", pid);
        return -ESRCH;
    }
    if (e != 0) {
        say_why(r, "cannot check its writer, pid %llu: %s: %s", pid, path, strerror(e));
        return -e;
    }
    return 0;
}

static bool key_start(unsigned char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_';
}

static bool key_char(unsigned char c)
{
    return key_start(c) || (c >= '0' && c <= '9');
}

/* Insertion sort by key: no allocation (glibc's qsort may malloc), and the
 * writer's records come sorted already, which makes it one pass. */
static void sort_entries(struct record_entry *v, size_t n)
{
    for (size_t i = 1; i < n; i++) {
        struct record_entry x = v[i];
        size_t j = i;
        while (j > 0 && strcmp(v[j - 1].key, x.key) > 0) {
            v[j] = v[j - 1];
            j--;
        }
        v[j] = x;
    }
}

static int parse_lines(struct record *r, char *t, size_t len, size_t *count)
{
    if (len == 0) {
        say_why(r, "empty");
        return -EINVAL;
    }
    if (t[len - 1] != '\n') {
        say_why(r, "the last line does not end with a newline");
        return -EINVAL;
    }
    char *p = t, *end = t + len;
    size_t n = 0;
    while (p < end) {
        char *eol = memchr(p, '\n', (size_t)(end - p));
        size_t line = n + 1;
        if (n == RECORD_LINES_MAX) {
            say_why(r, "more than %d lines", RECORD_LINES_MAX);
            return -EINVAL;
        }
        if ((size_t)(eol - p) > RECORD_LINE_MAX) {
            say_why(r, "line %zu: longer than %d bytes", line, RECORD_LINE_MAX);
            return -EINVAL;
        }
        char *q = p;
        if (q == eol || !key_start((unsigned char)*q)) {
            say_why(r, "line %zu: not KEY=VALUE (a key starts with a letter or '_')", line);
            return -EINVAL;
        }
        while (q < eol && key_char((unsigned char)*q))
            q++;
        if (q == eol || *q != '=') {
            say_why(r, "line %zu: not KEY=VALUE (a key is letters, digits and '_', then '=')", line);
            return -EINVAL;
        }
        for (char *c = q + 1; c < eol; c++) {
            unsigned char b = (unsigned char)*c;
            if (b < 0x20 || b == 0x7f) {
                say_why(r, "line %zu: a control byte (0x%02x) in the value", line, b);
                return -EINVAL;
            }
        }
        *q = '\0';
        *eol = '\0';
        entries[n].key = p;
        entries[n].value = q + 1;
        n++;
        p = eol + 1;
    }
    *count = n;
    return 0;
}

int record_parse(struct record *r, char *t, size_t len)
{
    serve_nothing(r);
    size_t n = 0;
    int e = parse_lines(r, t, len, &n);
    if (e < 0)
        return e;
    sort_entries(entries, n);
    for (size_t i = 1; i < n; i++) {
        if (strcmp(entries[i - 1].key, entries[i].key) == 0) {
            say_why(r, "the key %.64s%s is there more than once", entries[i].key,
                    strlen(entries[i].key) > 64 ? "..." : "");
            return -EINVAL;
        }
    }
    /* nccl-init's own lines out of the index, which stays sorted. */
    const char *enforce = NULL;
    size_t served = 0;
    for (size_t i = 0; i < n; i++) {
        const struct record_entry *x = &entries[i];
        if (strncmp(x->key, INIT_PREFIX, sizeof INIT_PREFIX - 1) != 0) {
            entries[served++] = *x;
            continue;
        }
        if (strcmp(x->key, INIT_DIGEST) == 0)
            r->digest = x->value;
        else if (strcmp(x->key, INIT_PROFILE) == 0)
            r->profile = x->value;
        else if (strcmp(x->key, RECORD_ENFORCE) == 0)
            enforce = x->value;
        else if (strcmp(x->key, RECORD_WRITER_PID) == 0)
            r->writer = x->value;
        else if (strcmp(x->key, RECORD_WRITER_START) == 0)
            r->start = x->value;
    }
    if (!r->digest || !r->digest[0]) {
        say_why(r, "no " INIT_DIGEST " line");
        serve_nothing(r);
        return -EINVAL;
    }
    if (enforce && strcmp(enforce, "1") != 0) {
        say_why(r, RECORD_ENFORCE " is not 1");
        serve_nothing(r);
        return -EINVAL;
    }
    r->enforce = enforce != NULL;
    r->v = entries;
    __atomic_store_n(&r->n, served, __ATOMIC_RELEASE);
    return 0;
}

static int by_key(const void *key, const void *entry)
{
    return strcmp(key, ((const struct record_entry *)entry)->key);
}

const char *record_find(const struct record *r, const char *key)
{
    size_t n = __atomic_load_n(&r->n, __ATOMIC_ACQUIRE);
    if (n == 0)
        return NULL;
    const struct record_entry *x = bsearch(key, r->v, n, sizeof *r->v, by_key);
    return x ? x->value : NULL;
}

void record_close(struct record *r)
{
    serve_nothing(r);
    if (r->fd >= 0)
        close(r->fd);
    r->fd = -1;
}
