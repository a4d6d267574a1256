/* Allocation that cannot fail, from one arena while the init starts.
 *
 * A start allocates a few dozen small blocks (the profile's text, the
 * composed environment, the sinks' files) and frees them once the child
 * runs. They come from one arena in .bss, handed out in order; a block
 * too large for it goes to malloc. Against a build that takes every block
 * from malloc, the arena saved 47 µs of a start without sinks and 82 µs
 * of a restart as PID 1 (9 and 11 system calls, mallocng's mmaps and
 * their page faults; scripts/bench-startup.sh, 2000 interleaved rounds,
 * doc/performance.md). Freeing a block in the arena
 * gives its room back only when it is the last one, which is what the
 * grow-and-free patterns of the buffers need.
 *
 * This file sits below the log (lib/log.c uses the buffers, which use
 * this), so it says its two fatal errors itself. */
#include "lib/mem.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Under ASan what the arena has not handed out is poisoned, and each
 * block is followed by a poisoned red zone, so that an overrun is caught
 * here as it would be in malloc's blocks. */
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

#define ARENA_SIZE (64 * 1024)
#define BLOCK_MAX (ARENA_SIZE / 4) /* larger ones go to malloc */
#define HDR 16                     /* a block's size, and the alignment */

static _Alignas(HDR) unsigned char arena[ARENA_SIZE];
static size_t top; /* bytes handed out, headers included */
static bool sealed;

static _Noreturn void fatal(const char *line, size_t len)
{
    (void)!write(STDERR_FILENO, line, len);
    if (sealed)
        abort();
    exit(1);
}
#define FATAL(s) fatal(s, sizeof(s) - 1)

/* A block's bytes in the arena, from its header on. */
static size_t span(size_t n)
{
    return HDR + (n + HDR - 1) / HDR * HDR + RED;
}

static bool in_arena(const void *p)
{
    return (const unsigned char *)p >= arena && (const unsigned char *)p < arena + ARENA_SIZE;
}

static size_t *size_of(void *p)
{
    size_t *h = (size_t *)((unsigned char *)p - HDR);
    UNPOISON(h, sizeof *h);
    return h;
}

static void *alloc(size_t n)
{
    if (sealed)
        FATAL("nccl-init: error: allocation after the fork\n");
    n += !n; /* as malloc(0) does, a block of its own */
    if (n <= BLOCK_MAX && ARENA_SIZE - top >= span(n)) {
        if (!top)
            POISON(arena, ARENA_SIZE);
        unsigned char *p = arena + top;
        UNPOISON(p, HDR + n);
        *(size_t *)p = n;
        POISON(p, HDR);
        top += span(n);
        return p + HDR;
    }
    void *p = malloc(n);
    if (!p)
        FATAL("nccl-init: error: out of memory\n");
    return p;
}

void *xmalloc(size_t n) { return alloc(n); }

void xfree(void *p)
{
    if (!in_arena(p)) {
        free(p);
        return;
    }
    size_t *h = size_of(p), at = (size_t)((unsigned char *)h - arena);
    size_t end = at + span(*h);
    POISON(h, end - at);
    if (end == top)
        top = at;
}

void *xrealloc(void *p, size_t n)
{
    if (!p)
        return alloc(n);
    if (!in_arena(p)) {
        if (sealed)
            FATAL("nccl-init: error: allocation after the fork\n");
        void *q = realloc(p, n ? n : 1);
        if (!q)
            FATAL("nccl-init: error: out of memory\n");
        return q;
    }
    size_t *h = size_of(p), at = (size_t)((unsigned char *)h - arena), old = *h;
    if (at + span(old) == top && n && n <= BLOCK_MAX && ARENA_SIZE - at >= span(n) && !sealed) {
        /* the last block grows or shrinks where it is */
        UNPOISON(p, n);
        POISON((unsigned char *)p + n, ARENA_SIZE - at - HDR - n);
        *h = n;
        POISON(h, HDR);
        top = at + span(n);
        return p;
    }
    POISON(h, HDR);
    void *q = alloc(n);
    memcpy(q, p, old < n ? old : n);
    xfree(p);
    return q;
}

void mem_seal(void) { sealed = true; }

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
