/* The profile parser: the env-file dialect that docker --env-file, kubectl
 * --from-env-file and NCCL's nccl.conf read the same way. */
#include "helpers.h"

/* Parses text expecting exactly one error whose message contains want. */
static void expect_error(const char *text, const char *want)
{
    struct profile p;
    struct diag d = { 0 };
    capture_begin();
    unsigned errors = parse(&p, text, &d);
    char *out = capture_end();
    if (errors != 1)
        fail_msg("%u errors for \"%s\":\n%s", errors, text, out);
    assert_contains(out, want);
    xfree(out);
    profile_free(&p);
}

static void valid_lines(void **state)
{
    (void)state;
    struct profile p;
    struct diag d = { 0 };
    const char *text = "# header\n\nNCCL_PROTO=LL\n#NCCL_ALGO=Tree\nCUDA_X=a=b\nEMPTY=\nLAST=1";
    assert_int_equal(parse(&p, text, &d), 0);
    assert_int_equal(d.warnings, 0);
    assert_int_equal(p.n, 4);
    assert_string_equal(p.v[0].key, "NCCL_PROTO");
    assert_string_equal(p.v[0].value, "LL");
    assert_int_equal(p.v[0].line, 3);
    assert_string_equal(p.v[1].key, "CUDA_X");
    assert_string_equal(p.v[1].value, "a=b"); /* split at the first '=' only */
    assert_string_equal(p.v[2].value, "");
    assert_string_equal(p.v[3].key, "LAST"); /* no final newline */
    assert_int_equal(p.v[3].line, 7);
    assert_string_equal(p.v[0].file, "t.env");
    assert_string_equal(p.v[0].profile, "t");
    profile_free(&p);
}

static void every_error_class(void **state)
{
    (void)state;
    expect_error("NOEQUALS\n", "t.env:1: error: malformed line: expected KEY=VALUE");
    expect_error("=v\n", "t.env:1: error: malformed line: empty key");
    expect_error("\n\n9KEY=v\n", "t.env:3: error: bad key '9KEY'");
    expect_error("A-B=v\n", "bad key 'A-B'");
    expect_error("A=1\nA=2\n", "t.env:2: error: duplicate key A (first set at line 1)");
    expect_error("A=x\ry\n", "t.env:1: error: A: value contains control character 0x0d");
    expect_error("A=x\ty\n", "control character 0x09");
    expect_error("A=\x7f\n", "control character 0x7f");
    expect_error(" A=1\n", "leading whitespace");
    expect_error(" # comment\n", "leading whitespace");
    expect_error("export A=1\n", "'export' is not allowed");
    expect_error("A =1\n", "space before '='");
    expect_error("A= 1\n", "space after '='");
    expect_error("A=1 \n", "trailing space");
    expect_error("A=\xc3\x28\n", "not valid UTF-8");
    expect_error("A=\xed\xa0\x80\n", "not valid UTF-8"); /* a UTF-16 surrogate */
}

static void nul_byte_is_a_control_character(void **state)
{
    (void)state;
    struct profile p;
    struct diag d = { 0 };
    capture_begin();
    unsigned errors = parse_len(&p, "A=x\0y\nB=2\n", 10, &d, NULL, NULL);
    char *out = capture_end();
    assert_int_equal(errors, 1);
    assert_contains(out, "t.env:1: error: A: value contains control character 0x00");
    assert_int_equal(p.n, 1); /* B on line 2 still parsed */
    assert_string_equal(p.v[0].key, "B");
    xfree(out);
    profile_free(&p);
}

static void over_long_line(void **state)
{
    (void)state;
    size_t n = PROFILE_MAX_LINE + 1;
    char *text = malloc(n + 2);
    memcpy(text, "A=", 2);
    memset(text + 2, 'x', n - 2);
    text[n] = '\n';
    text[n + 1] = '\0';
    expect_error(text, "line is 4096 bytes long; the limit is 4095");
    text[n - 1] = '\n'; /* exactly the limit: accepted */
    text[n] = '\0';
    struct profile p;
    struct diag d = { 0 };
    assert_int_equal(parse(&p, text, &d), 0);
    assert_int_equal(p.n, 1);
    profile_free(&p);
    xfree(text);
}

static void warnings_keep_the_line(void **state)
{
    (void)state;
    struct profile p;
    struct diag d = { 0 };
    capture_begin();
    unsigned errors = parse(&p, "Q=\"quoted\"\nH=value #comment\n", &d);
    char *out = capture_end();
    assert_int_equal(errors, 0);
    assert_int_equal(d.warnings, 2);
    assert_int_equal(p.n, 2);
    assert_string_equal(p.v[0].value, "\"quoted\""); /* kept literally, as docker does */
    assert_contains(out, "t.env:1: warning: Q: the quotes are part of the value");
    assert_contains(out, "t.env:2: warning: H: '#' is part of the value");
    xfree(out);
    profile_free(&p);
}

static void errors_do_not_stop_the_parse(void **state)
{
    (void)state;
    struct profile p;
    struct diag d = { 0 };
    capture_begin();
    unsigned errors = parse(&p, "bad\nA=1\n B=2\nC=3\n", &d);
    xfree(capture_end());
    assert_int_equal(errors, 2);
    assert_int_equal(p.n, 2);
    assert_string_equal(p.v[1].key, "C");
    profile_free(&p);
}

static void load_by_name_and_path(void **state)
{
    (void)state;
    char dir[] = "/tmp/nccl-init-unit-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char *path = path_join(dir, "mine.env");
    FILE *f = fopen(path, "w");
    fputs("NCCL_PROTO=LL\n", f);
    fclose(f);

    struct profile p;
    struct diag d = { 0 };
    assert_int_equal(profile_load(&p, "mine", dir, &d, NULL, NULL), 0);
    assert_string_equal(p.name, "mine");
    assert_string_equal(p.path, path);
    assert_int_equal(p.n, 1);
    profile_free(&p);

    assert_int_equal(profile_load(&p, path, "/nonexistent", &d, NULL, NULL), 0);
    assert_string_equal(p.name, "mine");
    profile_free(&p);

    capture_begin();
    assert_int_equal(profile_load(&p, "missing", dir, &d, NULL, NULL), 1);
    profile_free(&p);
    assert_int_equal(profile_load(&p, "mien", dir, &d, NULL, NULL), 1);
    profile_free(&p);
    assert_int_equal(profile_load(&p, "mine", "/nonexistent", &d, NULL, NULL), 1);
    profile_free(&p);
    char *missing = path_join(dir, "missing.env");
    assert_int_equal(profile_load(&p, missing, "/nonexistent", &d, NULL, NULL), 1);
    profile_free(&p);
    assert_int_equal(profile_load(&p, "bad name", dir, &d, NULL, NULL), 1);
    char *out = capture_end();
    /* a name: where it was looked for, and the nearest names there */
    char want[256];
    snprintf(want, sizeof want, "missing.env: error: no profile missing in %s (--profile-dir DIR "
             "looks in another directory)", dir);
    assert_contains(out, want);
    snprintf(want, sizeof want, "mien.env: error: no profile mien in %s; did you mean mine?", dir);
    assert_contains(out, want);
    assert_contains(out, "/nonexistent/mine.env: error: no profile mine: the profile directory "
                         "/nonexistent does not exist");
    /* a path is read as given */
    snprintf(want, sizeof want, "%s: error: cannot read profile: No such file or directory",
             missing);
    assert_contains(out, want);
    xfree(missing);
    assert_contains(out, "bad name: error: bad profile name");
    xfree(out);
    profile_free(&p);
    unlink(path);
    rmdir(dir);
    xfree(path);
}

/* A file with Windows line ends is one error, at the first line a CR ends;
 * nothing of it is taken. */
static void crlf_is_one_error(void **state)
{
    (void)state;
    expect_error("A=1\r\nB=2\r\nC=3\r\n", "t.env:1: error: the file has CRLF line ends "
                 "(Windows); convert it with dos2unix");
    expect_error("# c\nA=1\n# c\r\nB=2\r\n", "t.env:3: error: the file has CRLF line ends");
    expect_error("A=1\nB=2\r", "t.env:2: error: the file has CRLF line ends"); /* at the end */
    struct profile p;
    struct diag d = { 0 };
    capture_begin();
    parse(&p, "A=1\nB=2\r\n", &d);
    xfree(capture_end());
    assert_int_equal(p.n, 0);
    profile_free(&p);
}

/* check --json's collector gets each finding with the key it is about. */
struct seen {
    char keys[8][32];
    unsigned lines[8];
    int n;
};

static void collect(void *ctx, int severity, const char *file, unsigned line, const char *key,
                    const char *msg)
{
    struct seen *s = ctx;
    (void)severity, (void)file, (void)msg;
    snprintf(s->keys[s->n], sizeof s->keys[0], "%s", key ? key : "-");
    s->lines[s->n++] = line;
}

static void findings_name_their_key(void **state)
{
    (void)state;
    struct seen seen = { 0 };
    struct diag d = { .collect = collect, .ctx = &seen };
    struct profile p;
    capture_begin();
    parse(&p, "A=1\nnot a pair\nA=2\nB= x\nC=\"q\"\n", &d);
    char *out = capture_end();
    assert_string_equal(out, ""); /* collected, not printed */
    assert_int_equal(seen.n, 4);
    const char *keys[] = { "-", "A", "B", "C" };
    const unsigned lines[] = { 2, 3, 4, 5 };
    for (int i = 0; i < 4; i++) {
        assert_string_equal(seen.keys[i], keys[i]);
        assert_int_equal(seen.lines[i], lines[i]);
    }
    assert_null(d.key); /* nothing left over for the next finding */
    assert_int_equal(d.errors, 3);
    assert_int_equal(d.warnings, 1);
    xfree(out);
    profile_free(&p);
}

/* kv_next, the one KEY=VALUE reader (profiles, and verify's record and
 * nccl.conf): it skips empty and '#' lines, counts every line, splits at
 * the first '=', and leaves a NUL inside a line to the caller. */
static void kv_reader_splits_lines(void **state)
{
    (void)state;
    char text[] = "# c\n\nA=1\nNOEQ\n B=x=y\n=v\nC=a\0b\nLAST=";
    struct kv_reader r;
    struct kv_line l;
    kv_begin(&r, text, sizeof text - 1);
    assert_true(kv_next(&r, &l));
    assert_string_equal(l.key, "A");
    assert_string_equal(l.value, "1");
    assert_int_equal(l.key_len, 1);
    assert_int_equal(l.value_len, 1);
    assert_int_equal(l.len, 3);
    assert_int_equal(l.line, 3);
    assert_true(kv_next(&r, &l));
    assert_string_equal(l.key, "NOEQ");
    assert_null(l.value);
    assert_int_equal(l.key_len, 4);
    assert_int_equal(l.line, 4);
    assert_true(kv_next(&r, &l));
    assert_string_equal(l.key, " B"); /* as written: the rules are the caller's */
    assert_string_equal(l.value, "x=y");
    assert_true(kv_next(&r, &l));
    assert_int_equal(l.key_len, 0);
    assert_string_equal(l.value, "v");
    assert_true(kv_next(&r, &l));
    assert_string_equal(l.key, "C");
    assert_int_equal(l.value_len, 3); /* "a\0b" */
    assert_memory_equal(l.value, "a\0b", 3);
    assert_int_equal(l.line, 7);
    assert_true(kv_next(&r, &l)); /* no final newline */
    assert_string_equal(l.key, "LAST");
    assert_string_equal(l.value, "");
    assert_int_equal(l.line, 8);
    assert_false(kv_next(&r, &l));
    assert_false(kv_next(&r, &l));
    char empty[] = "";
    kv_begin(&r, empty, 0);
    assert_false(kv_next(&r, &l));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(valid_lines),
        cmocka_unit_test(every_error_class),
        cmocka_unit_test(nul_byte_is_a_control_character),
        cmocka_unit_test(over_long_line),
        cmocka_unit_test(warnings_keep_the_line),
        cmocka_unit_test(errors_do_not_stop_the_parse),
        cmocka_unit_test(load_by_name_and_path),
        cmocka_unit_test(kv_reader_splits_lines),
        cmocka_unit_test(crlf_is_one_error),
        cmocka_unit_test(findings_name_their_key),
    };
    return cmocka_run_group_tests_name("profile", tests, NULL, NULL);
}
