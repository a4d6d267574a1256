#include "lib/strmap.h"

#include "lib/mem.h"

#include <string.h>

/* FNV-1a, 64 bits. */
static uint64_t hash_of(const char *s)
{
    uint64_t h = 14695981039346656037ull;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

/* The slot of key (hash h), or the empty one where it would go: linear
 * probing in a table at most half full. */
static struct strmap_slot *slot_of(struct strmap *m, const char *key, uint64_t h)
{
    size_t mask = m->cap - 1;
    for (size_t i = (size_t)h & mask;; i = (i + 1) & mask) {
        struct strmap_slot *s = &m->v[i];
        if (!s->key)
            return s;
        if (s->hash == h) {
            m->compares++;
            if (strcmp(s->key, key) == 0)
                return s;
        }
    }
}

long long strmap_get(struct strmap *m, const char *key)
{
    if (!m->n)
        return -1;
    const struct strmap_slot *s = slot_of(m, key, hash_of(key));
    return s->key ? (long long)s->value : -1;
}

/* Doubles the table (16 slots at first), every key moved by its hash. */
static void rehash(struct strmap *m)
{
    struct strmap old = *m;
    m->cap = old.cap ? old.cap * 2 : 16;
    m->v = xmalloc(m->cap * sizeof *m->v);
    memset(m->v, 0, m->cap * sizeof *m->v);
    for (size_t i = 0; i < old.cap; i++) {
        if (!old.v[i].key)
            continue;
        size_t j = (size_t)old.v[i].hash & (m->cap - 1);
        while (m->v[j].key)
            j = (j + 1) & (m->cap - 1);
        m->v[j] = old.v[i];
    }
    xfree(old.v);
}

long long strmap_put(struct strmap *m, const char *key, size_t value)
{
    if ((m->n + 1) * 2 > m->cap)
        rehash(m);
    uint64_t h = hash_of(key);
    struct strmap_slot *s = slot_of(m, key, h);
    if (s->key)
        return (long long)s->value;
    *s = (struct strmap_slot){ key, value, h };
    m->n++;
    return -1;
}

void strmap_free(struct strmap *m)
{
    xfree(m->v);
    memset(m, 0, sizeof *m);
}
