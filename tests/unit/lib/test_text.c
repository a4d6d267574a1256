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

static char *escaped(const char *s, size_t n, bool backslash)
{
    struct buf b = { 0 };
    buf_escaped(&b, s, n, backslash);
    return b.data ? b.data : xstrdup("");
}

/* What reaches a terminal: no control, no bidi or other invisible format
 * character, no byte that is not UTF-8; letters of any script as they are;
 * with backslash, a literal "\x1b" reads back as itself, not as an ESC. */
static void escaping(void **state)
{
    (void)state;
    static const struct {
        const char *in, *out;
    } cases[] = {
        { "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80" },
        { "a\x1b[31mb\x07\x7f", "a\\x1b[31mb\\x07\\x7f" },
        { "\xc2\x9b" "2J \xc2\x85", "\\xc2\\x9b2J \\xc2\\x85" },        /* C1: CSI, NEL */
        { "\xc2\xa0", "\xc2\xa0" },                                  /* U+00A0 prints */
        { "x\xe2\x80\xaey", "x\\xe2\\x80\\xaey" },                   /* U+202E RLO */
        { "\xe2\x80\xa8\xe2\x80\xa9", "\\xe2\\x80\\xa8\\xe2\\x80\\xa9" }, /* LS, PS */
        { "\xe2\x80\x8e\xe2\x80\x8f", "\\xe2\\x80\\x8e\\xe2\\x80\\x8f" }, /* LRM, RLM */
        { "\xe2\x80\xaa", "\\xe2\\x80\\xaa" },                        /* LRE */
        { "\xe2\x81\xa6\xe2\x81\xa9", "\\xe2\\x81\\xa6\\xe2\\x81\\xa9" }, /* LRI, PDI */
        { "\xe2\x80\x8b\xef\xbb\xbf", "\\xe2\\x80\\x8b\\xef\\xbb\\xbf" }, /* ZWSP, BOM */
        { "\xd8\x9c", "\\xd8\\x9c" },                                  /* ALM */
        { "\xf3\xa0\x81\x81", "\\xf3\\xa0\\x81\\x81" },               /* TAG A */
        { "\xe2\x80\xb0\xe2\x81\xb0", "\xe2\x80\xb0\xe2\x81\xb0" },       /* per mille, x^0 */
        { "\xff\xc3", "\\xff\\xc3" },                                  /* not UTF-8 */
        { "\xe2\x80", "\\xe2\\x80" },                                  /* cut short */
    };
    for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
        char *e = escaped(cases[i].in, strlen(cases[i].in), false);
        if (strcmp(e, cases[i].out) != 0)
            fail_msg("case %zu: \"%s\", expected \"%s\"", i, e, cases[i].out);
        xfree(e);
    }
    /* the backslash itself: an ESC and the four characters \x1b differ */
    char *a = escaped("\x1b", 1, true), *b = escaped("\\x1b", 4, true);
    assert_string_equal(a, "\\x1b");
    assert_string_equal(b, "\\\\x1b");
    xfree(a);
    xfree(b);
    a = escaped("\\x1b", 4, false);
    assert_string_equal(a, "\\x1b");
    xfree(a);
}

/* buf_escaped_fit: whole characters and whole escapes only. */
static void escaping_fits(void **state)
{
    (void)state;
    char out[64];
    struct buf b = BUF_FIXED(out);
    assert_int_equal(buf_escaped_fit(&b, "ab\xe2\x82\xac", 5, true, 4), 2);
    assert_string_equal(out, "ab");
    b.len = 0;
    assert_int_equal(buf_escaped_fit(&b, "ab\xe2\x82\xac", 5, true, 5), 5);
    b.len = 0;
    assert_int_equal(buf_escaped_fit(&b, "a\x1b", 2, true, 4), 1);
    assert_int_equal(b.len, 1);
    b.len = 0;
    assert_int_equal(buf_escaped_fit(&b, "a\x1b", 2, true, 5), 2);
    assert_string_equal(out, "a\\x1b");
    b.len = 0;
    assert_int_equal(buf_escaped_fit(&b, "\xe2\x80\xae", 3, true, 11), 0);
    assert_int_equal(buf_escaped_fit(&b, "\\", 1, true, 1), 0);
    assert_int_equal(buf_escaped_fit(&b, "\\", 1, true, 2), 1);
}

/* -p NAME's rule, which auto.rules' profiles follow too: never a path. */
static void profile_names(void **state)
{
    (void)state;
    assert_true(profile_name_valid("pcie-8gpu"));
    assert_true(profile_name_valid("my_profile.v2"));
    assert_false(profile_name_valid(""));
    assert_false(profile_name_valid(".hidden"));
    assert_false(profile_name_valid("-p"));
    assert_false(profile_name_valid("../x"));
    assert_false(profile_name_valid("/tmp/x/evil"));
    assert_false(profile_name_valid("a b"));
    assert_false(profile_name_valid("x\033[1m"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(integer_parse_matches_strtoll),
        cmocka_unit_test(utf8_and_bytes),
        cmocka_unit_test(escaping),
        cmocka_unit_test(escaping_fits),
        cmocka_unit_test(profile_names),
    };
    return cmocka_run_group_tests_name("text", tests, NULL, NULL);
}
