/* Managed blocks: the lines between "# BEGIN nccl-init" and
 * "# END nccl-init" belong to nccl-init; everything else in the file is
 * someone else's and is kept byte for byte. A marker line may end in "\n"
 * or "\r\n" (or the end of the file). */
#ifndef NCCL_INIT_BLOCK_H
#define NCCL_INIT_BLOCK_H

#include "buf.h"

#include <stdbool.h>

#define BLOCK_BEGIN "# BEGIN nccl-init"
#define BLOCK_END "# END nccl-init"

/* Builds in out the file old with its block replaced by body (which is the
 * block's inner lines, each ending in '\n'). A file without a block gets
 * one at the top (at_top) or the end. A replaced block's markers keep the
 * line end of the old BEGIN ("\r\n" in a CRLF file); the body's lines always
 * end in '\n'. Returns 0, or -1 when old has a
 * BEGIN without an END, or more than one block: then it is not ours to
 * guess at. */
int block_splice(struct buf *out, const char *old, size_t oldlen, const char *body, bool at_top);

/* True when old has nothing but whitespace outside its block: a file that
 * only nccl-init ever wrote to. */
bool block_only(const char *old, size_t n);

/* The block alone, markers included: what render prints. */
void block_wrap(struct buf *out, const char *body);

#endif
