/* The witness: what NCCL asked nccl-init's env plugin for, and what it got,
 * in one process. The plugin (plugin/witness.c) writes it into a memfd of
 * its own; verify (inspect/witness_read.c) reads it through /proc/PID/fd.
 * The format is doc/env-plugin.md's "The witness"; these are the constants
 * both sides take, so that they cannot drift apart. */
#ifndef NCCL_INIT_WITNESS_H
#define NCCL_INIT_WITNESS_H

/* memfd_create's name; /proc/PID/fd/N then reads WITNESS_LINK. */
#define WITNESS_NAME "nccl-init-witness"
#define WITNESS_LINK "/memfd:" WITNESS_NAME " (deleted)"

/* The first line's first two fields: the name and the format's version. */
#define WITNESS_MAGIC "nccl-init-witness"
#define WITNESS_FORMAT 1

/* The writer stops at this many bytes: a line that would pass it is not
 * written, and one "truncated" line ends the witness. The reader reads at
 * most WITNESS_SIZE_MAX + WITNESS_LINE_MAX bytes. */
#define WITNESS_SIZE_MAX 262144
/* No line is longer than this, its newline included. */
#define WITNESS_LINE_MAX 8192
/* A value is written up to this many bytes; a longer one is cut there, and
 * its line says cut=1. A name longer than WITNESS_NAME_MAX is answered but
 * not witnessed: no NCCL parameter comes near it. Both bounds keep a line,
 * every byte escaped (4 each), under WITNESS_LINE_MAX. */
#define WITNESS_VALUE_KEEP 512
#define WITNESS_NAME_MAX 128

#endif
