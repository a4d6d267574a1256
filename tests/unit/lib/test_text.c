/* init/text.c: NCCL's integer reading against strtoll, UTF-8, bytes. */
#include "helpers.h"

#include <errno.h>
#include <limits.h>

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

static void utf8_and_bytes(void **state)
{
    (void)state;
    assert_true(utf8_valid("h\xc3\xa9llo \xe2\x82\xac \xf0\x9f\x98\x80", 16));
    assert_false(utf8_valid("\xc0\x80", 2));         /* overlong NUL */
    assert_false(utf8_valid("\xe0\x80\x80", 3));     /* overlong */
    assert_false(utf8_valid("\xf4\x90\x80\x80", 4)); /* above U+10FFFF */
    assert_false(utf8_valid("\xe2\x82", 2));         /* truncated */
    static const char hay[] = "abcabd";
    assert_ptr_equal(memmem(hay, 6, "abd", 3), hay + 3);
    assert_null(memmem(hay, 6, "abe", 3));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(integer_parse_matches_strtoll),
        cmocka_unit_test(utf8_and_bytes),
    };
    return cmocka_run_group_tests_name("text", tests, NULL, NULL);
}
