/* Allocation that cannot fail, and the start-up region.
 *
 * Start-up allocates a few dozen small blocks (the profile's text, the
 * composed environment, the sinks' files) and frees them all once the
 * child has exec'd. Through mallocng each size class took a group of its
 * own, mmap'd far from the binary: three mmaps with their page-table pages
 * and faults, and three munmaps, some 90 µs of a start on the benchmark's
 * VM (scripts/bench-startup.sh; the floor itself takes 420). So until
 * mem_close() they come from one region in .bss, next to the binary,
 * handed out in order; what does not fit (a large profile, a big inherited
 * environment) goes to malloc as before, so a large input never stays
 * resident. mem_close(), called once the child runs, gives the region's
 * pages back to the kernel (madvise: the range stays mapped, zero-filled
 * on the next touch) above the last block still in use: the options' few
 * arrays, which live as long as the init. From then on every allocation is
 * malloc's, and nothing is ever allocated from the region again. */
#include "lib/mem.h"

#include "lib/log.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

/* Under ASan the region poisons what it has not handed out, and each block
 * is followed by a poisoned red zone, so that an overrun is caught here as
 * it would be in malloc's blocks. */
#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#define RED 16
#define POISON(p, n) ASAN_POISON_MEMORY_REGION(p, n)
#define UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION(p, n)
#else
#define RED 0
#define POISON(p, n) ((void)(p), (void)(n))
#define UNPOISON(p, n) ((void)(p), (void)(n))
#endif

#define REGION_SIZE (32 * 1024)
#define BLOCK_MAX (REGION_SIZE / 4) /* larger ones go to malloc */
#define HDR 16                      /* the block's size, and alignment */

/* Right after .bss, not on a page of its own: the page that ends .data
 * and .bss is resident before main (the kernel zeroes its tail, libc's
 * start-up writes there), and its last 2 KB now take the region's first
 * blocks, one page fault fewer per start (a fresh page costs 2.5 µs on the
 * benchmark's VM, as much as ten system calls). GNU ld's default script
 * puts .dynlbss first in .lbss, ahead of the directory buffers kept there
 * (tree.c, verify.c). The "#" ends the section's name for the assembler
 * and comments out the flags GCC would append: a name GCC does not know as
 * .bss would otherwise be PROGBITS, 32 KB of zeros in the file. mem_close()
 * gives back whole pages only. */
static unsigned char region[REGION_SIZE] __attribute__((aligned(HDR), section(".dynlbss,\"aw\",@nobits#")));
static START_DATA size_t top;  /* bytes handed out, headers included */
static START_DATA size_t high; /* the most top was: the pages touched */
static START_DATA size_t live; /* blocks not yet freed */
static START_DATA bool closed; /* mem_close() ran: malloc only */

struct hdr {
    uint32_t n; /* the caller's bytes */
    uint32_t used;
};

/* A block's bytes in the region, from its header on. */
static size_t span(size_t n)
{
    return HDR + (n + HDR - 1) / HDR * HDR + RED;
}

static bool in_region(const void *p)
{
    return (const unsigned char *)p >= region && (const unsigned char *)p < region + REGION_SIZE;
}

static struct hdr *hdr_of(void *p)
{
    struct hdr *h = (struct hdr *)((unsigned char *)p - HDR);
    UNPOISON(h, HDR);
    return h;
}

static void *region_alloc(size_t n)
{
    n += !n; /* as malloc(0) does, a block of its own */
    if (closed || n > BLOCK_MAX || REGION_SIZE - top < span(n))
        return NULL;
    if (!top)
        POISON(region, REGION_SIZE);
    unsigned char *p = region + top;
    UNPOISON(p, HDR + n);
    *(struct hdr *)p = (struct hdr){ (uint32_t)n, 1 };
    POISON(p, HDR);
    top += span(n);
    high = top > high ? top : high;
    live++;
    return p + HDR;
}

void *xmalloc(size_t n)
{
    void *p = region_alloc(n);
    if (!p && !(p = malloc(n ? n : 1)))
        die(1, "out of memory");
    return p;
}

void xfree(void *p)
{
    if (!in_region(p)) {
        free(p);
        return;
    }
    struct hdr *h = hdr_of(p);
    size_t at = (size_t)((unsigned char *)h - region), end = at + span(h->n);
    h->used = 0;
    POISON(h, end - at);
    live--;
    if (end == top && !closed)
        top = at; /* the last block: grow-and-free patterns reuse it */
}

void *try_realloc(void *p, size_t n)
{
    if (!p) {
        void *q = region_alloc(n);
        return q ? q : malloc(n ? n : 1);
    }
    if (!in_region(p))
        return realloc(p, n ? n : 1);
    struct hdr *h = hdr_of(p);
    size_t at = (size_t)((unsigned char *)h - region), old = h->n;
    if (!closed && at + span(old) == top && n <= BLOCK_MAX && REGION_SIZE - at >= span(n)) {
        /* the last block grows or shrinks where it is */
        UNPOISON(p, n);
        POISON((unsigned char *)p + n, REGION_SIZE - at - HDR - n);
        h->n = (uint32_t)n;
        POISON(h, HDR);
        top = at + span(n);
        high = top > high ? top : high;
        return p;
    }
    POISON(h, HDR);
    if (n <= old) {
        POISON((unsigned char *)p + n, old - n);
        return p;
    }
    void *q = region_alloc(n);
    if (!q && !(q = malloc(n)))
        return NULL; /* p is left as it was */
    memcpy(q, p, old < n ? old : n);
    xfree(p);
    return q;
}

void *xrealloc(void *p, size_t n)
{
    void *q = try_realloc(p, n);
    if (!q)
        die(1, "out of memory");
    return q;
}

void mem_close(void)
{
    if (closed)
        return;
    closed = true;
    /* The end of the last block still in use; above it nothing is. */
    size_t end = 0;
    for (size_t at = 0; at < top;) {
        struct hdr *h = hdr_of(region + at + HDR);
        size_t next = at + span(h->n);
        if (h->used)
            end = next;
        POISON(h, HDR);
        at = next;
    }
    /* Whole pages within the region: from the first page boundary after
     * the last block in use (never the shared page it starts on) to the
     * last one before the region's end. */
    const uintptr_t page = 4096, at = (uintptr_t)region;
    uintptr_t from = (at + end + page - 1) & ~(page - 1), to = (at + high + page - 1) & ~(page - 1);
    if (to > ((at + REGION_SIZE) & ~(page - 1)))
        to = (at + REGION_SIZE) & ~(page - 1);
    if (to > from)
        madvise((void *)from, to - from, MADV_DONTNEED);
    log_debug("start-up region: %zu bytes at most, %zu block%s (%zu bytes) kept, %zu bytes returned",
              high, live, live == 1 ? "" : "s", end, to - from);
}

char *xstrndup(const char *s, size_t n)
{
    char *d = xmalloc(n + 1);
    memcpy(d, s, n);
    d[n] = '\0';
    return d;
}

char *xstrdup(const char *s) { return xstrndup(s, strlen(s)); }

void grow(void **v, size_t *cap, size_t need, size_t sz)
{
    if (need <= *cap)
        return;
    size_t c = *cap ? *cap : 8;
    while (c < need)
        c *= 2;
    *v = xrealloc(*v, c * sz);
    *cap = c;
}
