/* The string map behind the key lookups that grow with a profile. */
#include "helpers.h"

#include "lib/strmap.h"

static void put_and_get(void **state)
{
    (void)state;
    struct strmap m = { 0 };
    assert_int_equal(strmap_get(&m, "A"), -1); /* empty: nothing allocated */
    assert_int_equal(strmap_put(&m, "A", 0), -1);
    assert_int_equal(strmap_put(&m, "B", 1), -1);
    assert_int_equal(strmap_put(&m, "", 2), -1); /* the empty key is a key */
    /* a key that is there keeps its value */
    assert_int_equal(strmap_put(&m, "A", 7), 0);
    assert_int_equal(strmap_get(&m, "A"), 0);
    assert_int_equal(strmap_get(&m, "B"), 1);
    assert_int_equal(strmap_get(&m, ""), 2);
    assert_int_equal(strmap_get(&m, "C"), -1);
    assert_int_equal(m.n, 3);
    strmap_free(&m);
    assert_null(m.v);
    assert_int_equal(m.n, 0);
}

/* 100,000 keys through many growths: every one found with its value, and
 * about one comparison a lookup (a scan would make it n/2). */
static void many_keys_few_compares(void **state)
{
    (void)state;
    enum { N = 100000 };
    char (*keys)[24] = xmalloc(N * sizeof *keys);
    struct strmap m = { 0 };
    for (size_t i = 0; i < N; i++) {
        snprintf(keys[i], sizeof keys[i], "NCCL_UNKNOWN_KEY_%zu", i);
        assert_int_equal(strmap_put(&m, keys[i], i), -1);
    }
    assert_true(m.compares < N / 100); /* a new key meets another of its hash seldom */
    m.compares = 0;
    for (size_t i = 0; i < N; i++)
        assert_int_equal(strmap_get(&m, keys[i]), (long long)i);
    assert_true(m.compares <= N + N / 100);
    assert_int_equal(strmap_get(&m, "NCCL_UNKNOWN_KEY_"), -1);
    assert_true(m.cap >= 2 * m.n);
    strmap_free(&m);
    xfree(keys);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(put_and_get),
        cmocka_unit_test(many_keys_few_compares),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
