/* Managed blocks: the lines between "# BEGIN nccl-init" and
 * "# END nccl-init" belong to nccl-init; everything else in the file is
 * someone else's and is kept byte for byte. A marker line may end in "\n"
 * or "\r\n" (or the end of the file). */
#ifndef NCCL_INIT_BLOCK_H
#define NCCL_INIT_BLOCK_H

#include "lib/buf.h"

#include <stdbool.h>

#define BLOCK_BEGIN "# BEGIN nccl-init"
#define BLOCK_END "# END nccl-init"

/* The note line a block carries right after its BEGIN when nccl-init put
 * it into a file that did not exist (MADE), or ended the file's last line
 * to put it at the end (NEWLINE): what remove needs to give back exactly
 * the bytes there were. A replaced block keeps its note. */
#define BLOCK_MADE "# nccl-init created this file"
#define BLOCK_NEWLINE "# nccl-init added the newline before this block"
/* A MADE note is followed by this line and the sha256 (64 hex digits) of
 * the block's lines below it: remove deletes the file only when they are
 * still exactly the lines nccl-init wrote. */
#define BLOCK_SUM "# sha256 of the lines nccl-init wrote below: "

/* What block_splice did (or found). */
enum {
    BLOCK_NONE = 0,    /* no block to take out */
    BLOCK_SPLICED = 1, /* out holds the file with the block put in or taken out */
    BLOCK_ALONE = 2,   /* remove: the file is a MADE one, exactly as nccl-init wrote
                          it, nothing else in it: delete it (out is empty) */
    BLOCK_EDITED = 3,  /* remove: a MADE block whose lines are not the ones nccl-init
                          wrote (BLOCK_SUM): someone edited them; out is empty, and
                          the file is to be left as it is */
};

/* Builds in out the file old with its block replaced by body (which is the
 * block's inner lines, each ending in '\n'). A file without a block gets
 * one at the top (at_top) or the end; created: old is empty because the
 * file did not exist. A replaced block's markers keep the line end of the
 * old BEGIN ("\r\n" in a CRLF file), and its note; the body's lines always
 * end in '\n'. With body NULL, the inverse (remove): out is old without
 * its block, and without the newline a NEWLINE note says nccl-init added
 * when the block still ends the file. Returns BLOCK_SPLICED; BLOCK_NONE,
 * BLOCK_ALONE or BLOCK_EDITED (above) on remove; -EBADMSG when old has a
 * BEGIN without an END, or more than one block: then it is not ours to
 * guess at. */
int block_splice(struct buf *out, const char *old, size_t oldlen, const char *body, bool at_top,
                 bool created);

/* True when old has nothing but whitespace outside its block: a file that
 * only nccl-init ever wrote to. */
bool block_only(const char *old, size_t n);

/* The block alone, markers included: what render prints. */
void block_wrap(struct buf *out, const char *body);

/* Where old's block is: *begin the offset of its BEGIN line, *end just
 * past its END line (and that line's newline). False when old has no
 * block, or a damaged one (block_splice's -EBADMSG). */
bool block_find(const char *old, size_t n, size_t *begin, size_t *end);

/* The file old (which has no block) with the block body put in at
 * offset at, a line start: what a sink does when the end of the file is
 * not a place its reader reaches (sinks.c, /etc/environment). made: the
 * file is one nccl-init created (a MADE note). */
void block_insert(struct buf *out, const char *old, size_t n, const char *body, size_t at,
                  bool made);

#endif
