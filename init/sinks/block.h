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

/* Builds in out the file old with its block replaced by body (which is the
 * block's inner lines, each ending in '\n'). A file without a block gets
 * one at the top (at_top) or the end; created: old is empty because the
 * file did not exist. A replaced block's markers keep the line end of the
 * old BEGIN ("\r\n" in a CRLF file), and its note; the body's lines always
 * end in '\n'. With body NULL, the inverse (remove): out is old without
 * its block, and without the newline a NEWLINE note says nccl-init added
 * when the block still ends the file. Returns 1; 0 when there is no block
 * to take out; 2 when the file is nccl-init's alone (a MADE note, nothing
 * else in it: delete it); -EBADMSG when old has a BEGIN without an END, or more
 * than one block: then it is not ours to guess at. */
int block_splice(struct buf *out, const char *old, size_t oldlen, const char *body, bool at_top,
                 bool created);

/* True when old has nothing but whitespace outside its block: a file that
 * only nccl-init ever wrote to. */
bool block_only(const char *old, size_t n);

/* The block alone, markers included: what render prints. */
void block_wrap(struct buf *out, const char *body);

#endif
