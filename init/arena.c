/* A replacement malloc for the release binary only.
 *
 * nccl-init allocates a few kilobytes at start-up (profiles, the
 * environment) and nothing while it supervises, so a bump allocator on
 * mmap'd chunks is all it needs; musl's general-purpose allocator would be
 * an eighth of the binary. musl supports replacing malloc, calloc, realloc
 * and free together. free and realloc reclaim in place only for the most
 * recent block, which covers the temporary buffers; the rest lives until
 * exit. The unit tests and sanitizer builds use the C library's malloc so
 * that ASan still sees every allocation. */
#ifdef NCCL_INIT_ARENA

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>

#define CHUNK (64 * 1024)
#define ALIGN 16

struct header {
    size_t size;
    size_t pad; /* keeps the payload 16-byte aligned */
};

static char *cur, *end;
static struct header *last;

static size_t round_up(size_t n) { return (n + ALIGN - 1) & ~(size_t)(ALIGN - 1); }

void *malloc(size_t n)
{
    if (n > SIZE_MAX / 2) {
        errno = ENOMEM;
        return NULL;
    }
    size_t need = sizeof(struct header) + round_up(n ? n : 1);
    if (!cur || (size_t)(end - cur) < need) {
        size_t len = need > CHUNK ? round_up(need) : CHUNK;
        void *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (m == MAP_FAILED) {
            errno = ENOMEM;
            return NULL;
        }
        cur = m;
        end = cur + len;
    }
    last = (struct header *)cur;
    last->size = n;
    cur += need;
    return last + 1;
}

void free(void *p)
{
    if (p && (struct header *)p - 1 == last) {
        cur = (char *)last;
        last = NULL;
    }
}

void *calloc(size_t a, size_t b)
{
    if (b && a > SIZE_MAX / b) {
        errno = ENOMEM;
        return NULL;
    }
    void *p = malloc(a * b); /* mmap'd memory is zero, reused memory is not */
    if (p)
        memset(p, 0, a * b);
    return p;
}

void *realloc(void *p, size_t n)
{
    if (!p)
        return malloc(n);
    struct header *h = (struct header *)p - 1;
    if (h == last && (size_t)(end - (char *)p) >= round_up(n ? n : 1)) {
        cur = (char *)p + round_up(n ? n : 1);
        h->size = n;
        return p;
    }
    void *q = malloc(n);
    if (q)
        memcpy(q, p, h->size < n ? h->size : n);
    return q;
}

#endif
