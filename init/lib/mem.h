/* Allocation that cannot fail: an init that runs out of memory at
 * start-up says so and exits (1), before anything was started. */
#ifndef NCCL_INIT_MEM_H
#define NCCL_INIT_MEM_H

#include <stddef.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

void *xmalloc(size_t n);
void *xrealloc(void *p, size_t n);
/* What xmalloc, xrealloc, xstrdup and grow gave; NULL is fine. Not for
 * what libc allocated itself. */
void xfree(void *p);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
/* Grows *v (of element size sz) so that it holds at least need elements. */
void grow(void **v, size_t *cap, size_t need, size_t sz);

/* The fork is done: from now on any allocation here is a bug, and aborts
 * with "allocation after the fork" (init/README.md, "After the fork").
 * Freeing stays allowed. */
void mem_seal(void);

#endif
