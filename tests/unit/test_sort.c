/* init/sort.c: ordered and stable. */
#include "helpers.h"

struct pair {
    int key, order;
};

static int cmp_pair(const void *a, const void *b)
{
    return ((const struct pair *)a)->key - ((const struct pair *)b)->key;
}

/* Stable and ordered for the stack's scratch space (n * size up to 2048)
 * and the heap's, on random keys, two sorted runs (the environment's
 * shape, where halves in order skip their merge) and reversed input. */
static void sort_is_stable(void **state)
{
    (void)state;
    static const size_t sizes[] = { 2, 3, 50, 256, 257, 1000 };
    struct pair v[1000];
    srand(2);
    for (size_t s = 0; s < ARRAY_SIZE(sizes); s++) {
        int n = (int)sizes[s];
        for (int shape = 0; shape < 3; shape++) {
            for (int i = 0; i < n; i++) {
                int key = shape == 0 ? rand() % 17 : shape == 1 ? (i < n / 3 ? i : i - n / 3) : n - i;
                v[i] = (struct pair){ key, i };
            }
            sort(v, (size_t)n, sizeof v[0], cmp_pair);
            for (int i = 1; i < n; i++) {
                assert_true(v[i - 1].key <= v[i].key);
                if (v[i - 1].key == v[i].key)
                    assert_true(v[i - 1].order < v[i].order);
            }
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(sort_is_stable),
    };
    return cmocka_run_group_tests_name("sort", tests, NULL, NULL);
}
