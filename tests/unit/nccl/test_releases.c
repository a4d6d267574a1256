/* releases.c over the generated nccl_releases.c: the data's shape (which
 * needs no ../shared/reference at run time), the lookups, and how
 * validate_entry reports a key the releases read differently. */
#include "helpers.h"

#include "lib/paths.h"
#include "nccl/nccl_table.h"
#include "nccl/releases.h"
#include "nccl/validate.h"

/* Sorted and unique (release_mask's bsearch), each name read by some
 * release, and as many per release as the reference lists: 187, 215, 245. */
static void names_are_sorted_and_counted(void **state)
{
    (void)state;
    size_t count[NCCL_RELEASES] = { 0 };
    for (size_t i = 0; i < release_names_count; i++) {
        if (i)
            assert_true(strcmp(release_names[i - 1].name, release_names[i].name) < 0);
        assert_int_not_equal(release_names[i].releases, 0);
        assert_true(release_names[i].releases < 1u << NCCL_RELEASES);
        for (int r = 0; r < NCCL_RELEASES; r++)
            count[r] += release_names[i].releases >> r & 1;
    }
    assert_int_equal(count[0], 187);
    assert_int_equal(count[1], 215);
    assert_int_equal(count[2], 245);
}

/* 2.28.9's names are exactly nccl_table.c's (the oracle-checked table). */
static void oldest_release_is_the_table(void **state)
{
    (void)state;
    size_t n = 0;
    for (size_t i = 0; i < release_names_count; i++)
        if (release_names[i].releases & 1) {
            assert_non_null(nccl_param_find(release_names[i].name));
            n++;
        }
    assert_int_equal(n, nccl_params_count);
}

/* Each change is a later release's, in release order per key, and names a
 * rule of its own kind (not one of 2.28.9's plain rules by mistake). */
static void changes_are_well_formed(void **state)
{
    (void)state;
    for (size_t i = 0; i < release_rules_count; i++) {
        const struct release_rule *c = &release_rules[i];
        assert_true(c->from > 0 && c->from < NCCL_RELEASES);
        assert_true(c->rule > R_GRAPH_FILE && c->rule < R_COUNT);
        assert_true(release_mask(c->key) & (1u << c->from));
        assert_non_null(strchr(c->source, ':'));
        if (i && strcmp(release_rules[i - 1].key, c->key) == 0)
            assert_true(release_rules[i - 1].from < c->from);
        else if (i)
            assert_true(strcmp(release_rules[i - 1].key, c->key) < 0);
    }
}

static void names_added_and_removed(void **state)
{
    (void)state;
    assert_int_equal(release_mask("NCCL_SHM_MEMCPY_MODE"), 3); /* removed in 2.30.7 */
    assert_int_equal(release_mask("NCCL_NO_CACHE"), 6);        /* added in 2.29.7 */
    assert_int_equal(release_mask("NCCL_DEV_API_JIT"), 4);     /* added in 2.30.7 */
    assert_int_equal(release_mask("NCCL_PROTO"), 7);
    assert_int_equal(release_mask("NCCL_NOT_A_NAME"), 0);
    assert_int_equal(release_rule("NCCL_SHM_MEMCPY_MODE", 2), -1);
    assert_int_equal(release_rule("NCCL_NO_CACHE", 0), -1);
}

static void rules_per_release(void **state)
{
    (void)state;
    assert_int_equal(release_rule("NCCL_CTA_POLICY", 0), R_CTA_POLICY);
    assert_int_equal(release_rule("NCCL_CTA_POLICY", 1), R_CTA_POLICY_ENUM);
    assert_int_equal(release_rule("NCCL_CTA_POLICY", 2), R_CTA_POLICY_ENUM);
    assert_int_equal(release_rule("NCCL_NO_CACHE", 1), R_NO_CACHE);
    assert_int_equal(release_rule("NCCL_NO_CACHE", 2), R_NO_CACHE_TRIM);
    assert_int_equal(release_rule("NCCL_SET_THREAD_NAME", 1), R_SWITCH_ONE);
    assert_int_equal(release_rule("NCCL_SET_THREAD_NAME", 2), R_BOOL);
    assert_int_equal(release_rule("NCCL_PROTO", 2), R_PROTO);
    assert_string_equal(release_change("NCCL_CTA_POLICY", 2)->changed_in, "2.29.2");
    assert_null(release_change("NCCL_CTA_POLICY", 0));
}

static void versions(void **state)
{
    (void)state;
    bool newer;
    assert_int_equal(release_parse("2.28.9", &newer), 0);
    assert_false(newer);
    assert_int_equal(release_parse("2.30.7+cuda13.0", &newer), 2);
    assert_int_equal(release_parse("2.32.3", &newer), 2);
    assert_true(newer);
    assert_int_equal(release_parse("3.0.0", &newer), 2);
    assert_true(newer);
    assert_int_equal(release_parse("2.29.3", &newer), -1); /* between two: neither's rules */
    assert_int_equal(release_parse("2.27.7", &newer), -1); /* older than the oldest */
    assert_int_equal(release_parse("2.30", &newer), -2); /* not X.Y.Z */
    assert_int_equal(release_parse("2.30.7x", &newer), -2);
    assert_int_equal(release_parse("", &newer), -2);
    assert_int_equal(release_parse(NULL, &newer), -2);
    char buf[64];
    release_list(buf, sizeof buf, 5);
    assert_string_equal(buf, "2.28.9, 2.30.7");
}

/* How each release reads nccl.conf (src/misc/param.cc setEnvFile): 2.30.3
 * reads lines with fgets into 4096 bytes and strips a trailing CR. The
 * nccl-conf sink writes keys and values of NCCL_CONF_MAX bytes at most
 * (every release's field buffers) and no control character, so no line it
 * writes is split, and no CR reaches a release that would strip it. */
static void conf_lines_stay_whole(void **state)
{
    (void)state;
    assert_int_equal(release_confs[0].line_max, 0); /* getline */
    assert_false(release_confs[0].strips_cr);
    assert_false(release_confs[0].home_env);
    assert_int_equal(release_confs[2].line_max, 4095);
    assert_true(release_confs[2].strips_cr);
    assert_true(release_confs[2].home_env);
    for (int r = 0; r < NCCL_RELEASES; r++)
        if (release_confs[r].line_max)
            assert_true(2 * NCCL_CONF_MAX + 1 < release_confs[r].line_max);
    char v[NCCL_CONF_MAX + 2];
    memset(v, 'a', sizeof v - 1);
    v[sizeof v - 1] = '\0';
    assert_true(nccl_conf_cuts("NCCL_SOCKET_IFNAME", v));
    v[NCCL_CONF_MAX] = '\0';
    assert_false(nccl_conf_cuts("NCCL_SOCKET_IFNAME", v));
}

static char *check_in(int release, const char *key, const char *value, unsigned *errors,
                      unsigned *warnings)
{
    struct entry e = { key, value, "t.env", 3, "t" };
    struct diag d = { 0 };
    validate_release(release);
    capture_begin();
    validate_entry(&e, NULL, DIAG_ERROR, &d);
    char *out = capture_end();
    *errors = d.errors, *warnings = d.warnings;
    validate_release(RELEASE_ALL);
    return out; /* the caller frees */
}

/* One release named: its finding, an error; every release: a warning
 * that says which holds where; wrong in all: an error. */
static void findings_per_release(void **state)
{
    (void)state;
    unsigned e, w;
    char *out = check_in(0, "NCCL_CTA_POLICY", "EFFICIENCY", &e, &w);
    assert_int_equal(e, 1);
    assert_contains(out, "not a number: NCCL reads it as 0");
    xfree(out);
    out = check_in(2, "NCCL_CTA_POLICY", "EFFICIENCY", &e, &w);
    assert_int_equal(e + w, 0);
    xfree(out);
    out = check_in(RELEASE_ALL, "NCCL_CTA_POLICY", "EFFICIENCY", &e, &w);
    assert_int_equal(e, 0);
    assert_int_equal(w, 1);
    assert_contains(out, "t.env:3: warning: NCCL_CTA_POLICY=EFFICIENCY: valid from 2.29.2; NCCL "
                         "2.28.9: not a number: NCCL reads it as 0");
    xfree(out);
    out = check_in(RELEASE_ALL, "NCCL_SET_THREAD_NAME", "2", &e, &w);
    assert_int_equal(e, 1);
    assert_contains(out, "NCCL 2.28.9, 2.29.7: out of range");
    assert_contains(out, "NCCL 2.30.7 (from 2.30.7): not a boolean");
    xfree(out);
    /* the same finding in each release: said once, as it always was */
    out = check_in(RELEASE_ALL, "NCCL_CTA_POLICY", "", &e, &w);
    assert_int_equal(w, 1);
    assert_string_equal(out, "t.env:3: warning: NCCL_CTA_POLICY=: empty: the same as not "
                             "setting it (NCCL uses its default)\n");
    xfree(out);
}

/* --strict's refusal of an environment value: under every release, only
 * what each refuses. */
static void refusals_per_release(void **state)
{
    (void)state;
    struct buf why = { 0 };
    assert_false(nccl_refuses("NCCL_CTA_POLICY", "EFFICIENCY", &why));
    assert_true(nccl_refuses("NCCL_SET_THREAD_NAME", "2", &why));
    assert_contains(why.data, "not a boolean");
    buf_free(&why);
    validate_release(0);
    assert_true(nccl_refuses("NCCL_CTA_POLICY", "EFFICIENCY", &why));
    assert_contains(why.data, "not a number");
    buf_free(&why);
    validate_release(2);
    assert_false(nccl_refuses("NCCL_CTA_POLICY", "EFFICIENCY", &why));
    validate_release(RELEASE_ALL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(names_are_sorted_and_counted),
        cmocka_unit_test(oldest_release_is_the_table),
        cmocka_unit_test(changes_are_well_formed),
        cmocka_unit_test(names_added_and_removed),
        cmocka_unit_test(rules_per_release),
        cmocka_unit_test(versions),
        cmocka_unit_test(conf_lines_stay_whole),
        cmocka_unit_test(findings_per_release),
        cmocka_unit_test(refusals_per_release),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
