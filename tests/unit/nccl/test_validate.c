/* The validator: every value NCCL 2.28.9 would silently misread or reject.
 * These run under 2.28.9's rules alone (validate_release(0)); how the
 * releases differ is test_releases.c's and tests/releases.bats's. */
#include "helpers.h"

#include "nccl/nccl_lib.h"
#include "nccl/nccl_table.h"
#include "nccl/releases.h"
#include "nccl/servers.h"
#include "nccl/validate.h"

#include <elf.h>
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
    xfree(r.out);
}

static void error(const char *key, const char *value, const char *want)
{
    struct result r = check(key, value);
    if (r.errors != 1)
        fail_msg("%s=%s: expected one error, got %u:\n%s", key, value, r.errors, r.out);
    assert_contains(r.out, "t.env:7: error: ");
    assert_contains(r.out, want);
    xfree(r.out);
}

static void warning(const char *key, const char *value, const char *want)
{
    struct result r = check(key, value);
    if (r.errors || r.warnings != 1)
        fail_msg("%s=%s: expected one warning, got %u errors, %u warnings:\n%s", key, value,
                 r.errors, r.warnings, r.out);
    assert_contains(r.out, "t.env:7: warning: ");
    assert_contains(r.out, want);
    xfree(r.out);
}

/* ncclLoadParam: strtoll(s, NULL, 0), no end check. */
static void integers_as_ncclLoadParam_reads_them(void **state)
{
    (void)state;
    ok("NCCL_BUFFSIZE", "16777216");
    ok("NCCL_BUFFSIZE", "0x1000000"); /* NCCL reads hex exactly */
    ok("NCCL_BUFFSIZE", "0X400000");
    ok("NCCL_BUFFSIZE", "+4194304");
    ok("NCCL_MIN_NCHANNELS", "-0");
    error("NCCL_BUFFSIZE", "16M", "not a whole number: NCCL reads only its start, 16");
    error("NCCL_BUFFSIZE", "4MB", "reads only its start, 4");
    error("NCCL_MAX_NCHANNELS", "010", "a leading 0 makes it octal: NCCL reads it as 8");
    error("NCCL_MAX_NCHANNELS", "08", "reads only its start, 0");
    error("NCCL_IB_TIMEOUT", "abc", "not a number: NCCL reads it as 0");
    error("NCCL_BUFFSIZE", "1e6", "reads only its start, 1");
    error("NCCL_BUFFSIZE", "0x", "reads only its start, 0");
    error("NCCL_BUFFSIZE", "99999999999999999999",
          "out of range for a 64-bit integer: NCCL ignores it and uses its default");
    error("NCCL_CROSS_NIC", "1.5", "reads only its start, 1");
    error("NCCL_CTA_POLICY", "EFFICIENCY", "not a number: NCCL reads it as 0");
    ok("NCCL_CROSS_NIC", "2");
    ok("NCCL_IB_GID_INDEX", "-1");
    ok("NCCL_SOCKET_RETRY_CNT", "-9223372036854775808");
    warning("NCCL_BUFFSIZE", "", "empty: the same as not setting it");
    warning("NCCL_MAX_NCHANNELS", "", "the same as not setting it");
}

/* What NCCL keeps the int64 in. */
static void integers_in_their_c_type(void **state)
{
    (void)state;
    error("NCCL_BUFFSIZE", "4294967296", "NCCL keeps it in an int, where it is 0");
    error("NCCL_LL_BUFFSIZE", "2147483648", "an int, where it is -2147483648");
    error("NCCL_NTHREADS", "4294967392", "an int, where it is 96");
    error("NCCL_IB_TIMEOUT", "256", "an 8-bit field, where it is 0");
    error("NCCL_IB_PKEY", "65536", "a 16-bit unsigned field, where it is 0");
    ok("NCCL_IB_PKEY", "65535");
    error("NCCL_GIN_GDAKI_QP_DEPTH", "-1", "a 32-bit unsigned, where it is 4294967295");
    ok("NCCL_SOCKET_INLINE", "4294967296"); /* an int64 compare */
    /* the special value is compared before the conversion */
    ok("NCCL_IB_SL", "-1");
    ok("NCCL_IB_TC", "-1");
    ok("NCCL_IB_FIFO_TC", "-1");
}

static void ranges(void **state)
{
    (void)state;
    ok("NCCL_NTHREADS", "64");
    ok("NCCL_NTHREADS", "96");
    ok("NCCL_NTHREADS", "512");
    ok("NCCL_NTHREADS", "-2");
    error("NCCL_NTHREADS", "32", "out of range: a multiple of 32 in 64..512 (or -2): NCCL uses 64");
    error("NCCL_NTHREADS", "33", "NCCL uses 512"); /* getNthreads tests the multiple first */
    error("NCCL_NTHREADS", "100", "NCCL uses 512");
    error("NCCL_NTHREADS", "1024", "NCCL uses 512");
    error("NCCL_NTHREADS", "0", "zero or less: NCCL uses its default");
    ok("NCCL_MAX_NCHANNELS", "1");
    ok("NCCL_MAX_NCHANNELS", "64");
    error("NCCL_MAX_NCHANNELS", "0", "out of range: 1..64 (or -2): NCCL uses 1");
    error("NCCL_MAX_NCHANNELS", "65", "NCCL uses 64");
    error("NCCL_MIN_NCHANNELS", "65", "out of range: 0..64 (or -2): NCCL uses 64");
    ok("NCCL_MIN_NCHANNELS", "0");
    error("NCCL_MAX_CTAS", "0", "1..64: NCCL ignores it and keeps its default");
    ok("NCCL_BUFFSIZE", "-2");
    error("NCCL_BUFFSIZE", "0", "at least 1 (or -2): NCCL takes it as the buffer size: only -2 "
                                "selects the default");
    error("NCCL_BUFFSIZE", "-1", "only -2 selects the default");
    error("NCCL_P2P_DISABLE", "2", "0..1: only 1 disables P2P");
    error("NCCL_IB_TIMEOUT", "32", "0..31: the verbs layer rejects it");
    ok("NCCL_IB_SL", "15");
    error("NCCL_IB_SL", "16", "16 service levels");
    error("NCCL_LL128_NTHREADS", "128", "a multiple of 32 in 160..640 (or -2): NCCL uses 160");
    ok("NCCL_CTA_POLICY", "2");
    error("NCCL_CTA_POLICY", "3", "0..2: NCCL uses 0");
    error("NCCL_COLLNET_ENABLE", "2", "NCCL sets any value but 0 and 1 to 0 (off)");
    ok("NCCL_CUMEM_ENABLE", "-2");
    warning("NCCL_CUMEM_ENABLE", "2", "NCCL reads any positive value as 1 (on)");
    error("NCCL_CUMEM_ENABLE", "-1", "a negative one but -2 (auto) as 0 (off)");
    error("NCCL_WORK_FIFO_BYTES", "1000", "not a power of 2: NCCL ignores it and uses its default");
    /* what NCCL reads of a value, then what it does with that */
    error("NCCL_WORK_FIFO_BYTES", "1000x", "NCCL reads only its start, 1000; not a power of 2: ");
    error("NCCL_NTHREADS", "0junk", "NCCL reads only its start, 0; zero or less: NCCL uses its ");
    error("NCCL_IB_GID_INDEX", "-2", "NCCL uses -1");
    error("NCCL_IB_QPS_PER_CONNECTION", "129", "room for 128 QPs");
}

/* Any nonzero value is on, or only 1: the source says which. */
static void switches(void **state)
{
    (void)state;
    ok("NCCL_SHM_DISABLE", "1");
    error("NCCL_SHM_DISABLE", "2", "only 1 turns it on: NCCL reads every other value as 0 (off)");
    error("NCCL_GDRCOPY_ENABLE", "2", "only 1 turns it on");
    warning("NCCL_IB_DISABLE", "2", "NCCL reads any nonzero value as 1 (on)");
    error("NCCL_IB_DISABLE", "-1", "NCCL reads any nonzero value as 1 (on)");
    warning("NCCL_IGNORE_CPU_AFFINITY", "2", "any nonzero value");
    warning("NCCL_IB_SPLIT_DATA_ON_QPS", "7", "any nonzero value");
    ok("NCCL_IB_ADAPTIVE_ROUTING", "-2");
    error("NCCL_PXN_DISABLE", "2", "half-disable PXN");
    warning("NCCL_GRAPH_HELPER_DISABLE", "1", "declares it but never reads it");
}

/* parseList: strtok skips empty tokens; only the first entry may lack a prefix. */
static void protocol_and_algorithm_lists(void **state)
{
    (void)state;
    ok("NCCL_PROTO", "LL");
    ok("NCCL_PROTO", "LL,LL128,Simple");
    ok("NCCL_PROTO", "ll,simple"); /* case-insensitive */
    ok("NCCL_PROTO", "^LL128");
    ok("NCCL_PROTO", "^");
    ok("NCCL_PROTO", "LL,");
    ok("NCCL_PROTO", "LL,,Simple;");
    ok("NCCL_PROTO", "AllReduce:LL;Broadcast:^Simple");
    ok("NCCL_PROTO", "^LL128;allreduce:LL128");
    ok("NCCL_ALGO", "Ring");
    ok("NCCL_ALGO", "^NVLS,NVLSTree");
    warning("NCCL_PROTO", "", "empty: the same as not setting it");
    error("NCCL_PROTO", "LL,foo", "unknown token 'foo' (expected LL,LL128,Simple");
    error("NCCL_PROTO", "LL;Bogus:LL", "unknown collective 'Bogus'");
    error("NCCL_PROTO", "LL;Simple", "'Simple' has no collective prefix");
    error("NCCL_PROTO", ";LL", "'LL' has no collective prefix");
    error("NCCL_ALGO", "allreduce:tree;ring", "'ring' has no collective prefix, which NCCL "
                                              "allows on the first entry only");
    error("NCCL_ALGO", "ring,trees", "unknown token 'trees'");
    error("NCCL_ALGO", "Ring Tree", "unknown token 'Ring Tree'");
    error("NCCL_PROTO", "allreduce:LL:Simple", "NCCL ignores ':Simple' after 'allreduce:LL'");
    error("NCCL_PROTO", ":", "dereferences NULL");
    error("NCCL_PROTO", "^LL,LL128,Simple", "leaves Broadcast no protocol");
    error("NCCL_ALGO", "allreduce:^Tree,Ring,CollNetDirect,CollNetChain,NVLS,NVLSTree,PAT",
          "leaves AllReduce no algorithm");
    error("NCCL_DEBUG_SUBSYS", "INIT,FOO", "unknown name 'FOO'");
    ok("NCCL_DEBUG_SUBSYS", "^INIT,ENV");
    ok("NCCL_DEBUG_SUBSYS", "init,env,");
    error("NCCL_DEBUG_SUBSYS", "", "empty: NCCL's mask is then 0: it prints nothing, not even "
                                   "warnings");
}

/* ncclGetLevel: strcmp, else an old number when it starts with a digit. */
static void levels(void **state)
{
    (void)state;
    ok("NCCL_P2P_LEVEL", "SYS");
    ok("NCCL_P2P_LEVEL", "PXB");
    ok("NCCL_P2P_LEVEL", "C2C");
    ok("NCCL_P2P_LEVEL", "0");
    ok("NCCL_P2P_LEVEL", "5"); /* legacy: >= 4 is SYS */
    ok("NCCL_P2P_LEVEL", "0x2");
    error("NCCL_P2P_LEVEL", "sys", "levels are case-sensitive (did you mean SYS?)");
    error("NCCL_P2P_LEVEL", "NVLINK", "unknown level");
    error("NCCL_P2P_LEVEL", "-1", "unknown level");
    error("NCCL_P2P_LEVEL", "+1", "NCCL ignores it without a word");
    error("NCCL_P2P_LEVEL", "04", "a leading 0 makes it octal: NCCL reads 4, as SYS");
    error("NCCL_P2P_LEVEL", "1abc", "NCCL reads only its start, 1, as PIX");
    error("NCCL_P2P_LEVEL", "4294967296", "in an int, where it is 0: LOC");
    error("NCCL_P2P_LEVEL", "2147483648", "undefined behaviour");
    warning("NCCL_P2P_LEVEL", "", "empty");
    ok("NCCL_NET_GDR_LEVEL", "PHB");
    error("NCCL_NET_GDR_LEVEL", "phb", "did you mean PHB?");
}

/* Text NCCL takes as written. */
static void strings(void **state)
{
    (void)state;
    ok("NCCL_SOCKET_IFNAME", "^lo,docker");
    error("NCCL_SOCKET_IFNAME", "\"eth0\"", "quotes included");
    error("NCCL_IB_HCA", "'mlx5_0'", "quotes included");
    error("NCCL_SOCKET_IFNAME", "e", "shorter than 2 bytes");
    warning("NCCL_SOCKET_IFNAME", "", "the same as not setting it");
    error("NCCL_NET", "", "communicator init fails");
    error("NCCL_HOSTID", "", "every host gets the same host hash");
    error("NCCL_COMM_ID", "", "ncclGetUniqueId fails");
    error("NCCL_NET_PLUGIN", "", "as with \"none\"");
    warning("NCCL_TUNER_PLUGIN", "", "the same as not setting it");
    warning("NCCL_TOPO_DUMP_FILE", "", "dumps nothing");
    error("NCCL_TOPO_FILE", "", "not even its default one");
    error("NCCL_DEBUG_TIMESTAMP_LEVELS", "", "timestamps no line");
    error("NCCL_SOCKET_FAMILY", "af_inet", "case-sensitive (did you mean AF_INET?)");
    ok("NCCL_LAUNCH_MODE", "group");
    error("NCCL_LAUNCH_MODE", "GROUPS", "NCCL uses PARALLEL");
    warning("NCCL_NET_MERGE_LEVEL", "", "not as unset");
}

/* Values over NCCL_CONF_MAX bytes cannot reach NCCL through nccl.conf. */
static void conf_file_lengths(void **state)
{
    (void)state;
    char v[1100];
    memset(v, 'a', sizeof v - 1);
    v[sizeof v - 1] = '\0';
    warning("NCCL_NET", v, "the value is 1099 bytes; NCCL's nccl.conf reader keeps only 1023");
    v[1023] = '\0';
    ok("NCCL_NET", v);
}

static void debug_levels(void **state)
{
    (void)state;
    ok("NCCL_DEBUG", "INFO");
    ok("NCCL_DEBUG", "warn");
    error("NCCL_DEBUG", "LOUD", "unknown value (expected one of VERSION,WARN,INFO,ABORT,TRACE); NCCL "
                                "logs nothing");
    warning("NCCL_DEBUG", "", "the same as not setting it");
}

static void names(void **state)
{
    (void)state;
    struct result r = check("NCCL_NCHANNELS", "4");
    assert_int_equal(r.errors, 0);
    assert_int_equal(r.warnings, 1);
    assert_contains(r.out, "t.env:7: warning: unknown NCCL variable NCCL_NCHANNELS; did you mean "
                           "NCCL_MAX_NCHANNELS, NCCL_MIN_NCHANNELS?");
    xfree(r.out);
    r = check("NCCL_PROTOCOL", "LL");
    assert_contains(r.out, "did you mean NCCL_PROTO?");
    xfree(r.out);
    r = check("NCCL_ZZZZZZZZZZZZZZZZZZZZ", "1");
    assert_contains(r.out, "unknown NCCL variable NCCL_ZZZZZZZZZZZZZZZZZZZZ\n");
    xfree(r.out);
    ok("CUDA_VISIBLE_DEVICES", "0,1,junk");
    ok("TORCH_NCCL_BLOCKING_WAIT", "anything at all");
    error("NCCL_INIT_PROFILE", "x", "NCCL_INIT_* variables control nccl-init");
    ok("NCCL_SOCKET_IFNAME", "^lo,docker"); /* free text */
}

static void table_is_sorted_and_complete(void **state)
{
    (void)state;
    assert_int_equal(nccl_params_count, 187);
    for (size_t i = 0; i < nccl_params_count; i++) {
        const struct nccl_param *p = &nccl_params[i];
        assert_true(strncmp(p->name, "NCCL_", 5) == 0);
        assert_in_range(p->rule, 0, R_COUNT - 1);
        /* bsearch needs strcmp order */
        if (i)
            assert_true(strcmp(nccl_params[i - 1].name, p->name) < 0);
        assert_ptr_equal(nccl_param_find(p->name), p);
    }
    assert_int_equal(nccl_param_find("NCCL_PROTO")->rule, R_PROTO);
    assert_int_equal(nccl_param_find("NCCL_WORK_FIFO_BYTES")->rule, R_WORK_FIFO);
    assert_int_equal(nccl_param_find("NCCL_ALGO")->rule, R_ALGO);
    assert_null(nccl_param_find("NCCL_NOPE"));
    assert_null(nccl_param_find("PROTO"));
    /* prefixes and extensions of a name are not that name */
    assert_null(nccl_param_find("NCCL_ALG"));
    assert_null(nccl_param_find("NCCL_ALGOS"));
    assert_null(nccl_param_find("NCCL_"));
    assert_null(nccl_param_find("NCCL_ZZZ"));
    assert_null(nccl_param_find(""));
    for (size_t i = 0; i < noop_rules_count; i++)
        assert_non_null(nccl_param_find(noop_rules[i].key));
    for (int r = 0; r < R_COUNT; r++) {
        const struct value_rule *v = &value_rules[r];
        if (v->kind == V_LIST || v->kind == V_LEVEL || v->kind == V_ENUM || v->kind == V_MASK)
            assert_non_null(v->tokens);
        if (v->kind == V_INT) {
            assert_true(v->min <= v->max);
            if (v->low == O_FAIL || v->low == O_UNDEF || v->high == O_FAIL || v->high == O_UNDEF)
                assert_non_null(v->text);
        }
    }
}

/* The table against init/nccl/nccl_params.tsv, which scripts/nccl-params.py
 * extracts from the NCCL source: the same names, and every NCCL_PARAM that
 * NCCL reads typed as an integer. */
static void table_matches_the_source(void **state)
{
    (void)state;
    FILE *f = fopen("init/nccl/nccl_params.tsv", "r");
    if (!f)
        fail_msg("init/nccl/nccl_params.tsv: run the unit tests from the repository root");
    char line[4096];
    size_t n = 0;
    while (fgets(line, sizeof line, f)) {
        if (line[0] == '#')
            continue;
        char *tab = strchr(line, '\t');
        assert_non_null(tab);
        *tab = '\0';
        char *read = tab + 1;
        const struct nccl_param *p = nccl_param_find(line);
        if (!p)
            fail_msg("%s is in init/nccl/nccl_params.tsv but not in the table", line);
        int kind = value_rules[p->rule].kind;
        if (strncmp(read, "param", 5) == 0 && kind != V_INT)
            fail_msg("%s is an NCCL_PARAM (an int64) but its rule is not an integer", line);
        if (strncmp(read, "never", 5) == 0 && kind != V_UNREAD)
            fail_msg("%s is never read but its rule says it is", line);
        n++;
    }
    fclose(f);
    assert_int_equal(n, nccl_params_count);
}

/* What render --format json says: the same reading the checks use. */
static void readings(void **state)
{
    (void)state;
    struct buf b = { 0 };
    nccl_reading_json(&b, "NCCL_BUFFSIZE", "0x1000000");
    assert_string_equal(b.data, ", \"nccl\": {\"reads\": 16777216, \"uses\": 16777216}");
    b.len = 0;
    nccl_reading_json(&b, "NCCL_BUFFSIZE", "4294967296");
    assert_string_equal(b.data, ", \"nccl\": {\"reads\": 4294967296, \"uses\": \"undefined\"}");
    b.len = 0;
    nccl_reading_json(&b, "NCCL_BUFFSIZE", "");
    assert_string_equal(b.data, ", \"nccl\": {\"reads\": \"unset\", \"uses\": \"default\"}");
    b.len = 0;
    nccl_reading_json(&b, "NCCL_MAX_NCHANNELS", "100");
    assert_string_equal(b.data, ", \"nccl\": {\"reads\": 100, \"uses\": 64}");
    b.len = 0;
    nccl_reading_json(&b, "NCCL_MAX_CTAS", "99999999999999999999");
    assert_string_equal(b.data, ", \"nccl\": {\"reads\": \"default\", \"uses\": \"default\"}");
    b.len = 0;
    nccl_reading_json(&b, "NCCL_P2P_LEVEL", "4");
    assert_string_equal(b.data, ", \"nccl\": {\"reads\": \"SYS\"}");
    b.len = 0;
    nccl_reading_json(&b, "NCCL_P2P_LEVEL", "sys");
    assert_string_equal(b.data, ", \"nccl\": {\"reads\": \"unset\"}");
    b.len = 0;
    nccl_reading_json(&b, "NCCL_PROTO", "LL;allreduce:^LL");
    assert_contains(b.data, "\"Broadcast\": {\"LL\": 1, \"LL128\": 0, \"Simple\": 0}");
    assert_contains(b.data, "\"AllReduce\": {\"LL\": 0, \"LL128\": 1, \"Simple\": 1}");
    b.len = 0;
    nccl_reading_json(&b, "NCCL_ALGO", "ring;tree");
    assert_string_equal(b.data, ", \"nccl\": {\"reads\": \"invalid\"}");
    b.len = 0;
    nccl_reading_json(&b, "NCCL_SOCKET_IFNAME", "eth0");
    nccl_reading_json(&b, "CUDA_VISIBLE_DEVICES", "0");
    assert_int_equal(b.len, 0);
    buf_free(&b);
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
    xfree(out);
    assert_int_equal(set_warnings("NCCL_PROTO=^Simple\nNCCL_NTHREADS=512\n", &out), 1);
    xfree(out);
    /* fewer threads than LL's maximum does change LL */
    assert_int_equal(set_warnings("NCCL_PROTO=LL\nNCCL_NTHREADS=256\n", &out), 0);
    xfree(out);
    assert_int_equal(set_warnings("NCCL_PROTO=LL,Simple\nNCCL_NTHREADS=512\n", &out), 0);
    xfree(out);
    /* Simple stays on for AllReduce */
    assert_int_equal(set_warnings("NCCL_PROTO=LL;allreduce:Simple\nNCCL_NTHREADS=512\n", &out), 0);
    xfree(out);
    assert_int_equal(set_warnings("NCCL_PROTO=LL\nNCCL_LL128_NTHREADS=640\n", &out), 1);
    assert_contains(out, "only LL128 reads it");
    xfree(out);
    assert_int_equal(set_warnings("NCCL_PROTO=Simple\nNCCL_LL_BUFFSIZE=65536\n", &out), 1);
    assert_contains(out, "no collective uses the LL buffer, which NCCL still allocates at that size");
    xfree(out);
    assert_int_equal(set_warnings("NCCL_PROTO=Simple\nNCCL_LL_BUFFSIZE=\n", &out), 0);
    xfree(out);
    assert_int_equal(set_warnings("NCCL_MIN_NCHANNELS=32\nNCCL_MAX_NCHANNELS=16\n", &out), 1);
    assert_contains(out, "t.env:1: warning: NCCL_MIN_NCHANNELS=32 is above NCCL_MAX_NCHANNELS=16");
    xfree(out);
    assert_int_equal(set_warnings("NCCL_MIN_NCHANNELS=0x20\nNCCL_MAX_NCHANNELS=16\n", &out), 1);
    xfree(out);
    assert_int_equal(set_warnings("NCCL_P2P_DISABLE=1\nNCCL_P2P_LEVEL=SYS\n", &out), 1);
    assert_contains(out, "t.env:2: warning: NCCL_P2P_LEVEL=SYS does nothing with NCCL_P2P_DISABLE=1");
    xfree(out);
    assert_int_equal(set_warnings("NCCL_P2P_DISABLE=0\nNCCL_P2P_LEVEL=SYS\n", &out), 0);
    xfree(out);
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
    xfree(r.out);
    r = check_with("NCCL_ALGO", "Ring", &k);
    assert_int_equal(r.warnings, 1);
    assert_contains(r.out, "unknown NCCL variable NCCL_ALGO");
    xfree(r.out);
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
    for (size_t i = 0; i < nccl_params_count; i++)
        if (!known_names_has(&k, nccl_params[i].name))
            fail_msg("%s not found in %s", nccl_params[i].name, lib);
    known_names_free(&k);
}

/* servers.c: each row names a key, a server, when, what, the option of a
 * W_FLAG row and the source. */
static void servers_table_is_well_formed(void **state)
{
    (void)state;
    unsigned sglang_cumem = 0, vllm_cumem = 0, max_connections = 0;
    for (size_t i = 0; i < server_overrides_count; i++) {
        const struct server_override *o = &server_overrides[i];
        assert_true(key_valid(o->key, strlen(o->key)));
        assert_true(strcmp(o->server, "SGLang") == 0 || strcmp(o->server, "vLLM") == 0);
        assert_true(o->when == W_ALWAYS || o->when == W_UNSET || o->when == W_FLAG);
        assert_true(*o->what && *o->source);
        /* an option exactly where the condition names one */
        assert_int_equal(o->when == W_FLAG, *o->option != '\0');
        sglang_cumem += strcmp(o->key, "NCCL_CUMEM_ENABLE") == 0 && *o->server == 'S' &&
                        o->when == W_FLAG;
        vllm_cumem += strcmp(o->key, "NCCL_CUMEM_ENABLE") == 0 && *o->server == 'v';
        max_connections += strcmp(o->key, "CUDA_DEVICE_MAX_CONNECTIONS") == 0 &&
                           o->when == W_ALWAYS;
    }
    assert_int_equal(server_overrides_count, 9);
    assert_int_equal(sglang_cumem, 1);
    assert_int_equal(max_connections, 1);
    /* vLLM dropped its NCCL_CUMEM_ENABLE override (PR #24141, 2025-09) */
    assert_int_equal(vllm_cumem, 0);
}

static struct result server_check(const char *key, const char *value)
{
    struct entry e = { key, value, "t.env", 3, "t" };
    struct diag d = { 0 };
    capture_begin();
    validate_servers(&e, &d);
    return (struct result){ d.errors, d.warnings, capture_end() };
}

/* Every row is found by validate_servers(). */
static void servers_every_row_warns(void **state)
{
    (void)state;
    for (size_t i = 0; i < server_overrides_count; i++) {
        struct result r = server_check(server_overrides[i].key, "1");
        if (r.warnings < 1)
            fail_msg("%s: no warning", server_overrides[i].key);
        xfree(r.out);
    }
}

static void servers_override_some_keys(void **state)
{
    (void)state;
    struct result r = server_check("CUDA_DEVICE_MAX_CONNECTIONS", "1");
    assert_int_equal(r.warnings, 1);
    assert_int_equal(r.errors, 0);
    assert_contains(r.out, "t.env:3: warning: CUDA_DEVICE_MAX_CONNECTIONS=1: SGLang always sets "
                           "it to 8 (engine.py _set_envs_and_config), so the profile's value "
                           "never reaches SGLang\n");
    assert_null(strstr(r.out, "env plugin"));
    xfree(r.out);
    r = server_check("NCCL_CUMEM_ENABLE", "1");
    assert_int_equal(r.warnings, 1);
    assert_contains(r.out, "NCCL_CUMEM_ENABLE=1: SGLang sets it to 0 (1 on a multi-node MNNVL "
                           "fabric or with --enable-symm-mem) when it is unset, and always with "
                           "--enable-symm-mem (engine.py "
                           "_set_envs_and_config): the profile's value wins unless "
                           "--enable-symm-mem is given; with nccl-init's env plugin and "
                           "--enforce the profile's value reaches NCCL anyway\n");
    xfree(r.out);
    r = server_check("NCCL_MNNVL_ENABLE", "0");
    assert_contains(r.out, "SGLang sets it to 1 on a multi-node MNNVL fabric only when it is "
                           "unset (engine.py _set_envs_and_config): the profile's value wins; "
                           "with nccl-init's env plugin and --enforce the profile's value "
                           "reaches NCCL anyway\n");
    xfree(r.out);
    r = server_check("NCCL_ASYNC_ERROR_HANDLING", "1");
    assert_contains(r.out, "vLLM always removes it from every GPU worker "
                           "(v1/worker/gpu_worker.py Worker.init_device), so the profile's value "
                           "never reaches vLLM\n");
    xfree(r.out);
    /* a key no server touches; a prefix of one is not that key */
    r = server_check("NCCL_PROTO", "LL");
    assert_int_equal(r.warnings, 0);
    assert_string_equal(r.out, "");
    xfree(r.out);
    r = server_check("NCCL_NVLS", "1");
    assert_int_equal(r.warnings, 0);
    xfree(r.out);
    /* a long value is cut as the other findings cut it */
    char long_value[200];
    memset(long_value, '7', sizeof long_value - 1);
    long_value[sizeof long_value - 1] = '\0';
    r = server_check("CUDA_DEVICE_MAX_CONNECTIONS", long_value);
    assert_contains(r.out, "=7777777777777777777777777777777777777777777777777777777777777777"
                           "77777777...: SGLang always");
    xfree(r.out);
}

/* A 64-bit ELF file with a section table: .shstrtab, .rodata holding ro,
 * and .data holding other (which must not be read). */
static void write_elf(const char *path, const char *ro, size_t rolen, const char *other,
                      size_t otherlen)
{
    static const char names[] = "\0.shstrtab\0.rodata\0.data";
    unsigned char img[4096] = { 0 };
    Elf64_Ehdr *eh = (Elf64_Ehdr *)img;
    memcpy(eh->e_ident, ELFMAG, SELFMAG);
    eh->e_ident[EI_CLASS] = ELFCLASS64;
    eh->e_shentsize = sizeof(Elf64_Shdr);
    eh->e_shnum = 4;
    eh->e_shstrndx = 1;
    eh->e_shoff = 2048;
    Elf64_Shdr *sh = (Elf64_Shdr *)(img + 2048);
    size_t at = sizeof *eh;
    memcpy(img + at, names, sizeof names);
    sh[1] = (Elf64_Shdr){ .sh_name = 1, .sh_offset = at, .sh_size = sizeof names };
    at += sizeof names;
    memcpy(img + at, ro, rolen);
    sh[2] = (Elf64_Shdr){ .sh_name = 11, .sh_offset = at, .sh_size = rolen };
    at += rolen;
    memcpy(img + at, other, otherlen);
    sh[3] = (Elf64_Shdr){ .sh_name = 19, .sh_offset = at, .sh_size = otherlen };
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, img, sizeof img), (ssize_t)sizeof img);
    close(fd);
}

static char *version_of(const char *path)
{
    int fd = open(path, O_RDONLY);
    assert_true(fd >= 0);
    char *v = nccl_lib_version(fd);
    close(fd);
    return v;
}

/* The version and the names come from .rodata alone, read with pread. */
static void version_and_names_from_rodata(void **state)
{
    (void)state;
    char path[] = "/tmp/nccl-init-elf-XXXXXX";
    close(mkstemp(path));
    static const char ro[] = "NCCL version mismatch\0NCCL version %s compiled\0NCCL_PROTO\0"
                             "NCCL version 2.99.1+cuda12.9\0NCCL version 2.0.0+cuda1.0";
    static const char other[] = "NCCL version 1.0.0+cuda1.0\0NCCL_NOT_RODATA";
    write_elf(path, ro, sizeof ro, other, sizeof other);
    char *v = version_of(path);
    assert_non_null(v);
    assert_string_equal(v, "2.99.1+cuda12.9"); /* the first whole one, no space in it */
    xfree(v);
    struct known_names k;
    assert_int_equal(known_names_from_lib(&k, path), 0);
    assert_int_equal(k.n, 1);
    assert_string_equal(k.names[0], "NCCL_PROTO");
    known_names_free(&k);
    /* only strings that begin with it, and none in .rodata: no version */
    static const char none[] = "xNCCL version 2.1.0\0NCCL version 2.1.0 compiled with CUDA";
    write_elf(path, none, sizeof none, other, sizeof other);
    assert_null(version_of(path));
    /* not an ELF file: no version (the names would scan it whole) */
    int fd = open(path, O_WRONLY | O_TRUNC);
    assert_int_equal(write(fd, other, sizeof other), (ssize_t)sizeof other);
    close(fd);
    assert_null(version_of(path));
    /* a section table past the end of the file */
    write_elf(path, ro, sizeof ro, other, sizeof other);
    assert_int_equal(truncate(path, 2048 + 64), 0);
    assert_null(version_of(path));
    unlink(path);
    const char *lib = getenv("LIBNCCL_PATH");
    if (!lib || access(lib, R_OK) != 0)
        return;
    v = version_of(lib);
    assert_non_null(v);
    assert_memory_equal(v, NCCL_TABLE_VERSION "+cuda", sizeof NCCL_TABLE_VERSION + 4);
    xfree(v);
}

/* nccl_refuses: the findings that are errors in a profile, as their text,
 * and nothing printed; a warning, a valid value or an unknown name is not
 * refused. The same text check gives, so --strict and check never differ. */
static void refusals_are_the_profile_errors(void **state)
{
    (void)state;
    struct buf why = { 0 };
    capture_begin();
    assert_true(nccl_refuses("NCCL_P2P_LEVEL", "sys", &why));
    char *out = capture_end();
    assert_string_equal(out, "");
    xfree(out);
    assert_string_equal(why.data, "levels are case-sensitive (did you mean SYS?); NCCL ignores it "
                                  "without a word");
    struct result r = check("NCCL_P2P_LEVEL", "sys");
    assert_contains(r.out, why.data);
    xfree(r.out);
    buf_free(&why);
    assert_true(nccl_refuses("NCCL_BUFFSIZE", "16M", &why));
    assert_contains(why.data, "not a whole number: NCCL reads only its start, 16");
    buf_free(&why);
    assert_false(nccl_refuses("NCCL_P2P_LEVEL", "SYS", &why));
    assert_false(nccl_refuses("NCCL_BUFFSIZE", "", &why));     /* a warning in a profile */
    assert_false(nccl_refuses("NCCL_IB_DISABLE", "2", &why));  /* a warning too */
    assert_false(nccl_refuses("NCCL_NO_SUCH_NAME", "x", &why)); /* unknown: a warning */
    assert_int_equal(why.len, 0);
}

int main(void)
{
    validate_release(0); /* nccl_releases[0], 2.28.9: the table's own release */
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
        cmocka_unit_test(servers_table_is_well_formed),
        cmocka_unit_test(servers_every_row_warns),
        cmocka_unit_test(servers_override_some_keys),
        cmocka_unit_test(version_and_names_from_rodata),
        cmocka_unit_test(refusals_are_the_profile_errors),
    };
    return cmocka_run_group_tests_name("validate", tests, NULL, NULL);
}
