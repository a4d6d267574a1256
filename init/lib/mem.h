/* Allocation that cannot fail: an init that runs out of memory at
 * start-up says so and exits (1), before anything was started. */
#ifndef NCCL_INIT_MEM_H
#define NCCL_INIT_MEM_H

#include <stddef.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* For the few small variables every start reads before it writes them. In
 * .bss that read maps the zero page and the first write faults again: two
 * page faults (some 4 µs each on the benchmark's VM) on whichever page the
 * linker put them. .data's page is written at exec anyway (the kernel
 * clears the part of it where .bss begins), so there they cost none. */
#define START_DATA __attribute__((section(".data")))

void *xmalloc(size_t n);
void *xrealloc(void *p, size_t n);
/* realloc() that does not die: NULL on failure, p left as it was. For the
 * one place after the fork that allocates (buf.h, soft buffers). */
void *try_realloc(void *p, size_t n);
/* What xmalloc, xrealloc, xstrdup and grow gave; NULL is fine. Not for
 * what libc allocated itself. */
void xfree(void *p);
/* Start-up is over (the child runs): the start-up region gives its pages
 * back, and from now on every allocation is malloc's. */
void mem_close(void);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
/* Grows *v (of element size sz) so that it holds at least need elements. */
void grow(void **v, size_t *cap, size_t need, size_t sz);

#endif
