/* The witness: an in-memory file (memfd) in which the env plugin writes
 * what NCCL asked it for and what it answered, for verify to read through
 * /proc/PID/fd (doc/env-plugin.md, "The witness"; the format's constants
 * in init/lib/witness.h).
 *
 * Nothing here changes an answer: getEnv computes it as before and hands
 * it to witness_ask, which only writes it down. witness_ask takes no lock
 * and allocates nothing for a name it has seen with the same answer; the
 * first ask of a name, or a changed answer, takes the witness's lock and
 * writes one line. When the memfd cannot be made, every call is a no-op. */
#ifndef NCCL_INIT_PLUGIN_WITNESS_H
#define NCCL_INIT_PLUGIN_WITNESS_H

#include "record.h"

#include <stdint.h>

/* Where an answer came from (the ask line's from=). */
enum witness_from {
    WITNESS_NONE,     /* nothing: NCCL's default */
    WITNESS_RECORD,   /* the record's value; the process had none */
    WITNESS_ENFORCED, /* the record's value over the process's own */
    WITNESS_OWN,      /* the process's own value (over the record's, if it has one) */
};

/* Makes the witness, once per process (again in a forked child): 0, or
 * -errno when the memfd cannot be made (then nothing is witnessed). */
int witness_open(void);

/* The record the plugin now serves (status 0), or why none (record_load's
 * -errno, with r->why); warn: the plugin logged it at WARN. */
void witness_record(const struct record *r, int status, int warn);

/* An NCCL's init (interface 1 or 2), called from the code at caller. */
void witness_nccl(const void *caller, int interface, uint8_t major, uint8_t minor, uint8_t patch,
                  const char *suffix);

/* An NCCL's finalize, called from the code at caller. */
void witness_finalize(const void *caller);

/* NCCL, at caller, asked for name and got value from where; own is the
 * process's own value and rec the record's (each NULL when there is none).
 * Any thread. */
void witness_ask(const void *caller, const char *name, enum witness_from from, const char *own,
                 const char *rec);

#endif
