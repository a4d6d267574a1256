/* lib/sort.c: ordered and stable. */
#include "helpers.h"

struct pair {
    int key, order; /* 8 bytes */
};

struct triple {
    int key, order, pad; /* 12 bytes */
};

struct wide {
    long key, order, pad[4]; /* 48 bytes, as envset's struct var */
};

#define CMP(name, type)                                                                        \
    static int name(const void *a, const void *b)                                              \
    {                                                                                          \
        return (int)(((const type *)a)->key - ((const type *)b)->key);                         \
    }
CMP(cmp_pair, struct pair)
CMP(cmp_triple, struct triple)
CMP(cmp_wide, struct wide)

/* Ordered and stable on random keys, two sorted runs (the environment's
 * shape, where halves in order skip their merge) and reversed input, for
 * sizes around powers of two (where the halves split evenly or not), and
 * for items of 8, 12 and 48 bytes. */
#define CHECK(type, cmp)                                                                       \
    do {                                                                                       \
        static type v[1000];                                                                   \
        for (int shape = 0; shape < 3; shape++) {                                              \
            for (int i = 0; i < n; i++) {                                                      \
                int key = shape == 0   ? rand() % 17                                           \
                          : shape == 1 ? (i < n / 3 ? i : i - n / 3)                           \
                                       : n - i;                                                \
                memset(&v[i], 0, sizeof v[i]);                                                 \
                v[i].key = key;                                                                \
                v[i].order = i;                                                                \
            }                                                                                  \
            sort(v, (size_t)n, sizeof v[0], cmp);                                              \
            for (int i = 1; i < n; i++) {                                                      \
                assert_true(v[i - 1].key <= v[i].key);                                         \
                if (v[i - 1].key == v[i].key)                                                  \
                    assert_true(v[i - 1].order < v[i].order);                                  \
            }                                                                                  \
        }                                                                                      \
    } while (0)

static void sort_is_stable(void **state)
{
    (void)state;
    static const int sizes[] = { 0, 1, 2, 3, 7, 8, 9, 16, 17, 50, 256, 257, 1000 };
    srand(2);
    for (size_t s = 0; s < ARRAY_SIZE(sizes); s++) {
        int n = sizes[s];
        CHECK(struct pair, cmp_pair);
        CHECK(struct triple, cmp_triple);
        CHECK(struct wide, cmp_wide);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(sort_is_stable),
    };
    return cmocka_run_group_tests_name("sort", tests, NULL, NULL);
}
