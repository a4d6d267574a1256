/* The buffer's printf against the C library's, and the helpers that stand
 * in for C library functions (parse_c_integer for strtoll). */
#include "helpers.h"

#include <errno.h>
#include <limits.h>

static void printf_matches_libc(void **state)
{
    (void)state;
    struct buf b = { 0 };
    char want[256];
    buf_printf(&b, "%s|%5s|%-5s|%.3s|%.*s|%c|%%", "abc", "ab", "ab", "abcdef", 2, "xyz", 'q');
    snprintf(want, sizeof want, "%s|%5s|%-5s|%.3s|%.*s|%c|%%", "abc", "ab", "ab", "abcdef", 2,
             "xyz", 'q');
    assert_string_equal(b.data, want);
    buf_free(&b);
    buf_printf(&b, "%d %d %u %x %02x %04x %ld %lld %lld %zu %3d|%-3d|", 0, -42, 4000000000u,
               255u, 7u, 0xabu, -1L, LLONG_MIN, LLONG_MAX, (size_t)123, 5, 5);
    snprintf(want, sizeof want, "%d %d %u %x %02x %04x %ld %lld %lld %zu %3d|%-3d|", 0, -42,
             4000000000u, 255u, 7u, 0xabu, -1L, LLONG_MIN, LLONG_MAX, (size_t)123, 5, 5);
    assert_string_equal(b.data, want);
    buf_free(&b);
}

static void fixed_buffers_truncate(void **state)
{
    (void)state;
    char small[8];
    struct buf b = BUF_FIXED(small);
    buf_printf(&b, "%s-%d", "abcdef", 12345);
    assert_string_equal(small, "abcdef-");
    assert_int_equal(b.len, 7);
}

/* NCCL reads integers with strtoll(s, NULL, 0): our stand-in must agree. */
static void integer_parse_matches_strtoll(void **state)
{
    (void)state;
    const char *cases[] = { "0", "16", "16M", "010", "08", "0x10", "0X1f", "0x", "0xg", "-5",
                            "+7", " 9", "abc", "", "-", "9223372036854775807",
                            "-9223372036854775808", "077777", "1e6", "\t12" };
    for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
        long long mine;
        assert_true(parse_c_integer(cases[i], &mine));
        errno = 0;
        long long theirs = strtoll(cases[i], NULL, 0);
        assert_int_equal(errno, 0);
        if (mine != theirs)
            fail_msg("\"%s\": %lld, strtoll says %lld", cases[i], mine, theirs);
    }
    long long v;
    assert_false(parse_c_integer("9223372036854775808", &v));
    assert_false(parse_c_integer("0x8000000000000000", &v));
    /* random digits and prefixes */
    srand(1);
    for (int i = 0; i < 20000; i++) {
        char s[24];
        const char alphabet[] = "0123456789abcdefxX-+ M";
        size_t n = (size_t)(rand() % 22);
        for (size_t j = 0; j < n; j++)
            s[j] = alphabet[rand() % (int)(sizeof alphabet - 1)];
        s[n] = '\0';
        errno = 0;
        long long theirs = strtoll(s, NULL, 0);
        bool fits = errno != ERANGE;
        assert_int_equal(parse_c_integer(s, &v), fits);
        if (fits && v != theirs)
            fail_msg("\"%s\": %lld, strtoll says %lld", s, v, theirs);
    }
}

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

static void utf8_and_paths(void **state)
{
    (void)state;
    assert_true(utf8_valid("h\xc3\xa9llo \xe2\x82\xac \xf0\x9f\x98\x80", 16));
    assert_false(utf8_valid("\xc0\x80", 2));         /* overlong NUL */
    assert_false(utf8_valid("\xe0\x80\x80", 3));     /* overlong */
    assert_false(utf8_valid("\xf4\x90\x80\x80", 4)); /* above U+10FFFF */
    assert_false(utf8_valid("\xe2\x82", 2));         /* truncated */
    char *p = path_join("/root/", "/etc/x");
    assert_string_equal(p, "/root/etc/x");
    free(p);
    p = path_join("/", "etc");
    assert_string_equal(p, "/etc");
    free(p);
    const char *cases[][3] = {
        { "/usr/bin", "..", "/usr" },
        { "/opt/p/bin/", "../lib/./python3.11", "/opt/p/lib/python3.11" },
        { "/", "..", "/" },
        { "/a", "../../b", "/b" },
        { "rel/dir", "../x", "rel/x" },
        { "..", "../x", "../../x" },
        { "a", "..", "." },
        { "/a//b", "c//d/", "/a/b/c/d" },
    };
    for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
        p = path_join(cases[i][0], cases[i][1]);
        if (strcmp(p, cases[i][2]) != 0)
            fail_msg("path_join(%s, %s) = %s, want %s", cases[i][0], cases[i][1], p, cases[i][2]);
        free(p);
    }
    static const char hay[] = "abcabd";
    assert_ptr_equal(find_bytes(hay, 6, "abd", 3), hay + 3);
    assert_null(find_bytes(hay, 6, "abe", 3));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(printf_matches_libc),
        cmocka_unit_test(fixed_buffers_truncate),
        cmocka_unit_test(integer_parse_matches_strtoll),
        cmocka_unit_test(sort_is_stable),
        cmocka_unit_test(utf8_and_paths),
    };
    return cmocka_run_group_tests_name("util", tests, NULL, NULL);
}
