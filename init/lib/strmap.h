/* A map from strings to indexes (an open-addressing hash table), for the
 * key lookups whose count grows with the input: a profile's duplicate keys,
 * the layering of profiles. A linear scan there made a profile of n keys
 * cost n*n/2 comparisons (30,000 unknown keys: seconds). */
#ifndef NCCL_INIT_STRMAP_H
#define NCCL_INIT_STRMAP_H

#include <stddef.h>
#include <stdint.h>

struct strmap_slot {
    const char *key; /* NULL: empty */
    size_t value;
    uint64_t hash;
};

/* Zeroed: empty. The keys are the caller's and must outlive the map. */
struct strmap {
    struct strmap_slot *v;
    size_t cap, n;
    /* key comparisons made (strcmp of two keys of one hash), for the
     * tests' bound on the work: a lookup's expected count is about 1 */
    unsigned long long compares;
};

/* The value of key, or -1 for none. */
long long strmap_get(struct strmap *m, const char *key);
/* Adds key with value when it is not there, and returns -1; else leaves
 * the map as it is and returns key's value. */
long long strmap_put(struct strmap *m, const char *key, size_t value);
void strmap_free(struct strmap *m);

#endif
