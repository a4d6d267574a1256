#include "inspect/witness_read.h"

#include "lib/buf.h"
#include "lib/fileio.h"
#include "lib/mem.h"
#include "lib/witness.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The most a reader takes: the writer stops before WITNESS_SIZE_MAX, and
 * its last line (at most WITNESS_LINE_MAX) may pass it. */
#define WITNESS_READ_MAX (WITNESS_SIZE_MAX + WITNESS_LINE_MAX)
/* Fields of the longest line: "ask copy name from value own record cut". */
#define FIELDS_MAX 8
/* A process has one or two libnccl copies; more than this is not a
 * witness the plugin wrote, and it would make each lookup a long walk. */
#define COPIES_MAX 64
/* Witness descriptors read in one process: a process that dup()s its
 * witness a thousand times should not cost a thousand reads. */
#define WITNESS_FDS_MAX 8

/* A decimal number: digits only, no leading zero, at most max. */
static bool number(const char *s, unsigned long long max, unsigned long long *v)
{
    size_t n = strspn(s, "0123456789");
    if (n == 0 || n > 19 || s[n] || (s[0] == '0' && n > 1))
        return false;
    *v = strtoull(s, NULL, 10);
    return *v <= max;
}

static int hex(char c)
{
    return c >= '0' && c <= '9' ? c - '0'
           : c >= 'a' && c <= 'f' ? c - 'a' + 10
           : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                  : -1;
}

/* Undoes the \xHH escapes of a value in place. false for a backslash not
 * followed by xHH, or a NUL byte (no environment value holds one). */
static bool decode(char *s)
{
    char *o = s;
    for (const char *p = s; *p; p++) {
        if (*p != '\\') {
            *o++ = *p;
            continue;
        }
        int hi = p[1] == 'x' ? hex(p[2]) : -1, lo = hi < 0 ? -1 : hex(p[3]);
        if (lo < 0 || (hi | lo) == 0)
            return false;
        *o++ = (char)(hi * 16 + lo);
        p += 3;
    }
    *o = '\0';
    return true;
}

/* One line being parsed: its fields, and why it is malformed. */
struct line {
    char *f[FIELDS_MAX];
    size_t n;
    const char *bad; /* NULL while it parses */
};

/* Splits a line (no '\n') at single spaces. Every byte must be printable
 * ASCII (0x21..0x7e) or the space between two fields. */
static void split(struct line *l, char *s)
{
    l->n = 0;
    l->bad = NULL;
    for (char *p = s;; p++) {
        if (*p && *p != ' ' && (*p < 0x21 || *p > 0x7e)) {
            l->bad = "a byte outside printable ASCII";
            return;
        }
        if (*p && *p != ' ')
            continue;
        if (p == s) {
            l->bad = "an empty field";
            return;
        }
        if (l->n == FIELDS_MAX) {
            l->bad = "too many fields";
            return;
        }
        l->f[l->n++] = s;
        if (!*p)
            return;
        *p = '\0';
        s = p + 1;
    }
}

/* The key=value fields after the kind into v[], by keys[] (nk of them),
 * each decoded; a field not there is NULL. Each must be one of keys, once.
 * The required ones (a bit per key in need) must be there. */
static void fields(struct line *l, const char *const *keys, size_t nk, unsigned need,
                   const char **v)
{
    memset(v, 0, nk * sizeof *v);
    for (size_t i = 1; i < l->n && !l->bad; i++) {
        char *eq = strchr(l->f[i], '=');
        size_t k = 0;
        while (eq && k < nk && (strlen(keys[k]) != (size_t)(eq - l->f[i]) ||
                                memcmp(keys[k], l->f[i], (size_t)(eq - l->f[i])) != 0))
            k++;
        if (!eq || k == nk)
            l->bad = "an unknown field";
        else if (v[k])
            l->bad = "a field twice";
        else if (!decode(eq + 1))
            l->bad = "a bad escape";
        else
            v[k] = eq + 1;
    }
    for (size_t k = 0; k < nk && !l->bad; k++)
        if ((need >> k & 1) && !v[k])
            l->bad = "a field missing";
}

const struct witness_copy *witness_copy(const struct witness *w, unsigned copy)
{
    for (size_t i = 0; i < w->ncopies; i++)
        if (w->copies[i].copy == copy)
            return &w->copies[i];
    return NULL;
}

/* A copy= field: 0 where zero is allowed (an ask from outside every copy),
 * else one that an "nccl" line introduced. */
static bool copy_field(const struct witness *w, const char *s, bool zero, unsigned *copy)
{
    unsigned long long v;
    if (!number(s, 1u << 30, &v))
        return false;
    *copy = (unsigned)v;
    return (zero && v == 0) || witness_copy(w, *copy);
}

static void parse_record(struct witness *w, struct line *l)
{
    static const char *const keys[] = { "path", "digest", "profile", "enforced", "values" };
    const char *v[5];
    fields(l, keys, 5, 31, v);
    if (l->bad)
        return;
    if (strcmp(v[3], "0") != 0 && strcmp(v[3], "1") != 0)
        l->bad = "enforced neither 0 nor 1";
    else if (!number(v[4], 1u << 30, &(unsigned long long){ 0 }))
        l->bad = "a bad count of values";
    if (l->bad)
        return;
    w->record = true;
    w->rec_path = v[0], w->rec_digest = v[1], w->rec_profile = v[2];
    w->rec_enforced = v[3][0] == '1';
    w->rec_values = strtoul(v[4], NULL, 10);
    w->no_record = NULL;
}

static void parse_no_record(struct witness *w, struct line *l)
{
    static const char *const keys[] = { "level", "why" };
    const char *v[2];
    fields(l, keys, 2, 3, v);
    if (!l->bad && strcmp(v[0], "info") != 0 && strcmp(v[0], "warn") != 0)
        l->bad = "a level neither info nor warn";
    if (l->bad)
        return;
    w->record = false;
    w->no_record = v[1];
}

static void parse_nccl(struct witness *w, struct line *l, size_t *cap)
{
    static const char *const keys[] = { "copy", "version", "suffix", "interface", "lib" };
    const char *v[5];
    unsigned long long copy;
    fields(l, keys, 5, 31, v);
    if (l->bad)
        return;
    if (!number(v[0], 1u << 30, &copy) || copy == 0)
        l->bad = "a bad copy";
    else if (strcmp(v[3], "v1") != 0 && strcmp(v[3], "v2") != 0)
        l->bad = "an interface neither v1 nor v2";
    if (l->bad)
        return;
    /* the same copy again: NCCL initialised the plugin again after its
     * finalize; the line says what it is now */
    struct witness_copy *c = (struct witness_copy *)witness_copy(w, (unsigned)copy);
    if (!c) {
        if (w->ncopies == COPIES_MAX) {
            l->bad = "more than 64 NCCL copies";
            return;
        }
        grow((void **)&w->copies, cap, w->ncopies + 1, sizeof *w->copies);
        c = &w->copies[w->ncopies++];
    }
    *c = (struct witness_copy){ (unsigned)copy, v[1], v[2], v[3], v[4], false };
}

static void parse_finalize(struct witness *w, struct line *l)
{
    static const char *const keys[] = { "copy" };
    const char *v[1];
    unsigned copy = 0;
    fields(l, keys, 1, 1, v);
    if (!l->bad && !copy_field(w, v[0], false, &copy))
        l->bad = "a copy no nccl line named";
    if (!l->bad)
        ((struct witness_copy *)witness_copy(w, copy))->finalized = true;
}

/* An ask line's fields by its from=: which of value, own and record it
 * must have (+), may have (?) or must not (-). */
static const char *ask_rule(enum witness_from from, const char *value, const char *own,
                            const char *record)
{
    switch (from) {
    case WITNESS_RECORD:   /* value+ own- record- */
        return !value || own || record ? "from=record takes value= alone" : NULL;
    case WITNESS_ENFORCED: /* value+ own+ record- */
        return !value || !own || record ? "from=enforced takes value= and own=" : NULL;
    case WITNESS_OWN:      /* value+ own- record? */
        return !value || own ? "from=own takes value= and record=" : NULL;
    default:               /* all - */
        return value || own || record ? "from=none takes no value" : NULL;
    }
}

static void parse_ask(struct witness *w, struct line *l, size_t *cap)
{
    static const char *const keys[] = { "copy", "name", "from", "value", "own", "record", "cut" };
    static const char *const froms[] = { "record", "enforced", "own", "none" };
    const char *v[7];
    struct witness_ask a = { 0 };
    fields(l, keys, 7, 7, v);
    if (l->bad)
        return;
    for (a.from = WITNESS_RECORD; a.from <= WITNESS_NONE && strcmp(froms[a.from], v[2]); a.from++)
        ;
    if (!copy_field(w, v[0], true, &a.copy))
        l->bad = "a copy no nccl line named";
    else if (!*v[1])
        l->bad = "an empty name";
    else if (a.from > WITNESS_NONE)
        l->bad = "an unknown from=";
    else if (v[6] && (strcmp(v[6], "1") != 0 || !v[3]))
        l->bad = "cut= other than 1, or without a value";
    else
        l->bad = ask_rule(a.from, v[3], v[4], v[5]);
    if (l->bad)
        return;
    a.name = v[1], a.value = v[3], a.own = v[4], a.record = v[5], a.cut = v[6] != NULL;
    grow((void **)&w->asks, cap, w->nasks + 1, sizeof *w->asks);
    w->asks[w->nasks++] = a;
}

/* Marks w not trusted, why a printf of its own. */
static void distrust(struct witness *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void distrust(struct witness *w, const char *fmt, ...)
{
    struct buf b = { 0 };
    va_list ap;
    va_start(ap, fmt);
    buf_vprintf(&b, fmt, ap);
    va_end(ap);
    w->state = WITNESS_UNTRUSTED;
    w->why = b.data;
    xfree(w->copies);
    xfree(w->asks);
    w->copies = NULL, w->asks = NULL;
    w->ncopies = w->nasks = 0;
    w->record = false;
    w->no_record = NULL;
}

/* The first line, "nccl-init-witness 1 pid=PID start=TICKS": the name,
 * format 1, and the process that made it, which must be this one. */
static bool header(struct witness *w, struct line *l, long long pid, unsigned long long start)
{
    if (l->bad || l->n < 2 || strcmp(l->f[0], WITNESS_MAGIC) != 0) {
        distrust(w, "unknown format (no %s header)", WITNESS_MAGIC);
        return false;
    }
    unsigned long long format, made, start_of;
    if (!number(l->f[1], 1u << 30, &format) || format != WITNESS_FORMAT) {
        /* the field is printable ASCII (split); a line's at most */
        distrust(w, "unknown format %.32s", l->f[1]);
        return false;
    }
    if (l->n != 4 || strncmp(l->f[2], "pid=", 4) != 0 || strncmp(l->f[3], "start=", 6) != 0 ||
        !number(l->f[2] + 4, 1u << 30, &made) || !number(l->f[3] + 6, ~0ull, &start_of)) {
        distrust(w, "malformed at line 1: not \"%s %d pid=PID start=TICKS\"", WITNESS_MAGIC,
                 WITNESS_FORMAT);
        return false;
    }
    w->pid = (long long)made;
    if (w->pid != pid || start_of != start) {
        distrust(w, "made by pid %lld (inherited)", w->pid);
        return false;
    }
    return true;
}

void witness_parse(struct witness *w, char *text, size_t len, long long pid,
                   unsigned long long start)
{
    *w = (struct witness){ .state = WITNESS_TRUSTED, .pid = -1, .parent = -1, .text = text };
    /* a last line without its '\n' is being written */
    while (len && text[len - 1] != '\n')
        len--;
    if (!len) {
        distrust(w, "empty (being written)");
        return;
    }
    size_t ccap = 0, acap = 0, n = 0;
    struct line l;
    for (char *p = text, *end = text + len; p < end; p++) {
        char *eol = memchr(p, '\n', (size_t)(end - p));
        n++;
        *eol = '\0';
        /* NUL is outside printable ASCII too: the first one ends the line
         * for split, so that is checked here */
        if ((size_t)(eol - p) + 1 > WITNESS_LINE_MAX)
            l.bad = "a line over 8192 bytes";
        else if (strlen(p) != (size_t)(eol - p))
            l.bad = "a NUL byte";
        else
            split(&l, p);
        if (n == 1 && !l.bad) {
            if (!header(w, &l, pid, start))
                return;
        } else if (!l.bad && strcmp(l.f[0], "truncated") == 0 && l.n == 1) {
            distrust(w, "truncated (the witness reached %d KiB)", WITNESS_SIZE_MAX / 1024);
            return;
        } else if (!l.bad && strcmp(l.f[0], "fork") == 0) {
            static const char *const keys[] = { "parent" };
            const char *v[1];
            unsigned long long parent;
            fields(&l, keys, 1, 1, v);
            if (!l.bad && !number(v[0], 1u << 30, &parent))
                l.bad = "a bad parent";
            w->parent = l.bad ? -1 : (long long)parent;
        } else if (!l.bad && strcmp(l.f[0], "record") == 0) {
            parse_record(w, &l);
        } else if (!l.bad && strcmp(l.f[0], "no-record") == 0) {
            parse_no_record(w, &l);
        } else if (!l.bad && strcmp(l.f[0], "nccl") == 0) {
            parse_nccl(w, &l, &ccap);
        } else if (!l.bad && strcmp(l.f[0], "finalize") == 0) {
            parse_finalize(w, &l);
        } else if (!l.bad && strcmp(l.f[0], "ask") == 0) {
            parse_ask(w, &l, &acap);
        } else if (!l.bad) {
            l.bad = "an unknown kind of line";
        }
        if (l.bad) {
            if (n == 1)
                distrust(w, "unknown format (line 1: %s)", l.bad);
            else
                distrust(w, "malformed at line %zu: %s", n, l.bad);
            return;
        }
        p = eol;
    }
}

const struct witness_ask *witness_last_ask(const struct witness *w, unsigned copy,
                                           const char *name)
{
    for (size_t i = w->nasks; i-- > 0;)
        if (w->asks[i].copy == copy && strcmp(w->asks[i].name, name) == 0)
            return &w->asks[i];
    return NULL;
}

void witness_free(struct witness *w)
{
    xfree(w->why);
    xfree(w->copies);
    xfree(w->asks);
    xfree(w->others);
    xfree(w->text);
    *w = (struct witness){ .pid = -1, .parent = -1 };
}

/* The process's pid as its own PID namespace numbers it: the last field
 * of NStgid in its status (Linux 4.1; a thread's task directory has it
 * too, where NSpid would be the thread's), else Tgid, ours. -1: unknown. */
static long long own_pid(const char *dir)
{
    char path[96], *text;
    struct buf b = BUF_FIXED(path);
    size_t len;
    buf_printf(&b, "%s/status", dir);
    if (read_file(path, 1 << 16, &text, &len) < 0)
        return -1;
    const char *l = memmem(text, len, "\nNStgid:\t", 9), *q;
    l = l ? l + 9 : (q = memmem(text, len, "\nTgid:\t", 7)) ? q + 7 : NULL;
    long long pid = -1;
    /* "NStgid:\t4242\t7": the last field is the innermost namespace's */
    for (const char *f = l; f && *f && *f != '\n'; f += strcspn(f, "\t\n"), f += *f == '\t')
        pid = strtoll(f, NULL, 10);
    xfree(text);
    return pid;
}

/* Whether the descriptor whose fdinfo is path has O_CLOEXEC now (the
 * kernel writes "flags:" in octal, O_CLOEXEC 02000000): 1, 0, or -errno. */
static int cloexec(const char *path)
{
    char *text;
    size_t len;
    int e = read_file(path, 4096, &text, &len);
    if (e < 0)
        return e;
    const char *f = memmem(text, len, "flags:\t", 7);
    unsigned long long flags = 0;
    for (const char *q = f ? f + 7 : NULL; q && *q >= '0' && *q <= '7'; q++)
        flags = flags * 8 + (unsigned)(*q - '0');
    xfree(text);
    return f ? (flags & 02000000) != 0 : -ENODATA;
}

/* The text behind link (/proc/PID/fd/N), at most WITNESS_READ_MAX bytes:
 * opened O_PATH first and read only when it is a regular file (the
 * process may hold anything under that name: a FIFO must not block us),
 * then reopened through our own /proc/self/fd, never blocking. 0 or
 * -errno; *text NUL-terminated, *len its bytes. */
static int read_witness_fd(const char *link, char **text, size_t *len)
{
    struct stat st, again;
    int pfd = open(link, O_PATH | O_CLOEXEC), fd = -1;
    if (pfd < 0)
        return -errno;
    char self[40];
    struct buf b = BUF_FIXED(self);
    buf_printf(&b, "/proc/self/fd/%d", pfd);
    int e = fstat(pfd, &st) < 0 ? -errno : !S_ISREG(st.st_mode) ? -EINVAL : 0;
    if (e == 0 && (fd = open(self, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)) < 0)
        e = -errno;
    if (e == 0 && (fstat(fd, &again) < 0 || again.st_dev != st.st_dev || again.st_ino != st.st_ino))
        e = -ESTALE;
    close(pfd);
    *text = NULL;
    *len = 0;
    if (e == 0) {
        *text = xmalloc(WITNESS_READ_MAX + 1);
        while (*len < WITNESS_READ_MAX) {
            ssize_t n = pread(fd, *text + *len, WITNESS_READ_MAX - *len, (off_t)*len);
            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0) {
                e = n < 0 ? -errno : 0;
                break;
            }
            *len += (size_t)n;
        }
        (*text)[*len] = '\0';
    }
    if (fd >= 0)
        close(fd);
    if (e < 0) {
        xfree(*text);
        *text = NULL;
    }
    return e;
}

/* One witness descriptor a process holds. */
struct found {
    char fd[16];
    struct witness w;
};

/* The witness taken of those found: the first trusted one, else the
 * first; the others are lines of its w->others. */
static void choose(struct witness *w, struct found *f, size_t n, unsigned skipped)
{
    size_t take = 0;
    while (take < n && f[take].w.state != WITNESS_TRUSTED)
        take++;
    take = take < n ? take : 0;
    struct buf others = { 0 };
    for (size_t i = 0; i < n; i++) {
        if (i == take)
            continue;
        buf_printf(&others, "%sfd %s: %s", others.len ? "; " : "", f[i].fd,
                   f[i].w.state == WITNESS_TRUSTED ? "a second witness of its own" : f[i].w.why);
        witness_free(&f[i].w);
    }
    if (skipped)
        buf_printf(&others, "%s%u more witness descriptor%s not read", others.len ? "; " : "",
                   skipped, skipped == 1 ? "" : "s");
    if (n)
        *w = f[take].w;
    w->others = others.data;
}

/* One descriptor of dir's whose link reads WITNESS_LINK (name: its
 * number), into *f: read and parsed when it has O_CLOEXEC. false when it
 * was closed meanwhile. */
static bool look_at(struct found *f, const char *dir, const char *name, long long pid,
                    unsigned long long start)
{
    char link[128], info[128];
    struct buf l = BUF_FIXED(link), i = BUF_FIXED(info), n = BUF_FIXED(f->fd);
    buf_printf(&l, "%s/fd/%s", dir, name);
    buf_printf(&i, "%s/fdinfo/%s", dir, name);
    buf_str(&n, name);
    f->w = (struct witness){ .state = WITNESS_UNTRUSTED, .pid = -1, .parent = -1 };
    int ce = cloexec(info);
    if (ce == 0) {
        /* the plugin makes it close-on-exec: this one was passed on to
         * another program, which never wrote it */
        f->w.why = xstrdup("inherited across an exec (no close-on-exec)");
        return true;
    }
    char *text = NULL;
    size_t len = 0;
    if (ce < 0 || read_witness_fd(link, &text, &len) < 0)
        return false;
    witness_parse(&f->w, text, len, pid, start);
    return true;
}

int witness_read(struct witness *w, const char *dir, unsigned long long start)
{
    char path[96];
    struct buf d = BUF_FIXED(path);
    buf_printf(&d, "%s/fd", dir);
    *w = (struct witness){ .pid = -1, .parent = -1 };
    DIR *fds = opendir(path);
    if (!fds)
        return -errno;
    long long pid = own_pid(dir);
    struct found found[WITNESS_FDS_MAX];
    size_t n = 0;
    unsigned skipped = 0;
    int err = 0;
    for (;;) {
        errno = 0;
        struct dirent *e = readdir(fds);
        if (!e) {
            err = errno;
            break;
        }
        if (e->d_name[0] < '0' || e->d_name[0] > '9')
            continue;
        char link[128], target[sizeof WITNESS_LINK + 1];
        struct buf l = BUF_FIXED(link);
        buf_printf(&l, "%s/%s", path, e->d_name);
        ssize_t len = readlink(link, target, sizeof target);
        if (len != (ssize_t)sizeof WITNESS_LINK - 1 || memcmp(target, WITNESS_LINK, (size_t)len))
            continue;
        if (n == WITNESS_FDS_MAX)
            skipped++;
        else
            n += look_at(&found[n], dir, e->d_name, pid, start);
    }
    closedir(fds);
    choose(w, found, n, skipped);
    return -err;
}
