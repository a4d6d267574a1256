/* Capabilities for the child, in docker's vocabulary (libcap). */
#ifndef NCCL_INIT_CAPS_H
#define NCCL_INIT_CAPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct caps_plan {
    bool active;   /* --cap-drop or --cap-add given */
    uint64_t keep; /* capabilities the child keeps, bit = capability number */
};

/* Computes the child's set from the init's permitted set and the lists
 * ("ALL", "SYS_ADMIN", "CAP_NET_RAW", comma-separated). A bad name, or an
 * add of a capability the init itself lacks, exits 2. */
void caps_plan(struct caps_plan *p, const char *const *drop, size_t ndrop,
               const char *const *add, size_t nadd);

/* In the child, before exec: sets the bounding, permitted, effective,
 * inheritable and ambient sets to p->keep. Returns 0, or -1 after logging. */
int caps_apply(const struct caps_plan *p);

#endif
