/* resolve: the path check and a start share, from profile files to the
 * canonical environment. Here: its cost in the number of keys. */
#include "helpers.h"

#include "nccl/resolve.h"

#include <sys/stat.h>

/* Every key comparison of the code under test goes through strcmp: this
 * definition in the test binary takes the place of the C library's (and
 * the sanitizer's) and counts them. Deterministic, where a time is not
 * (the project has no timed assertions). */
static unsigned long long strcmp_calls;

int strcmp(const char *a, const char *b)
{
    strcmp_calls++;
    const unsigned char *x = (const unsigned char *)a, *y = (const unsigned char *)b;
    while (*x && *x == *y)
        x++, y++;
    return *x - *y;
}

static void quiet(void *ctx, int severity, const char *file, unsigned line, const char *key,
                  const char *msg)
{
    (void)file, (void)line, (void)key, (void)msg;
    unsigned *warnings = ctx;
    *warnings += severity == DIAG_WARNING;
}

/* The strcmp calls of check (resolve_profiles, each file on its own too)
 * and of a start's composition (resolve_environment) for a profile of n
 * unknown NCCL_ keys, each one warning. */
static unsigned long long compares_for(const char *dir, size_t n)
{
    char path[256];
    snprintf(path, sizeof path, "%s/big%zu.env", dir, n);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    for (size_t i = 0; i < n; i++)
        fprintf(f, "NCCL_UNKNOWN_KEY_%zu=%zu\n", i, i);
    fclose(f);
    const char *profiles[] = { path };
    unsigned warnings = 0;
    struct resolve_options o = { .profiles = profiles, .nprofiles = 1, .profile_dir = dir,
                                 .each_alone = true, .collect = quiet, .collect_ctx = &warnings };
    struct resolved r;
    char *envp[] = { "PATH=/usr/bin", NULL };
    strcmp_calls = 0;
    assert_int_equal(resolve_profiles(&r, &o), 0);
    resolve_environment(&r, &o, envp);
    unsigned long long calls = strcmp_calls;
    assert_int_equal(warnings, n);
    assert_int_equal(r.env.resolved, n);
    resolved_free(&r);
    unlink(path);
    return calls;
}

/* A profile of 30,000 unknown keys took 2.9 s to check and 5.5 s to start:
 * the duplicate check and the layering compared each key with every one
 * before it. Ten times the keys may cost about ten times the comparisons
 * (the sort adds a log factor: 13 at most from 1,000 to 10,000 keys), not
 * a hundred times. */
static void cost_is_linear_in_keys(void **state)
{
    (void)state;
    char dir[] = "/tmp/nccl-init-resolve.XXXXXX";
    assert_non_null(mkdtemp(dir));
    unsigned long long small = compares_for(dir, 1000), big = compares_for(dir, 10000);
    rmdir(dir);
    print_message("strcmp calls: %llu for 1,000 keys, %llu for 10,000 (%.1f times)\n", small,
                  big, (double)big / (double)small);
    if (big > 20 * small)
        fail_msg("10,000 keys cost %llu comparisons, %.1f times the %llu of 1,000: not linear",
                 big, (double)big / (double)small, small);
    /* and each key a bounded number: the sort's log2(10,000) = 14 and a
     * few lookups */
    if (big > 10000ull * 60)
        fail_msg("%llu comparisons for 10,000 keys: over 60 a key", big);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(cost_is_linear_in_keys),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
