/* The canonical environment: precedence, duplicates, controls, digest. */
#include "helpers.h"

#include "lib/digest.h"
#include "nccl/envset.h"
#include "nccl/render.h"

static const struct var *get(const struct envset *s, const char *key)
{
    for (size_t i = 0; i < s->n; i++)
        if (strcmp(s->v[i].key, key) == 0)
            return &s->v[i];
    return NULL;
}

/* Composes from envp and profile texts (flags: ENVSET_*, or true for
 * --enforce); returns captured stderr. */
static char *compose(struct envset *s, char **envp, const char *const *texts, size_t n,
                     unsigned flags, struct profile *profiles)
{
    struct diag d = { 0 };
    for (size_t i = 0; i < n; i++) {
        assert_int_equal(parse(&profiles[i], texts[i], &d), 0);
        xfree(profiles[i].name);
        profiles[i].name = xstrdup(i == 0 ? "base" : "extra");
        for (size_t j = 0; j < profiles[i].n; j++)
            profiles[i].v[j].profile = profiles[i].name;
    }
    capture_begin();
    envset_compose(s, envp, profiles, n, flags, NULL, &d);
    return capture_end();
}

static void release(struct envset *s, struct profile *p, size_t n, char *out)
{
    envset_free(s);
    for (size_t i = 0; i < n; i++)
        profile_free(&p[i]);
    xfree(out);
}

static void sorted_and_traced(void **state)
{
    (void)state;
    char *envp[] = { "ZED=1", "PATH=/bin", "NCCL_INIT_LOG=debug", "NCCL_INIT_OTHER=x", NULL };
    const char *texts[] = { "NCCL_PROTO=LL\nNCCL_ALGO=Ring\n" };
    struct profile p[1];
    struct envset s;
    char *out = compose(&s, envp, texts, 1, false, p);
    const char *want[] = { "NCCL_ALGO", "NCCL_INIT_DIGEST", "NCCL_INIT_PROFILE", "NCCL_PROTO",
                           "PATH", "ZED" };
    assert_int_equal(s.n, ARRAY_SIZE(want)); /* nccl-init's own controls removed */
    for (size_t i = 0; i < s.n; i++)
        assert_string_equal(s.v[i].key, want[i]);
    assert_string_equal(get(&s, "NCCL_INIT_PROFILE")->value, "base");
    assert_int_equal(s.resolved, 2);

    /* The digest is the SHA-256 of the resolved set as an env-file. */
    struct sha256 h;
    char hex[65];
    sha256_init(&h);
    sha256_update(&h, "NCCL_ALGO=Ring\nNCCL_PROTO=LL\n", 29);
    sha256_hex(&h, hex);
    assert_string_equal(get(&s, "NCCL_INIT_DIGEST")->value, hex);
    assert_string_equal(s.digest, hex);
    release(&s, p, 1, out);
}

static void environment_wins_unless_enforced(void **state)
{
    (void)state;
    char *envp[] = { "NCCL_PROTO=Simple", "NCCL_ALGO=Ring", NULL };
    const char *texts[] = { "NCCL_PROTO=LL\nNCCL_ALGO=Ring\nNCCL_NTHREADS=256\n" };
    struct profile p[1];
    struct envset s;
    char *out = compose(&s, envp, texts, 1, false, p);
    const struct var *v = get(&s, "NCCL_PROTO");
    assert_string_equal(v->value, "Simple");
    assert_int_equal(v->source, SRC_ENV);
    assert_true(v->overridden);
    assert_string_equal(v->entry->value, "LL");
    assert_int_equal(v->entry->line, 1);
    /* the same value in both is not an override */
    assert_false(get(&s, "NCCL_ALGO")->overridden);
    assert_int_equal(get(&s, "NCCL_ALGO")->source, SRC_PROFILE);
    assert_int_equal(s.overrides, 1);
    /* the digest covers the effective value */
    char first[65];
    memcpy(first, s.digest, sizeof first);
    release(&s, p, 1, out);

    out = compose(&s, envp, texts, 1, true, p);
    v = get(&s, "NCCL_PROTO");
    assert_string_equal(v->value, "LL");
    assert_int_equal(v->source, SRC_PROFILE);
    assert_true(v->enforced);
    assert_int_equal(s.overrides, 1);
    assert_string_not_equal(s.digest, first);
    release(&s, p, 1, out);
}

static void duplicates_and_malformed_entries(void **state)
{
    (void)state;
    char *envp[] = { "A=first", "NOEQUALS", "=nokey", "B=1", "A=second", "A=last", NULL };
    struct profile p[1];
    const char *texts[] = { "" };
    struct envset s;
    char *out = compose(&s, envp, texts, 1, false, p);
    assert_string_equal(get(&s, "A")->value, "last");
    assert_null(get(&s, "NOEQUALS"));
    assert_null(get(&s, ""));
    assert_contains(out, "nccl-init: warning: environment has A 3 times; keeping the last value");
    assert_contains(out, "nccl-init: warning: dropping malformed environment entry 'NOEQUALS'");
    assert_contains(out, "dropping malformed environment entry '=nokey'");
    release(&s, p, 1, out);
}

static void later_profiles_win(void **state)
{
    (void)state;
    char *envp[] = { NULL };
    const char *texts[] = { "NCCL_PROTO=LL\nNCCL_ALGO=Ring\n", "NCCL_PROTO=Simple\nX=1\n" };
    struct profile p[2];
    struct envset s;
    char *out = compose(&s, envp, texts, 2, false, p);
    const struct var *v = get(&s, "NCCL_PROTO");
    assert_string_equal(v->value, "Simple");
    assert_string_equal(v->entry->profile, "extra");
    assert_string_equal(get(&s, "NCCL_ALGO")->entry->profile, "base");
    assert_string_equal(get(&s, "NCCL_INIT_PROFILE")->value, "base,extra");
    assert_int_equal(s.resolved, 3);
    assert_int_equal(s.overrides, 0);
    release(&s, p, 2, out);
}

static void environment_values_are_checked_as_warnings(void **state)
{
    (void)state;
    char *envp[] = { "NCCL_P2P_LEVEL=sys", "NCCL_BUFFSIZE=4M", NULL };
    const char *texts[] = { "" };
    struct profile p[1];
    struct envset s;
    char *out = compose(&s, envp, texts, 1, false, p);
    assert_contains(out, "environment: warning: NCCL_P2P_LEVEL=sys: levels are case-sensitive");
    assert_contains(out, "environment: warning: NCCL_BUFFSIZE=4M: not a whole number");
    assert_string_equal(get(&s, "NCCL_P2P_LEVEL")->value, "sys"); /* passed on unchanged */
    release(&s, p, 1, out);
}

static void envp_for_exec(void **state)
{
    (void)state;
    char *envp[] = { "B=2", "A=1=1", NULL };
    const char *texts[] = { "" };
    struct profile p[1];
    struct envset s;
    char *out = compose(&s, envp, texts, 1, false, p);
    char **e = envset_envp(&s);
    assert_string_equal(e[0], "A=1=1");
    assert_string_equal(e[1], "B=2");
    assert_string_equal(e[2], "NCCL_INIT_DIGEST=e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934"
                              "ca495991b7852b855"); /* SHA-256 of nothing */
    assert_string_equal(e[3], "NCCL_INIT_PROFILE=base");
    assert_null(e[4]);
    /* Unchanged inherited strings are passed on as they are, not copied;
     * the array and the new strings are one allocation. */
    assert_ptr_equal(e[0], envp[1]);
    assert_ptr_equal(e[1], envp[0]);
    xfree(e);
    release(&s, p, 1, out);
}

/* An enforced value is a new string; the inherited one is not passed on. */
static void envp_enforced(void **state)
{
    (void)state;
    char *envp[] = { "NCCL_PROTO=Simple", "PATH=/bin", NULL };
    const char *texts[] = { "NCCL_PROTO=LL\n" };
    struct profile p[1];
    struct envset s;
    char *out = compose(&s, envp, texts, 1, true, p);
    char **e = envset_envp(&s);
    assert_string_equal(e[2], "NCCL_PROTO=LL");
    assert_true(e[2] != envp[0]);
    assert_ptr_equal(e[3], envp[1]);
    assert_null(e[4]);
    xfree(e);
    release(&s, p, 1, out);
}

static void json_output(void **state)
{
    (void)state;
    char *envp[] = { "NCCL_PROTO=Simple", "Q=\"a\\b\"\n\x01\xff", NULL };
    const char *texts[] = { "NCCL_PROTO=LL\nNCCL_ALGO=Ring\n" };
    struct profile p[1];
    struct envset s;
    char *out = compose(&s, envp, texts, 1, false, p);
    struct buf b = { 0 };
    render_json(&b, &s, false, true);
    assert_contains(b.data, "\"profile\": \"base\"");
    assert_contains(b.data, "\"overrides\": 1");
    /* each NCCL value ends with what NCCL 2.28.9 reads from it */
    assert_contains(b.data, "{\"key\": \"NCCL_ALGO\", \"value\": \"Ring\", \"source\": \"profile\", "
                            "\"resolved\": true, \"file\": \"t.env\", \"line\": 2, \"profile\": "
                            "\"base\", \"nccl\": {\"reads\": {\"Broadcast\": {\"Tree\": 0, \"Ring\": 1,");
    assert_contains(b.data, "{\"key\": \"NCCL_PROTO\", \"value\": \"Simple\", \"source\": "
                            "\"environment\", \"resolved\": true, \"overrides\": {\"value\": "
                            "\"LL\", \"file\": \"t.env\", \"line\": 1, \"profile\": \"base\"}, "
                            "\"nccl\": {\"reads\": {");
    assert_contains(b.data, "\"value\": \"\\\"a\\\\b\\\"\\u000a\\u0001\\ufffd\"");
    buf_free(&b);
    /* without all: the resolved set, not the caller's other variables */
    render_json(&b, &s, false, false);
    assert_contains(b.data, "\"all\": false");
    assert_contains(b.data, "\"key\": \"NCCL_PROTO\"");
    assert_null(strstr(b.data, "\"key\": \"Q\""));
    buf_free(&b);
    render_env(&b, &s, false);
    assert_string_equal(b.data + strlen(b.data) - 18, "NCCL_PROTO=Simple\n");
    assert_contains(b.data, "NCCL_ALGO=Ring\nNCCL_INIT_DIGEST=");
    assert_null(strstr(b.data, "Q="));
    buf_free(&b);
    release(&s, p, 1, out);
}

static size_t count(const char *s, const char *what)
{
    size_t n = 0;
    for (; (s = strstr(s, what)); s++)
        n++;
    return n;
}

/* --strict: an environment value over a profile line, one NCCL would not
 * take, is an error naming that line; a key the profile does not set, a
 * valid override, or one --enforce beats stay as they were. */
static void strict_refuses_an_invalid_override(void **state)
{
    (void)state;
    char *envp[] = { "NCCL_P2P_LEVEL=sys", "NCCL_BUFFSIZE=4M", "NCCL_ALGO=Tree", NULL };
    const char *texts[] = { "NCCL_P2P_LEVEL=SYS\nNCCL_ALGO=Ring\n" };
    struct profile p[1];
    struct envset s;
    char *out = compose(&s, envp, texts, 1, ENVSET_STRICT, p);
    assert_contains(out, "environment: error: NCCL_P2P_LEVEL=sys is not a value NCCL accepts "
                         "(levels are case-sensitive (did you mean SYS?); NCCL ignores it "
                         "without a word); the profile t.env:1 sets SYS");
    assert_contains(out, "environment: warning: NCCL_BUFFSIZE=4M: not a whole number");
    assert_int_equal(count(out, "error:"), 1);
    assert_int_equal(count(out, "warning:"), 1);
    release(&s, p, 1, out);
    out = compose(&s, envp, texts, 1, 0, p);
    assert_int_equal(count(out, "error:"), 0);
    assert_contains(out, "environment: warning: NCCL_P2P_LEVEL=sys: levels are case-sensitive");
    release(&s, p, 1, out);
    out = compose(&s, envp, texts, 1, ENVSET_STRICT | ENVSET_ENFORCE, p);
    assert_int_equal(count(out, "error:"), 0);
    assert_string_equal(get(&s, "NCCL_P2P_LEVEL")->value, "SYS");
    release(&s, p, 1, out);
}

static void sha256_vectors(void **state)
{
    (void)state;
    static const struct {
        const char *in, *hex;
    } v[] = {
        { "", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855" },
        { "abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad" },
        { "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
          "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1" },
    };
    for (size_t i = 0; i < ARRAY_SIZE(v); i++) {
        struct sha256 h;
        char hex[65];
        sha256_init(&h);
        sha256_update(&h, v[i].in, strlen(v[i].in));
        sha256_hex(&h, hex);
        assert_string_equal(hex, v[i].hex);
    }
    /* a million 'a's, fed in odd-sized pieces */
    struct sha256 h;
    char hex[65], chunk[997];
    memset(chunk, 'a', sizeof chunk);
    sha256_init(&h);
    for (size_t left = 1000000; left;) {
        size_t n = left < sizeof chunk ? left : sizeof chunk;
        sha256_update(&h, chunk, n);
        left -= n;
    }
    sha256_hex(&h, hex);
    assert_string_equal(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(sorted_and_traced),
        cmocka_unit_test(environment_wins_unless_enforced),
        cmocka_unit_test(duplicates_and_malformed_entries),
        cmocka_unit_test(later_profiles_win),
        cmocka_unit_test(environment_values_are_checked_as_warnings),
        cmocka_unit_test(envp_for_exec),
        cmocka_unit_test(envp_enforced),
        cmocka_unit_test(json_output),
        cmocka_unit_test(strict_refuses_an_invalid_override),
        cmocka_unit_test(sha256_vectors),
    };
    return cmocka_run_group_tests_name("envset", tests, NULL, NULL);
}
