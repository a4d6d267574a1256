/* The receipt: what the last start found already current, so that a
 * restart can tell with one lstat per file, instead of a walk, an open
 * and a read, that /etc/environment, the nccl.conf block and the record's
 * profile.env are still exactly what this start would make of them.
 *
 * It is /run/nccl-init/receipt, nccl-init's own file, beside state.json.
 * It holds
 *  - the key ("material" below): what the covered files are made of, as
 *    C strings: the build (a digest of init/'s sources, from the Makefile),
 *    each covered sink's name and path, and every variable the sinks carry,
 *    name and value. The blocks and profile.env are functions of these
 *    alone (sink_formats.c), so a restart compares the key and renders
 *    nothing on a hit; a new profile value, another NCCL_CONF_FILE, another
 *    --sinks or another build misses. (Format 2 held the rendered texts;
 *    rendering them cost a restart some 10 µs.) A value a sink leaves out
 *    is warned about when the files are read and written, not on a hit;
 *  - per file, its identity when it was last read and found current:
 *    device, inode, mode, owner, group, size, mtime and ctime. Any write to
 *    a file, a rename over it, a chmod, a chown or a touch changes its
 *    ctime, which no one can set back.
 *
 * A file is vouched for only as read (the fstat of the descriptor its
 * content was read through, taken before the read), never as written: a
 * write leaves the receipt as it was, and the next start reads again. And
 * only once its ctime is older than the clock at the receipt's writing:
 * timestamps are taken from a coarse clock, so a file changed twice within
 * one tick keeps its ctime (git's "racily clean" index entries). A
 * receipt with a file that recent is not written.
 *
 * The record's state.json has a part of its own, checked after the fork:
 * its key is everything the file is made of but the child's pid (sinks.c,
 * state_key: the variables with their sources, every sink's outcome, the
 * Python hook's included), then the pid, and the file's identity as above.
 * On a hit whose state key and pid are the receipt's and whose state.json
 * is as it was, nothing of it is rendered or read: as PID 1 of a container
 * the child is pid 2 again. Any other start renders it and compares or
 * writes it as before; one that seals a receipt and finds state.json
 * current as read adds the part.
 *
 * The Python hook is not covered: what it should hold depends on files the
 * receipt does not see (a sitecustomize it chains to, Debian's link, the
 * interpreter found), so it is read and compared on every start (its
 * outcome is in the state key). Nor are the directories above the files:
 * a hit writes nothing, and a directory that the walk would now refuse
 * (walk.h) is refused at the next write. */
#ifndef NCCL_INIT_RECEIPT_H
#define NCCL_INIT_RECEIPT_H

#include "lib/buf.h"

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>

struct receipt {
    struct buf material;
    struct buf entries; /* struct receipt_rec, then its path, one after another */
    struct buf state;   /* state.json's key, but for the pid (sinks.c) */
    struct buf text;    /* the file to write after the fork; empty: none */
    char *held;         /* on a hit: the receipt as read, for its state part */
    size_t held_len, held_state; /* where in it the state part starts (held_len: none) */
    struct timespec sealed; /* the clock receipt_seal compared the files' ctimes with */
    bool unsettled; /* something was written or not vouched for: no receipt */
    bool hit;       /* the receipt on disk vouched for this start's material */
};

/* One covered sink's text, as this start renders it. */
void receipt_material(struct receipt *rc, const char *sink, const char *path, const char *text,
                      size_t len);

/* Whether the receipt at path vouches for rc's material: same material,
 * and every file it names as it was. Reads nothing else;
 * any doubt (missing, damaged, another version) is a miss. */
bool receipt_check(struct receipt *rc, const char *path);

/* A covered file found current, with st from the descriptor it was read
 * through (a regular file: target_read and atomic_write refuse others). */
void receipt_vouch_file(struct receipt *rc, const char *path, const struct stat *st);

/* Before the fork: the receipt's file, into rc->text, when it is settled
 * and the files in it are older than the clock, with room for the state
 * part of state_path (receipt_state_vouch). */
void receipt_seal(struct receipt *rc, const char *state_path);

/* After the fork, with one fstatat and no allocation: whether the receipt
 * read at the start vouches that the state.json at path is what
 * rc->state and child make of it (only on a hit). */
bool receipt_state_holds(const struct receipt *rc, pid_t child, const char *path);

/* After the fork: state.json found current as read (st from the descriptor
 * it was read through) goes into the receipt about to be written, in the
 * room receipt_seal kept; nothing when there is no receipt to write or the
 * file is as recent as the clock. */
void receipt_state_vouch(struct receipt *rc, pid_t child, const char *path,
                         const struct stat *st);

/* After the fork: writes rc->text to path (its directory reached as a
 * sink's is), without allocating. */
void receipt_commit(const struct receipt *rc, const char *path, size_t root_len);

void receipt_free(struct receipt *rc);

#endif
