/* Read-only relocations for the static-pie binary. */
#ifndef NCCL_INIT_RELRO_H
#define NCCL_INIT_RELRO_H

/* Makes the binary's PT_GNU_RELRO range read-only, as a dynamic loader
 * would. Returns 0, or -errno when the kernel refuses. */
int relro_seal(void);

#endif
