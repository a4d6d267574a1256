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
 * The Python hook is not covered: what it should hold depends on files the
 * receipt does not see (a sitecustomize it chains to, Debian's link, the
 * interpreter found), so it is read and compared on every start. Nor are
 * the directories above the files: a hit writes nothing, and a directory
 * that the walk would now refuse (walk.h) is refused at the next write. */
#ifndef NCCL_INIT_RECEIPT_H
#define NCCL_INIT_RECEIPT_H

#include "buf.h"

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>
#include <sys/types.h>

struct receipt {
    struct buf material;
    struct buf entries; /* struct receipt_rec, then its path, one after another */
    struct buf text;    /* the file to write after the fork; empty: none */
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
 * and the files in it are older than the clock. */
void receipt_seal(struct receipt *rc);

/* After the fork: writes rc->text to path (its directory reached as a
 * sink's is), without allocating. */
void receipt_commit(const struct receipt *rc, const char *path, size_t root_len);

void receipt_free(struct receipt *rc);

#endif
