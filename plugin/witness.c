/* The witness: see witness.h, and its format in doc/env-plugin.md ("The
 * witness") and init/lib/witness.h.
 *
 * Invariants:
 * - Only the plugin writes the memfd, one whole line per write(2), under
 *   wlock, and never past WITNESS_SIZE_MAX: a line that would pass it ends
 *   the witness with "truncated". A reader may see a last line half
 *   written; it ignores a line without its newline.
 * - Entries, answers and the arena's bytes are filled under wlock and
 *   published with a release store (into the index, or an entry's last
 *   answer); once published they never change. So witness_ask reads them
 *   with acquire loads and no lock.
 * - A process's witness names that process: a forked child gets its own
 *   (pthread_atfork's child handler, or at its next write when the fork
 *   went around it), with its parent's lines copied.
 * - Nothing here fails NCCL: every failure stops witnessing, and the
 *   answers go on as they are. */
#include "witness.h"
#include "text.h"

#include "lib/paths.h"
#include "lib/witness.h"

#include <errno.h>
#include <link.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* Two NCCL copies are what a process has in practice (a wheel's and a
 * system one); a ninth is answered but its asks count as copy 0. */
#define COPIES_MAX 8
/* NCCL 2.28.9 has some 400 parameters: two copies' worth, with room. */
#define ENTRIES_MAX 2048
#define ANSWERS_MAX 4096
#define INDEX_SIZE 8192 /* a power of two, over twice ENTRIES_MAX */
#define ALIASES_MAX 4096
#define LIB_MAX 1536 /* a library's path longer than this is written "?" */
#define ARENA_SIZE (256 * 1024)

enum state { CLOSED, OPEN, DONE };

struct copy {
    uintptr_t lo, hi; /* the library file's mappings */
};

/* What an ask got: immutable once published. */
struct answer {
    unsigned epoch;       /* the record it was answered from */
    enum witness_from from;
    const char *rec;      /* the record's value (its own pointer), or NULL */
    const char *own;      /* the process's value, up to WITNESS_VALUE_KEEP bytes */
    size_t own_len;       /* its whole length */
};

struct entry {
    const char *name; /* in the arena */
    unsigned copy;
    struct answer *last; /* atomic */
};

/* A name's pointer as NCCL passes it (a string literal of the copy's: the
 * same pointer at every ask), for a lookup that hashes no string. A
 * pointer may be a caller's buffer that later holds another name, so a
 * hit still compares the name. Only a cache: when the aliases are spent,
 * asks go by the name's hash. */
struct alias {
    const char *ptr;
    struct entry *e;
};

static pthread_mutex_t wlock = PTHREAD_MUTEX_INITIALIZER;
static enum state state;    /* atomic */
static int wfd = -1;
static pid_t wpid;          /* the process the witness names */
static size_t wsize;        /* bytes written */
static unsigned epoch;      /* atomic; one more at each record the plugin loads */
static struct copy copies[COPIES_MAX];
static unsigned ncopies;    /* atomic */
static struct entry *index_[INDEX_SIZE]; /* atomic pointers, by the name's hash */
static struct alias *by_ptr[INDEX_SIZE];  /* atomic pointers, by the name's pointer */
static struct alias aliases[ALIASES_MAX];
static size_t naliases;
static struct entry entries[ENTRIES_MAX];
static size_t nentries;
static struct answer answers[ANSWERS_MAX];
static size_t nanswers;
static char arena[ARENA_SIZE];
static size_t arena_used;

#define TRUNCATED "truncated\n"

static void write_all(int fd, const char *s, size_t n)
{
    while (n > 0) {
        ssize_t k = write(fd, s, n);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            break;
        s += k;
        n -= (size_t)k;
    }
}

/* The last line: nothing is witnessed after it. Under wlock. */
static void end(const char *why)
{
    write_all(wfd, why, strlen(why));
    __atomic_store_n(&state, DONE, __ATOMIC_RELEASE);
}

/* One line, whole, or the end of the witness. Under wlock. */
static void emit(const struct text *t)
{
    if (__atomic_load_n(&state, __ATOMIC_RELAXED) != OPEN)
        return;
    if (t->len + 1 >= t->cap || wsize + t->len + sizeof TRUNCATED > WITNESS_SIZE_MAX) {
        end(TRUNCATED); /* too long for its buffer (not by the bounds), or past the cap */
        return;
    }
    ssize_t k;
    do
        k = write(wfd, t->s, t->len);
    while (k < 0 && errno == EINTR);
    if (k != (ssize_t)t->len) {
        end("\n" TRUNCATED); /* ENOMEM, ENOSPC: a line lost would make the rest a lie */
        return;
    }
    wsize += t->len;
}

/* This process's start time (field 22 of /proc/self/stat), or 0. */
static unsigned long long self_start(void)
{
    char line[1024];
    int fd = open("/proc/self/stat", O_RDONLY | O_CLOEXEC | O_NOCTTY);
    if (fd < 0)
        return 0;
    ssize_t n;
    do
        n = read(fd, line, sizeof line - 1);
    while (n < 0 && errno == EINTR);
    close(fd);
    char state_ch;
    unsigned long long start = 0;
    if (n <= 0)
        return 0;
    line[n] = '\0';
    return record_stat_start(line, &state_ch, &start) ? start : 0;
}

/* A new memfd with its first line (and "fork parent=PID" when parent is
 * not 0): the descriptor, or -errno. */
static int make(pid_t parent)
{
    int fd = memfd_create(WITNESS_NAME, MFD_CLOEXEC);
    if (fd < 0)
        return -errno;
    char line[160];
    struct text t = { line, sizeof line, 0 };
    wpid = getpid();
    text_addf(&t, WITNESS_MAGIC " %d pid=%d start=%llu\n", WITNESS_FORMAT, (int)wpid, self_start());
    if (parent)
        text_addf(&t, "fork parent=%d\n", (int)parent);
    wfd = fd;
    wsize = 0;
    __atomic_store_n(&state, OPEN, __ATOMIC_RELEASE);
    emit(&t);
    return fd;
}

/* In a forked child: a witness of its own, with the parent's lines after
 * the first copied into it, and the parent's descriptor closed (the child
 * shares its open file: its lines would go into the parent's witness).
 * Under wlock. */
static void refork(void)
{
    int old = wfd;
    pid_t parent = wpid;
    enum state was = __atomic_load_n(&state, __ATOMIC_RELAXED);
    if (make(parent) < 0) {
        wfd = -1;
        __atomic_store_n(&state, DONE, __ATOMIC_RELEASE);
        close(old);
        return;
    }
    char buf[4096];
    off_t off = 0;
    bool first = true;
    ssize_t n;
    while ((n = pread(old, buf, sizeof buf, off)) > 0) {
        off += n;
        const char *p = buf;
        size_t len = (size_t)n;
        if (first) {
            const char *nl = memchr(buf, '\n', len);
            if (!nl)
                continue;
            first = false;
            len -= (size_t)(nl + 1 - buf);
            p = nl + 1;
        }
        write_all(wfd, p, len);
        wsize += len;
    }
    close(old);
    if (was == DONE) /* the copy ends with the parent's "truncated" */
        __atomic_store_n(&state, DONE, __ATOMIC_RELEASE);
}

static void before_fork(void)
{
    pthread_mutex_lock(&wlock);
}

static void after_fork_parent(void)
{
    pthread_mutex_unlock(&wlock);
}

static void after_fork_child(void)
{
    if (wfd >= 0)
        refork();
    pthread_mutex_unlock(&wlock);
}

int witness_open(void)
{
    pthread_mutex_lock(&wlock);
    int e = 0;
    if (wfd < 0 && __atomic_load_n(&state, __ATOMIC_RELAXED) == CLOSED) {
        int fd = make(0);
        if (fd < 0) {
            e = fd;
            __atomic_store_n(&state, DONE, __ATOMIC_RELEASE);
        } else if ((e = -pthread_atfork(before_fork, after_fork_parent, after_fork_child)) != 0) {
            close(fd);
            wfd = -1;
            __atomic_store_n(&state, DONE, __ATOMIC_RELEASE);
        }
    }
    pthread_mutex_unlock(&wlock);
    return e;
}

/* Under wlock, before a line: false when nothing is to be written. A
 * process made by a fork that ran no atfork handler (a raw clone) still
 * holds its parent's witness: it makes its own first. */
static bool writable(void)
{
    if (__atomic_load_n(&state, __ATOMIC_RELAXED) != OPEN)
        return false;
    if (getpid() != wpid)
        refork();
    return __atomic_load_n(&state, __ATOMIC_RELAXED) == OPEN;
}

void witness_record(const struct record *r, int status, int warn)
{
    pthread_mutex_lock(&wlock);
    __atomic_add_fetch(&epoch, 1, __ATOMIC_RELEASE);
    if (writable()) {
        char line[WITNESS_LINE_MAX];
        struct text t = { line, sizeof line, 0 };
        if (status == 0) {
            text_adds(&t, "record path=" RECORD_ENV);
            text_adds(&t, " digest=");
            text_escaped(&t, r->digest ? r->digest : "", 128, true);
            text_adds(&t, " profile=");
            text_escaped(&t, r->profile ? r->profile : "", 256, true);
            text_addf(&t, " enforced=%d values=%zu\n", r->enforce ? 1 : 0, r->n);
        } else {
            text_addf(&t, "no-record level=%s why=", warn ? "warn" : "info");
            text_escaped(&t, r->why, sizeof r->why, true);
            text_adds(&t, "\n");
        }
        emit(&t);
    }
    pthread_mutex_unlock(&wlock);
}

struct find_object {
    uintptr_t addr;
    struct copy range;
    const char *name;
    bool found;
};

static int object_has(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    struct find_object *f = arg;
    uintptr_t lo = UINTPTR_MAX, hi = 0;
    for (size_t i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD)
            continue;
        uintptr_t start = info->dlpi_addr + ph->p_vaddr;
        if (start < lo)
            lo = start;
        if (start + ph->p_memsz > hi)
            hi = start + ph->p_memsz;
    }
    if (f->addr < lo || f->addr >= hi)
        return 0;
    f->range = (struct copy){ lo, hi };
    f->name = info->dlpi_name;
    f->found = true;
    return 1;
}

/* The loaded object (a libnccl, or the program itself) whose segments
 * hold addr: its range, and its path as the loader has it (as dlopen was
 * given it, or as found on the loader's path; the program's own is
 * /proc/self/exe's link). From the loader's own list (dl_iterate_phdr),
 * not /proc/self/maps: nothing to read or parse at NCCL's first init.
 * False, and path "?", when no object holds it. */
static bool object_of(uintptr_t addr, struct copy *c, char *path, size_t cap)
{
    struct find_object f = { .addr = addr };
    snprintf(path, cap, "?");
    if (!dl_iterate_phdr(object_has, &f) || !f.found)
        return false;
    *c = f.range;
    if (f.name && f.name[0]) {
        snprintf(path, cap, "%s", f.name);
        return true;
    }
    ssize_t n = readlink("/proc/self/exe", path, cap - 1);
    path[n > 0 ? n : 0] = '\0';
    if (n <= 0)
        snprintf(path, cap, "?");
    return true;
}

/* The copy whose code is at addr: 1.., or 0 for none. */
static unsigned copy_of(uintptr_t addr)
{
    unsigned n = __atomic_load_n(&ncopies, __ATOMIC_ACQUIRE);
    for (unsigned i = 0; i < n; i++)
        if (addr >= copies[i].lo && addr < copies[i].hi)
            return i + 1;
    return 0;
}

void witness_nccl(const void *caller, int interface, uint8_t major, uint8_t minor, uint8_t patch,
                  const char *suffix)
{
    pthread_mutex_lock(&wlock);
    if (writable()) {
        char path[4096];
        struct copy c;
        bool known = object_of((uintptr_t)caller, &c, path, sizeof path);
        unsigned n = copy_of((uintptr_t)caller);
        if (n == 0 && ncopies < COPIES_MAX && known) {
            copies[ncopies] = c;
            n = __atomic_add_fetch(&ncopies, 1, __ATOMIC_RELEASE);
        }
        char line[WITNESS_LINE_MAX];
        struct text t = { line, sizeof line, 0 };
        text_addf(&t, "nccl copy=%u version=%u.%u.%u suffix=", n, major, minor, patch);
        text_escaped(&t, suffix ? suffix : "", 64, true);
        text_addf(&t, " interface=v%d lib=", interface);
        /* at most 4 x LIB_MAX escaped: the line stays under WITNESS_LINE_MAX */
        text_escaped(&t, strlen(path) <= LIB_MAX ? path : "?", LIB_MAX, true);
        text_adds(&t, "\n");
        emit(&t);
    }
    pthread_mutex_unlock(&wlock);
}

void witness_finalize(const void *caller)
{
    pthread_mutex_lock(&wlock);
    if (writable()) {
        char line[64];
        struct text t = { line, sizeof line, 0 };
        text_addf(&t, "finalize copy=%u\n", copy_of((uintptr_t)caller));
        emit(&t);
    }
    pthread_mutex_unlock(&wlock);
}

static const char *const from_names[] = {
    [WITNESS_NONE] = "none",
    [WITNESS_RECORD] = "record",
    [WITNESS_ENFORCED] = "enforced",
    [WITNESS_OWN] = "own",
};

/* FNV-1a of the name and the copy: the index's slot to start at. */
static size_t slot(const char *name, size_t len, unsigned copy)
{
    uint32_t h = 2166136261u ^ copy;
    for (size_t i = 0; i < len; i++)
        h = (h ^ (unsigned char)name[i]) * 16777619u;
    return h & (INDEX_SIZE - 1);
}

/* The entry of (name, copy), or NULL; *at: its slot, or the empty one
 * where it would go. Lock-free: slots are filled once, never emptied. */
static struct entry *find(const char *name, size_t len, unsigned copy, size_t *at)
{
    size_t i = slot(name, len, copy);
    for (size_t probes = 0; probes < INDEX_SIZE; probes++, i = (i + 1) & (INDEX_SIZE - 1)) {
        struct entry *e = __atomic_load_n(&index_[i], __ATOMIC_ACQUIRE);
        if (!e || (e->copy == copy && memcmp(e->name, name, len + 1) == 0)) {
            *at = i;
            return e;
        }
    }
    *at = INDEX_SIZE;
    return NULL;
}

static size_t ptr_slot(const char *name, unsigned copy)
{
    uint64_t h = ((uint64_t)(uintptr_t)name ^ copy) * 0x9e3779b97f4a7c15u;
    return (size_t)(h >> 40) & (INDEX_SIZE - 1);
}

/* The entry of (name, copy) by name's pointer, or NULL. Lock-free. */
static struct entry *find_ptr(const char *name, unsigned copy)
{
    size_t i = ptr_slot(name, copy);
    for (size_t probes = 0; probes < INDEX_SIZE; probes++, i = (i + 1) & (INDEX_SIZE - 1)) {
        struct alias *a = __atomic_load_n(&by_ptr[i], __ATOMIC_ACQUIRE);
        if (!a)
            return NULL;
        if (a->ptr == name && a->e->copy == copy && strcmp(a->e->name, name) == 0)
            return a->e;
    }
    return NULL;
}

/* Remembers name's pointer for e, if it is not yet and there is room.
 * Under wlock. */
static void add_alias(const char *name, struct entry *e)
{
    if (find_ptr(name, e->copy) == e || naliases == ALIASES_MAX)
        return;
    size_t i = ptr_slot(name, e->copy);
    while (__atomic_load_n(&by_ptr[i], __ATOMIC_RELAXED))
        i = (i + 1) & (INDEX_SIZE - 1);
    struct alias *a = &aliases[naliases++];
    *a = (struct alias){ name, e };
    __atomic_store_n(&by_ptr[i], a, __ATOMIC_RELEASE);
}

static bool same(const struct answer *a, unsigned ep, enum witness_from from, const char *own,
                 const char *rec)
{
    if (!a || a->epoch != ep || a->from != from || a->rec != rec)
        return false;
    if (!own || !a->own)
        return own == a->own;
    return strncmp(a->own, own, WITNESS_VALUE_KEEP) == 0 &&
           (a->own_len < WITNESS_VALUE_KEEP || strlen(own) == a->own_len);
}

/* n bytes of the arena, or NULL when it is spent. Under wlock. */
static char *take(size_t n)
{
    if (n > ARENA_SIZE - arena_used)
        return NULL;
    char *p = arena + arena_used;
    arena_used += n;
    return p;
}

static char *keep(const char *s, size_t len)
{
    char *p = take(len + 1);
    if (p) {
        memcpy(p, s, len);
        p[len] = '\0';
    }
    return p;
}

static void add_value(struct text *t, const char *key, const char *v, bool *cut)
{
    size_t len = strnlen(v, WITNESS_VALUE_KEEP + 1);
    if (len > WITNESS_VALUE_KEEP) {
        len = WITNESS_VALUE_KEEP;
        *cut = true;
    }
    text_adds(t, key);
    text_escaped(t, v, len, true);
}

static void ask_line(unsigned copy, const char *name, size_t len, const struct answer *a)
{
    char line[WITNESS_LINE_MAX];
    struct text t = { line, sizeof line, 0 };
    bool cut = false;
    text_addf(&t, "ask copy=%u name=", copy);
    text_escaped(&t, name, len, true);
    text_adds(&t, " from=");
    text_adds(&t, from_names[a->from]);
    if (a->from == WITNESS_RECORD || a->from == WITNESS_ENFORCED)
        add_value(&t, " value=", a->rec, &cut);
    if (a->from == WITNESS_ENFORCED)
        add_value(&t, " own=", a->own, &cut);
    if (a->from == WITNESS_OWN) {
        add_value(&t, " value=", a->own, &cut);
        if (a->rec)
            add_value(&t, " record=", a->rec, &cut);
    }
    cut = cut || (a->own && a->own_len > WITNESS_VALUE_KEEP);
    text_adds(&t, cut ? " cut=1\n" : "\n");
    emit(&t);
}

/* The first ask of a name, or a changed answer: under wlock, found again
 * (another thread may have written it meanwhile). */
static void ask_slow(unsigned copy, const char *name, size_t len, enum witness_from from,
                     const char *own, const char *rec)
{
    pthread_mutex_lock(&wlock);
    unsigned ep = __atomic_load_n(&epoch, __ATOMIC_ACQUIRE);
    size_t at;
    struct entry *e;
    if (!writable() || (e = find(name, len, copy, &at), at == INDEX_SIZE))
        goto out;
    if (e && same(__atomic_load_n(&e->last, __ATOMIC_ACQUIRE), ep, from, own, rec)) {
        add_alias(name, e);
        goto out;
    }
    size_t own_len = own ? strlen(own) : 0;
    size_t kept = own_len < WITNESS_VALUE_KEEP ? own_len : WITNESS_VALUE_KEEP;
    const char *own_copy = own ? keep(own, kept) : NULL;
    const char *name_copy = e ? e->name : keep(name, len);
    if (nanswers == ANSWERS_MAX || (!e && nentries == ENTRIES_MAX) || (own && !own_copy) ||
        !name_copy) {
        end(TRUNCATED); /* no room left to remember it by */
        goto out;
    }
    struct answer *a = &answers[nanswers++];
    *a = (struct answer){ ep, from, rec, own_copy, own_len };
    ask_line(copy, name, len, a);
    if (!e) {
        e = &entries[nentries++];
        e->name = name_copy;
        e->copy = copy;
        __atomic_store_n(&e->last, a, __ATOMIC_RELEASE);
        __atomic_store_n(&index_[at], e, __ATOMIC_RELEASE);
    } else {
        __atomic_store_n(&e->last, a, __ATOMIC_RELEASE);
    }
    add_alias(name, e);
out:
    pthread_mutex_unlock(&wlock);
}

void witness_ask(const void *caller, const char *name, enum witness_from from, const char *own,
                 const char *rec)
{
    if (__atomic_load_n(&state, __ATOMIC_ACQUIRE) != OPEN)
        return;
    unsigned copy = copy_of((uintptr_t)caller);
    unsigned ep = __atomic_load_n(&epoch, __ATOMIC_ACQUIRE);
    struct entry *e = find_ptr(name, copy);
    size_t len = 0;
    if (!e) {
        len = strnlen(name, WITNESS_NAME_MAX + 1);
        if (len > WITNESS_NAME_MAX)
            return;
        size_t at;
        e = find(name, len, copy, &at);
    }
    if (e && same(__atomic_load_n(&e->last, __ATOMIC_ACQUIRE), ep, from, own, rec))
        return;
    if (!len)
        len = strnlen(name, WITNESS_NAME_MAX + 1);
    ask_slow(copy, name, len, from, own, rec);
}
