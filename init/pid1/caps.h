/* Capabilities for the child, in docker's vocabulary (libcap). */
#ifndef NCCL_INIT_CAPS_H
#define NCCL_INIT_CAPS_H

#include "lib/buf.h"

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

/* What caps_plan() refused, beside its -errno. */
struct caps_refusal {
    const char *opt;  /* the option: "--cap-drop" or "--cap-add"; NULL: none */
    const char *name; /* -EINVAL: the unknown name, name[0..len) */
    size_t len;
    unsigned cap;     /* -EPERM: the capability nccl-init lacks */
};

/* Computes the child's sets from the init's own and the lists ("ALL",
 * "SYS_ADMIN", "CAP_NET_RAW", comma-separated), before the fork. Returns 0;
 * -EINVAL for a bad name and -EPERM for an add of a capability the init
 * itself lacks, both with *why set; or the -errno of reading the init's
 * own sets. The child's inheritable set is always empty, except that
 * without a cap option an ambient set that nccl-init inherited is passed
 * on (see caps.c). */
int caps_plan(struct caps_plan *p, const char *const *drop, size_t ndrop,
              const char *const *add, size_t nadd, struct caps_refusal *why);

/* caps_plan()'s failure err as one line: "--cap-drop: unknown capability
 * 'X'". */
void caps_refusal_text(struct buf *out, int err, const struct caps_refusal *why);

/* In the child, before exec: with a cap option, sets the bounding,
 * permitted and effective sets to p->keep and empties the inheritable and
 * ambient sets; without, only lowers the inheritable set as planned.
 * Allocates nothing. Returns 0, or -errno with *what naming the step that
 * failed ("set capabilities"). */
int caps_apply(const struct caps_plan *p, const char **what);

void caps_plan_free(struct caps_plan *p);

#endif
