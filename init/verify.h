/* nccl-init verify: which processes run with the resolved set, and how
 * each value reached them. */
#ifndef NCCL_INIT_VERIFY_H
#define NCCL_INIT_VERIFY_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct verify_options {
    const char *root; /* for /run/nccl-init and /etc/nccl.conf; /proc is the caller's */
    bool json, all;
    const pid_t *pids;
    size_t npids;
};

/* Prints the table (or JSON) and returns 0 when every process checked has
 * every value, 1 otherwise. */
int verify(const struct verify_options *o);

#endif
