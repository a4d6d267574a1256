/* The receipt (receipt.h says what it vouches for, and when).
 *
 * Its file is nccl-init's own and read by nothing else: a first line,
 * "nccl-init receipt 4", the key's length (a size_t) and bytes, the
 * entries' length (a size_t) and the entries, each a struct receipt_rec in
 * this machine's byte order followed by its path and the path's NUL; then,
 * when state.json was vouched for too, its part: the state key's length
 * and bytes, the child's pid (both uint64_t) and state.json's entry. The
 * record an entry keeps is made by one function, rec(), from an lstat,
 * when it is vouched for and when it is checked: a restart compares the
 * two with memcmp, field for field as they were. */
#include "sinks/receipt.h"

#include "lib/atomic.h"
#include "lib/fileio.h"
#include "lib/log.h"
#include "lib/mem.h"
#include "lib/text.h"
#include "lib/walk.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define MAGIC "nccl-init receipt 4\n"
/* What a receipt holds past its key, at most: the one read that checks it
 * asks for no more (and stays within the start-up region's largest block,
 * mem.c), so no longer one is written. */
#define ROOM 4096

struct receipt_rec {
    uint64_t path_len; /* with its NUL */
    uint64_t dev, ino, mode, uid, gid, size;
    int64_t mtime_s, mtime_ns, ctime_s, ctime_ns;
};

static void rec(struct receipt_rec *r, size_t path_len, const struct stat *st)
{
    *r = (struct receipt_rec){
        .path_len = path_len,
        .dev = st->st_dev,
        .ino = st->st_ino,
        .mode = st->st_mode,
        .uid = st->st_uid,
        .gid = st->st_gid,
        .size = (uint64_t)st->st_size,
        .mtime_s = st->st_mtim.tv_sec,
        .mtime_ns = st->st_mtim.tv_nsec,
        .ctime_s = st->st_ctim.tv_sec,
        .ctime_ns = st->st_ctim.tv_nsec,
    };
}

void receipt_material(struct receipt *rc, const char *sink, const char *path, const char *text,
                      size_t len)
{
    /* Each with its NUL: a sink name, a path and a rendered text (C
     * strings all) hold none, so no two different lists run together into
     * the same bytes. */
    buf_add(&rc->material, sink, strlen(sink) + 1);
    buf_add(&rc->material, path, strlen(path) + 1);
    buf_add(&rc->material, text, len);
    buf_add(&rc->material, "", 1);
}

/* The entry at *at in a buffer of entries (advancing *at), or NULL at the
 * end or at bytes that are not an entry. */
static const struct receipt_rec *next(const char *data, size_t len, size_t *at,
                                      const char **path)
{
    struct receipt_rec r;
    if (len - *at < sizeof r)
        return NULL;
    memcpy(&r, data + *at, sizeof r);
    if (r.path_len == 0 || len - *at - sizeof r < r.path_len ||
        strlen(data + *at + sizeof r) != r.path_len - 1)
        return NULL; /* not one NUL-terminated path */
    const struct receipt_rec *p = (const void *)(data + *at);
    *path = data + *at + sizeof r;
    *at += sizeof r + r.path_len;
    return p;
}

/* Whether the file at path is still as the entry want recorded it. */
static bool unchanged(const struct receipt_rec *want, const char *path)
{
    struct receipt_rec now;
    struct stat st;
    if (fstatat(AT_FDCWD, path, &st, AT_SYMLINK_NOFOLLOW) < 0)
        return false;
    rec(&now, want->path_len, &st);
    return memcmp(&now, want, sizeof now) == 0;
}

void receipt_vouch_file(struct receipt *rc, const char *path, const struct stat *st)
{
    struct receipt_rec r;
    size_t n = strlen(path) + 1;
    rec(&r, n, st);
    buf_add(&rc->entries, &r, sizeof r);
    buf_add(&rc->entries, path, n);
}

bool receipt_check(struct receipt *rc, const char *path)
{
    /* No link at the receipt itself. Its directory is the record's, made
     * 0755 by root and refused by every write of the record when anyone
     * else could change it (walk.h): only root can put a receipt there,
     * and one that is stale but nccl-init's still tells the truth about
     * the files it names. */
    int fd = openat(AT_FDCWD, path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    if (fd < 0)
        return false;
    size_t mlen, elen;
    const size_t head = sizeof MAGIC - 1 + sizeof mlen;
    /* One read: the material and room for the rest. A regular file reads
     * whole up to the count asked (signals are blocked), so a short read
     * is the end; a receipt that fills the room is not one this start
     * would write (ROOM: three files' entries take some 400 bytes, the
     * state part about 900), and a miss. */
    const size_t room = head + rc->material.len + ROOM;
    char *text = xmalloc(room);
    ssize_t n = read(fd, text, room);
    close(fd);
    size_t len = n > 0 ? (size_t)n : 0;
    bool ok = len < room && len >= head && memcmp(text, MAGIC, sizeof MAGIC - 1) == 0;
    if (ok) {
        memcpy(&mlen, text + sizeof MAGIC - 1, sizeof mlen);
        ok = mlen == rc->material.len && len - head >= mlen + sizeof elen &&
             (mlen == 0 || memcmp(text + head, rc->material.data, mlen) == 0);
    }
    size_t at = head + (ok ? mlen : 0), end = 0;
    if (ok) {
        memcpy(&elen, text + at, sizeof elen);
        at += sizeof elen;
        ok = len - at >= elen;
        end = at + elen;
    }
    const char *p;
    const struct receipt_rec *r;
    while (ok && at < end) {
        struct receipt_rec want;
        ok = (r = next(text, end, &at, &p)) != NULL;
        if (ok) {
            memcpy(&want, r, sizeof want);
            ok = unchanged(&want, p);
        }
    }
    rc->hit = ok; /* none is written without a file in it (receipt_seal) */
    if (rc->hit) {
        /* Kept for after the fork: the state part, if any, is checked
         * then (receipt_state_holds), and one missing or stale is added
         * to what comes before it (receipt_state_vouch). The last block
         * of the region: it shrinks to what was read where it is. */
        rc->held = xrealloc(text, len);
        rc->held_len = len;
        rc->held_state = at;
    } else {
        xfree(text);
    }
    return rc->hit;
}

bool receipt_state_holds(const struct receipt *rc, pid_t child, const char *path)
{
    if (!rc->held || !rc->state.len || rc->held_state == rc->held_len)
        return false;
    const char *t = rc->held, *p;
    size_t len = rc->held_len, at = rc->held_state;
    uint64_t klen, pid;
    if (len - at < sizeof klen)
        return false;
    memcpy(&klen, t + at, sizeof klen);
    at += sizeof klen;
    if (klen != rc->state.len || len - at < klen + sizeof pid ||
        (klen && memcmp(t + at, rc->state.data, klen) != 0))
        return false;
    at += klen;
    memcpy(&pid, t + at, sizeof pid);
    at += sizeof pid;
    const struct receipt_rec *r = next(t, len, &at, &p);
    struct receipt_rec want;
    if (pid != (uint64_t)child || !r || at != len || strcmp(p, path) != 0)
        return false;
    memcpy(&want, r, sizeof want);
    return unchanged(&want, path);
}

/* The clock's tick has not passed since st's last change: the file could
 * still change within it unseen (receipt.h). */
static bool too_recent(int64_t s, int64_t ns, const struct timespec *now)
{
    return !(s < now->tv_sec || (s == now->tv_sec && ns < now->tv_nsec));
}

void receipt_state_vouch(struct receipt *rc, pid_t child, const char *path,
                         const struct stat *st)
{
    uint64_t klen = rc->state.len, pid = (uint64_t)child;
    size_t n = strlen(path) + 1;
    struct receipt_rec r;
    /* What comes before the part: the receipt sealed before the fork; on
     * a hit, the one read, up to its state part, which this replaces. */
    size_t base = rc->hit ? rc->held_state : rc->text.len;
    if (!klen || (rc->hit ? rc->text.len != 0 : base == 0))
        return;
    /* In the room receipt_seal kept (nothing is allocated after the fork),
     * and within what receipt_check reads. */
    size_t end = base + sizeof klen + klen + sizeof pid + sizeof r + n;
    if (end >= rc->text.cap || end >= sizeof MAGIC - 1 + sizeof(size_t) + rc->material.len + ROOM)
        return;
    if (rc->hit && syscall(SYS_clock_gettime, CLOCK_REALTIME_COARSE, &rc->sealed) < 0)
        return;
    if (too_recent(st->st_ctim.tv_sec, st->st_ctim.tv_nsec, &rc->sealed)) {
        log_debug("receipt: %s: too recent", path);
        return;
    }
    rec(&r, n, st);
    if (rc->hit)
        buf_add(&rc->text, rc->held, base);
    buf_add(&rc->text, &klen, sizeof klen);
    buf_add(&rc->text, rc->state.data, klen);
    buf_add(&rc->text, &pid, sizeof pid);
    buf_add(&rc->text, &r, sizeof r);
    buf_add(&rc->text, path, n);
}

/* Room in rc->text for len bytes and a state part for state_path: what
 * receipt_state_vouch adds after the fork, when nothing may be allocated. */
static void keep_room(struct receipt *rc, size_t len, const char *state_path)
{
    grow((void **)&rc->text.data, &rc->text.cap,
         len + 2 * sizeof(uint64_t) + rc->state.len + sizeof(struct receipt_rec) +
             strlen(state_path) + 2,
         1);
}

void receipt_seal(struct receipt *rc, const char *state_path)
{
    if (rc->hit && state_path && rc->state.len)
        keep_room(rc, rc->held_state, state_path); /* a state part to add or replace */
    if (rc->hit || rc->unsettled || !rc->entries.len)
        return;
    /* The clock file times come from. A file whose ctime is not before
     * it could still change within the same tick unseen: no receipt (the
     * next start reads the files, and writes one). The system call:
     * clock_gettime()'s vDSO lookup costs a kilobyte of binary. */
    struct timespec *now = &rc->sealed;
    if (syscall(SYS_clock_gettime, CLOCK_REALTIME_COARSE, now) < 0)
        return;
    const char *p;
    const struct receipt_rec *r;
    for (size_t at = 0; (r = next(rc->entries.data, rc->entries.len, &at, &p));) {
        struct receipt_rec e;
        memcpy(&e, r, sizeof e);
        if (too_recent(e.ctime_s, e.ctime_ns, now)) {
            log_debug("receipt: %s: too recent", p);
            return;
        }
    }
    buf_str(&rc->text, MAGIC);
    buf_add(&rc->text, &rc->material.len, sizeof rc->material.len);
    buf_add(&rc->text, rc->material.data, rc->material.len);
    buf_add(&rc->text, &rc->entries.len, sizeof rc->entries.len);
    buf_add(&rc->text, rc->entries.data, rc->entries.len);
    if (state_path)
        keep_room(rc, rc->text.len, state_path);
}

void receipt_commit(const struct receipt *rc, const char *path, size_t root_len)
{
    if (!path || !rc->text.len)
        return;
    struct target t;
    int e = target_open(&t, path, root_len);
    t.no_sync = true;
    if (e == 0)
        e = atomic_write(&t, rc->text.data, rc->text.len);
    target_close(&t);
    /* Only a cache: a restart without it reads the files, as the first
     * start did. */
    if (e < 0)
        log_debug("receipt: %s: %s", path, strerror(-e));
}

void receipt_free(struct receipt *rc)
{
    xfree(rc->held);
    buf_free(&rc->state);
    buf_free(&rc->text);
    buf_free(&rc->entries);
    buf_free(&rc->material);
    memset(rc, 0, sizeof *rc);
}
