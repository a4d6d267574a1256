/* SHA-256, for NCCL_INIT_DIGEST: any process can be traced to the exact
 * resolved set it was given. */
#ifndef NCCL_INIT_DIGEST_H
#define NCCL_INIT_DIGEST_H

#include <stddef.h>
#include <stdint.h>

struct sha256 {
    uint32_t h[8];
    uint64_t len;
    unsigned char block[64];
    size_t fill;
};

void sha256_init(struct sha256 *c);
void sha256_update(struct sha256 *c, const void *p, size_t n);
/* Writes 64 lowercase hex digits and a NUL. */
void sha256_hex(struct sha256 *c, char out[65]);

#endif
