/* Capabilities for the child, in docker's vocabulary (libcap). */
#ifndef NCCL_INIT_CAPS_H
#define NCCL_INIT_CAPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/capability.h>

struct caps_plan {
    bool active;   /* --cap-drop or --cap-add given */
    uint64_t keep; /* capabilities the child keeps, bit = capability number */
    cap_t set;     /* the child's permitted, effective and inheritable sets,
                      built before the fork; NULL: leave them as they are */
};

/* Computes the child's sets from the init's own and the lists ("ALL",
 * "SYS_ADMIN", "CAP_NET_RAW", comma-separated). A bad name, or an add of a
 * capability the init itself lacks, exits 2. The child's inheritable set
 * is always empty, except that without a cap option an ambient set that
 * nccl-init inherited is passed on (see caps.c). */
void caps_plan(struct caps_plan *p, const char *const *drop, size_t ndrop,
               const char *const *add, size_t nadd);

/* In the child, before exec: with a cap option, sets the bounding,
 * permitted and effective sets to p->keep and empties the inheritable and
 * ambient sets; without, only lowers the inheritable set as planned.
 * Allocates nothing. Returns 0, or -1 after logging. */
int caps_apply(const struct caps_plan *p);

void caps_plan_free(struct caps_plan *p);

#endif
