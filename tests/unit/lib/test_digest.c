/* init/digest.c: SHA-256 against the FIPS 180-4 examples. */
#include "helpers.h"

#include "lib/digest.h"

static void hex_of(const char *msg, size_t n, size_t chunk, char out[65])
{
    struct sha256 h;
    sha256_init(&h);
    for (size_t at = 0; at < n; at += chunk)
        sha256_update(&h, msg + at, n - at < chunk ? n - at : chunk);
    sha256_hex(&h, out);
}

static void fips_examples(void **state)
{
    (void)state;
    static const struct {
        const char *msg, *want;
    } cases[] = {
        { "", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855" },
        { "abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad" },
        /* 56 bytes: the padding takes a second block */
        { "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
          "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1" },
        { "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmn"
          "opqrsmnopqrstnopqrstu",
          "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1" },
    };
    char hex[65];
    for (size_t i = 0; i < ARRAY_SIZE(cases); i++)
        for (size_t chunk = 1; chunk <= 64; chunk *= 4) { /* fed whole or in pieces */
            hex_of(cases[i].msg, strlen(cases[i].msg), chunk > 1 ? chunk : 1, hex);
            assert_string_equal(hex, cases[i].want);
        }
    hex_of(cases[1].msg, 3, 1000, hex);
    assert_string_equal(hex, cases[1].want);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(fips_examples),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
