/* Prints the canonical environment without writing anything. */
#ifndef NCCL_INIT_RENDER_H
#define NCCL_INIT_RENDER_H

#include "nccl/envset.h"
#include "lib/buf.h"

#include <stdbool.h>

/* KEY=VALUE lines, sorted. */
void render_env(struct buf *b, const struct envset *s);
/* One variable as a JSON object: key, value, source and where it came from. */
void json_var(struct buf *b, const struct var *v);
/* One JSON document: profiles, digest, and each variable with its source. */
void render_json(struct buf *b, const struct envset *s, bool enforce);

#endif
