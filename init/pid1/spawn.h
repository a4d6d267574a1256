#ifndef NCCL_INIT_SPAWN_H
#define NCCL_INIT_SPAWN_H

#include "pid1/supervise.h"

/* In the child after vfork, in the parent's memory: process group,
 * terminal, capabilities, the inherited signal state, then exec. System
 * calls only, on data built before the vfork: no allocation, no global
 * written that the parent reads. Exits 127/126 when exec fails. */
_Noreturn void spawn_exec(const struct child_spec *c);

#endif
