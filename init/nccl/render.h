/* Prints the canonical environment without writing anything. */
#ifndef NCCL_INIT_RENDER_H
#define NCCL_INIT_RENDER_H

#include "nccl/envset.h"
#include "lib/buf.h"

#include <stdbool.h>

/* KEY=VALUE lines, sorted: the resolved set (envset_in_set), or with all
 * the whole environment the command gets. The caller's environment holds
 * tokens and passwords: only all prints them. */
void render_env(struct buf *b, const struct envset *s, bool all);
/* One variable as a JSON object: key, value, source and where it came from. */
void json_var(struct buf *b, const struct var *v);
/* One JSON document: profiles, digest, and each variable with its source;
 * the variables as render_env chooses them. */
void render_json(struct buf *b, const struct envset *s, bool enforce, bool all);
/* The info line for what render without --all left out: how many, and
 * the NCCL_* names among them (NCCL reads them too), never a value. */
void render_log_left_out(const struct envset *s);

/* check --json: the findings, gathered by findings_collect (a
 * diag_collect_fn whose ctx is a struct findings) as JSON objects. */
struct findings {
    struct buf items; /* the objects, comma-separated */
    size_t n;
};
void findings_collect(void *ctx, int severity, const char *file, unsigned line, const char *key,
                      const char *msg);
/* The document: ok, the counts, the profiles read and the findings. */
void render_check_json(struct buf *b, const struct findings *f, const struct diag *d,
                       const struct profile *profiles, size_t n);

#endif
