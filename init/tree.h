/* The process tree nccl-init is responsible for. */
#ifndef NCCL_INIT_TREE_H
#define NCCL_INIT_TREE_H

#include <sys/types.h>

/* Sends sig to every process of the tree: as PID 1, every process in the
 * namespace; otherwise every descendant (a subreaper adopts the orphans, so
 * they are all below it). Processes in process group skip_pgid (0: none)
 * are left out. Returns how many were signalled. */
unsigned tree_signal(int sig, pid_t skip_pgid);

#endif
