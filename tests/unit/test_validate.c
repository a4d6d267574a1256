/* The validator: every value NCCL 2.28.9 would silently misread or reject. */
#include "helpers.h"

#include "nccl_table.h"
#include "validate.h"

#include <errno.h>
#include <fcntl.h>

struct result {
    unsigned errors, warnings;
    char *out;
};

static struct result check_with(const char *key, const char *value, const struct known_names *k)
{
    struct entry e = { key, value, "t.env", 7, "t" };
    struct diag d = { 0 };
    capture_begin();
    validate_entry(&e, k, DIAG_ERROR, &d);
    return (struct result){ d.errors, d.warnings, capture_end() };
}

static struct result check(const char *key, const char *value)
{
    return check_with(key, value, NULL);
}

static void ok(const char *key, const char *value)
{
    struct result r = check(key, value);
    if (r.errors || r.warnings)
        fail_msg("%s=%s should pass, got:\n%s", key, value, r.out);
    free(r.out);
}

static void error(const char *key, const char *value, const char *want)
{
    struct result r = check(key, value);
    if (r.errors != 1)
        fail_msg("%s=%s: expected one error, got %u:\n%s", key, value, r.errors, r.out);
    assert_contains(r.out, "t.env:7: error: ");
    assert_contains(r.out, want);
    free(r.out);
}

static void integers_must_be_plain_decimal(void **state)
{
    (void)state;
    ok("NCCL_BUFFSIZE", "16777216");
    error("NCCL_BUFFSIZE", "16M", "not a plain decimal integer; NCCL reads it as 16");
    error("NCCL_BUFFSIZE", "4MB", "reads it as 4 ");
    error("NCCL_MAX_NCHANNELS", "010", "reads it as 8 without a word");
    error("NCCL_MAX_NCHANNELS", "0x10", "reads it as 16");
    error("NCCL_IB_TIMEOUT", "abc", "reads it as 0");
    error("NCCL_BUFFSIZE", "+5", "reads it as 5");
    error("NCCL_BUFFSIZE", "1e6", "reads it as 1");
    error("NCCL_BUFFSIZE", "99999999999999999999", "out of range for a 64-bit integer");
    error("NCCL_CROSS_NIC", "1.5", "reads it as 1");
    ok("NCCL_CROSS_NIC", "2"); /* an integer with no range rule */
    ok("NCCL_IB_GID_INDEX", "-1");
    ok("NCCL_BUFFSIZE", ""); /* empty: NCCL's default */
}

static void ranges(void **state)
{
    (void)state;
    ok("NCCL_NTHREADS", "64");
    ok("NCCL_NTHREADS", "96");
    ok("NCCL_NTHREADS", "512");
    error("NCCL_NTHREADS", "32", "a multiple of 32 in 64..512");
    error("NCCL_NTHREADS", "100", "a multiple of 32 in 64..512");
    error("NCCL_NTHREADS", "1024", "a multiple of 32 in 64..512");
    ok("NCCL_MAX_NCHANNELS", "1");
    ok("NCCL_MAX_NCHANNELS", "64");
    error("NCCL_MAX_NCHANNELS", "0", "out of range: 1..64; NCCL clamps it");
    error("NCCL_MAX_NCHANNELS", "65", "out of range: 1..64");
    error("NCCL_MIN_NCHANNELS", "65", "out of range: 0..64");
    ok("NCCL_MIN_NCHANNELS", "0");
    error("NCCL_MAX_CTAS", "0", "1..64");
    error("NCCL_BUFFSIZE", "0", "at least 1");
    error("NCCL_P2P_DISABLE", "2", "0..1; NCCL treats anything but 1 as 0");
    error("NCCL_IB_TIMEOUT", "32", "0..31");
    error("NCCL_LL128_NTHREADS", "128", "a multiple of 32 in 160..640");
}

static void protocol_and_algorithm_lists(void **state)
{
    (void)state;
    ok("NCCL_PROTO", "LL");
    ok("NCCL_PROTO", "LL,LL128,Simple");
    ok("NCCL_PROTO", "ll,simple"); /* case-insensitive */
    ok("NCCL_PROTO", "^LL128");
    ok("NCCL_PROTO", "AllReduce:LL;Broadcast:^Simple");
    ok("NCCL_ALGO", "Ring");
    ok("NCCL_ALGO", "^NVLS,NVLSTree");
    error("NCCL_PROTO", "LL,foo", "unknown token 'foo' (expected LL,LL128,Simple");
    error("NCCL_PROTO", "LL,", "empty token");
    error("NCCL_PROTO", "LL;Bogus:LL", "unknown collective 'Bogus'");
    error("NCCL_ALGO", "ring,trees", "unknown token 'trees'");
    error("NCCL_ALGO", "Ring Tree", "unknown token 'Ring Tree'");
    error("NCCL_DEBUG_SUBSYS", "INIT,FOO", "unknown token 'FOO'");
    ok("NCCL_DEBUG_SUBSYS", "^INIT,ENV");
}

static void levels_are_case_sensitive(void **state)
{
    (void)state;
    ok("NCCL_P2P_LEVEL", "SYS");
    ok("NCCL_P2P_LEVEL", "PXB");
    ok("NCCL_P2P_LEVEL", "C2C");
    ok("NCCL_P2P_LEVEL", "0");
    ok("NCCL_P2P_LEVEL", "5"); /* legacy: >= 4 is SYS */
    error("NCCL_P2P_LEVEL", "sys", "levels are case-sensitive (did you mean SYS?)");
    error("NCCL_P2P_LEVEL", "NVLINK", "unknown level");
    error("NCCL_P2P_LEVEL", "-1", "unknown level");
    error("NCCL_P2P_LEVEL", "04", "unknown level");
    ok("NCCL_NET_GDR_LEVEL", "PHB");
    error("NCCL_NET_GDR_LEVEL", "phb", "did you mean PHB?");
}

static void debug_levels(void **state)
{
    (void)state;
    ok("NCCL_DEBUG", "INFO");
    ok("NCCL_DEBUG", "warn");
    error("NCCL_DEBUG", "LOUD", "unknown value (expected one of VERSION,WARN,INFO,ABORT,TRACE)");
}

static void names(void **state)
{
    (void)state;
    struct result r = check("NCCL_NCHANNELS", "4");
    assert_int_equal(r.errors, 0);
    assert_int_equal(r.warnings, 1);
    assert_contains(r.out, "t.env:7: warning: unknown NCCL variable NCCL_NCHANNELS; did you mean "
                           "NCCL_MAX_NCHANNELS, NCCL_MIN_NCHANNELS?");
    free(r.out);
    r = check("NCCL_PROTOCOL", "LL");
    assert_contains(r.out, "did you mean NCCL_PROTO?");
    free(r.out);
    r = check("NCCL_ZZZZZZZZZZZZZZZZZZZZ", "1");
    assert_contains(r.out, "unknown NCCL variable NCCL_ZZZZZZZZZZZZZZZZZZZZ\n");
    free(r.out);
    ok("CUDA_VISIBLE_DEVICES", "0,1,junk");
    ok("TORCH_NCCL_BLOCKING_WAIT", "anything at all");
    error("NCCL_INIT_PROFILE", "x", "NCCL_INIT_* variables control nccl-init");
    ok("NCCL_SOCKET_IFNAME", "^lo,docker"); /* free text */
}

static void table_is_sorted_and_complete(void **state)
{
    (void)state;
    size_t n = 0;
    const char *prev = NULL;
    for (const char *p = nccl_names; *p; p += strlen(p) + 1, n++) {
        assert_in_range((unsigned char)p[0], 1, R_SUBSYS + 1);
        if (prev)
            assert_true(strcmp(prev + 1, p + 1) < 0);
        prev = p;
    }
    assert_int_equal(n, 187);
    assert_int_equal(nccl_param_rule("NCCL_PROTO"), R_PROTO);
    assert_int_equal(nccl_param_rule("NCCL_WORK_FIFO_BYTES"), R_INT);
    assert_int_equal(nccl_param_rule("NCCL_ALGO"), R_ALGO);
    assert_int_equal(nccl_param_rule("NCCL_NOPE"), -1);
    assert_int_equal(nccl_param_rule("PROTO"), -1);
    for (size_t i = 0; i < noop_rules_count; i++)
        assert_true(nccl_param_rule(noop_rules[i].key) >= 0);
}

static unsigned set_warnings(const char *text, char **out)
{
    struct profile p;
    struct diag d = { 0 };
    parse(&p, text, &d);
    const struct entry *set[16];
    for (size_t i = 0; i < p.n; i++)
        set[i] = &p.v[i];
    capture_begin();
    validate_set(set, p.n, &d);
    *out = capture_end();
    profile_free(&p);
    return d.warnings;
}

static void combinations_that_do_nothing(void **state)
{
    (void)state;
    char *out;
    assert_int_equal(set_warnings("NCCL_PROTO=LL\nNCCL_NTHREADS=512\n", &out), 1);
    assert_contains(out, "t.env:2: warning: NCCL_NTHREADS=512 does nothing with NCCL_PROTO=LL");
    free(out);
    assert_int_equal(set_warnings("NCCL_PROTO=^Simple\nNCCL_NTHREADS=512\n", &out), 1);
    free(out);
    /* fewer threads than LL's maximum does change LL */
    assert_int_equal(set_warnings("NCCL_PROTO=LL\nNCCL_NTHREADS=256\n", &out), 0);
    free(out);
    assert_int_equal(set_warnings("NCCL_PROTO=LL,Simple\nNCCL_NTHREADS=512\n", &out), 0);
    free(out);
    assert_int_equal(set_warnings("NCCL_PROTO=LL\nNCCL_LL128_NTHREADS=640\n", &out), 1);
    assert_contains(out, "only LL128 reads it");
    free(out);
    assert_int_equal(set_warnings("NCCL_MIN_NCHANNELS=32\nNCCL_MAX_NCHANNELS=16\n", &out), 1);
    assert_contains(out, "t.env:1: warning: NCCL_MIN_NCHANNELS=32 is above NCCL_MAX_NCHANNELS=16");
    free(out);
}

/* --nccl-lib: names come from the strings of the library itself. */
static void names_from_a_library(void **state)
{
    (void)state;
    char path[] = "/tmp/nccl-init-lib-XXXXXX";
    int fd = mkstemp(path);
    static const char blob[] = "\x7f" "ELF junk\0NCCL_FUTURE_KNOB\0xNCCL_GLUED\0NCCL_\0"
                               "NCCL_PROTO\0NCCL_PROTO\0NCCL_lower\0use NCCL_TAIL_OF_TEXT\0"
                               "trailing NCCL_LAST";
    assert_int_equal(write(fd, blob, sizeof blob - 1), (ssize_t)sizeof blob - 1);
    close(fd);
    struct known_names k;
    assert_int_equal(known_names_from_lib(&k, path), 0);
    assert_int_equal(k.n, 2); /* FUTURE_KNOB and PROTO, deduplicated */
    assert_true(known_names_has(&k, "NCCL_FUTURE_KNOB"));
    assert_true(known_names_has(&k, "NCCL_PROTO"));
    assert_false(known_names_has(&k, "NCCL_ALGO"));
    struct result r = check_with("NCCL_FUTURE_KNOB", "1", &k);
    assert_int_equal(r.warnings, 0);
    free(r.out);
    r = check_with("NCCL_ALGO", "Ring", &k);
    assert_int_equal(r.warnings, 1);
    assert_contains(r.out, "unknown NCCL variable NCCL_ALGO");
    free(r.out);
    known_names_free(&k);
    unlink(path);
    assert_int_equal(known_names_from_lib(&k, path), -ENOENT);
}

/* The real library, when the machine has one: it must know the names the
 * shipped profiles use. */
static void names_from_real_libnccl(void **state)
{
    (void)state;
    const char *lib = getenv("LIBNCCL_PATH");
    if (!lib || access(lib, R_OK) != 0)
        skip();
    struct known_names k;
    assert_int_equal(known_names_from_lib(&k, lib), 0);
    const char *want[] = { "NCCL_PROTO", "NCCL_ALGO", "NCCL_P2P_LEVEL", "NCCL_MAX_NCHANNELS",
                           "NCCL_BUFFSIZE", "NCCL_NTHREADS", "NCCL_SOCKET_IFNAME", "NCCL_IB_HCA" };
    for (size_t i = 0; i < ARRAY_SIZE(want); i++)
        if (!known_names_has(&k, want[i]))
            fail_msg("%s not found in %s", want[i], lib);
    /* read from .rodata only: debug-info enum names are not variables */
    assert_false(known_names_has(&k, "NCCL_LOG_WARN"));
    /* whole strings only: these are the tails of error messages */
    assert_false(known_names_has(&k, "NCCL_CONFIG_INITIALIZER"));
    assert_false(known_names_has(&k, "NCCL_SIM_INFO_INITIALIZER"));
    /* libnccl 2.28.9: exactly the source's 187 */
    assert_int_equal(k.n, 187);
    for (const char *p = nccl_names; *p; p += strlen(p) + 1) {
        char name[80] = "NCCL_";
        strncat(name, p + 1, sizeof name - 6);
        if (!known_names_has(&k, name))
            fail_msg("%s not found in %s", name, lib);
    }
    known_names_free(&k);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(integers_as_ncclLoadParam_reads_them),
        cmocka_unit_test(integers_in_their_c_type),
        cmocka_unit_test(ranges),
        cmocka_unit_test(switches),
        cmocka_unit_test(protocol_and_algorithm_lists),
        cmocka_unit_test(levels),
        cmocka_unit_test(strings),
        cmocka_unit_test(conf_file_lengths),
        cmocka_unit_test(debug_levels),
        cmocka_unit_test(names),
        cmocka_unit_test(table_is_sorted_and_complete),
        cmocka_unit_test(table_matches_the_source),
        cmocka_unit_test(readings),
        cmocka_unit_test(combinations_that_do_nothing),
        cmocka_unit_test(names_from_a_library),
        cmocka_unit_test(names_from_real_libnccl),
    };
    return cmocka_run_group_tests_name("validate", tests, NULL, NULL);
}
