#ifndef NCCL_INIT_SPAWN_H
#define NCCL_INIT_SPAWN_H

#include "supervise.h"

/* In the child after fork: process group, terminal, capabilities, the
 * inherited signal state, then exec. Exits 127/126 when exec fails. */
_Noreturn void spawn_exec(const struct child_spec *c);

#endif
