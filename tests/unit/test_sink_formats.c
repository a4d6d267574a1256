/* Managed blocks and the text of each sink. */
#include "helpers.h"

#include "block.h"
#include "envset.h"
#include "sink_formats.h"

static char skipped[1024];

static void note_skip(const char *sink, const char *key, const char *why)
{
    struct buf b = BUF_FIXED(skipped);
    b.len = strlen(skipped);
    buf_printf(&b, "%s:%s:%s\n", sink, key, why);
}

static char *splice(const char *old, const char *body, bool top, int *rc)
{
    struct buf out = { 0 };
    *rc = block_splice(&out, old, strlen(old), body, top);
    return out.data ? out.data : strdup("");
}

static void blocks(void **state)
{
    (void)state;
    int rc;
    char *s = splice("A=1\n", "X=1\n", false, &rc);
    assert_int_equal(rc, 0);
    assert_string_equal(s, "A=1\n# BEGIN nccl-init\nX=1\n# END nccl-init\n");
    /* replaced in place, not appended; the rest kept byte for byte */
    char *t = splice("top\n# BEGIN nccl-init\nold\n# END nccl-init\nbottom", "new\n", false, &rc);
    assert_string_equal(t, "top\n# BEGIN nccl-init\nnew\n# END nccl-init\nbottom");
    free(t);
    /* idempotent: splicing the result again changes nothing */
    t = splice(s, "X=1\n", false, &rc);
    assert_string_equal(t, s);
    free(t);
    free(s);
    s = splice("no newline", "X\n", false, &rc);
    assert_string_equal(s, "no newline\n# BEGIN nccl-init\nX\n# END nccl-init\n");
    free(s);
    s = splice("import x\n", "Y\n", true, &rc);
    assert_string_equal(s, "# BEGIN nccl-init\nY\n# END nccl-init\nimport x\n");
    free(s);
    s = splice("", "", false, &rc);
    assert_string_equal(s, "# BEGIN nccl-init\n# END nccl-init\n");
    free(s);
    /* markers count only as whole lines */
    s = splice("x # BEGIN nccl-init\n", "Z\n", false, &rc);
    assert_string_equal(s, "x # BEGIN nccl-init\n# BEGIN nccl-init\nZ\n# END nccl-init\n");
    free(s);
    /* damaged: not ours to guess at */
    s = splice("# BEGIN nccl-init\nA=1\n", "Z\n", false, &rc);
    assert_int_equal(rc, -1);
    free(s);
    s = splice("# BEGIN nccl-init\n# END nccl-init\n# BEGIN nccl-init\n# END nccl-init\n", "",
               false, &rc);
    assert_int_equal(rc, -1);
    free(s);
    assert_true(block_only("\n# BEGIN nccl-init\nA=1\n# END nccl-init\n\n", 39));
    assert_true(block_only("", 0));
    assert_false(block_only("# BEGIN nccl-init\n# END nccl-init\nimport apport\n", 48));
}

/* Markers that end in CRLF are markers: the block is replaced in place,
 * its markers keep the CRLF, its lines are the body's own '\n' lines. */
static void blocks_crlf(void **state)
{
    (void)state;
    int rc;
    char *s = splice("A=1\r\n# BEGIN nccl-init\r\nOLD=1\r\n# END nccl-init\r\nB=2\r\n", "X=1\n",
                     false, &rc);
    assert_int_equal(rc, 0);
    assert_string_equal(s, "A=1\r\n# BEGIN nccl-init\r\nX=1\n# END nccl-init\r\nB=2\r\n");
    /* idempotent */
    char *t = splice(s, "X=1\n", false, &rc);
    assert_string_equal(t, s);
    free(t);
    free(s);
    /* an END with a CR and no final newline; the block at the top */
    s = splice("# BEGIN nccl-init\r\nOLD=1\r\n# END nccl-init\r", "Y\n", true, &rc);
    assert_int_equal(rc, 0);
    assert_string_equal(s, "# BEGIN nccl-init\r\nY\n# END nccl-init\r\n");
    free(s);
    /* one CRLF marker and one LF marker still make one block */
    s = splice("# BEGIN nccl-init\nOLD\n# END nccl-init\r\nrest\n", "Z\n", false, &rc);
    assert_string_equal(s, "# BEGIN nccl-init\nZ\n# END nccl-init\nrest\n");
    free(s);
    /* a CRLF BEGIN without an END is damaged, as an LF one is */
    s = splice("A=1\r\n# BEGIN nccl-init\r\nOLD=1\r\n", "Z\n", false, &rc);
    assert_int_equal(rc, -1);
    free(s);
    /* two CRs, or anything after the CR, is not a marker */
    s = splice("# BEGIN nccl-init\r\r\n", "Z\n", false, &rc);
    assert_int_equal(rc, 0);
    assert_string_equal(s, "# BEGIN nccl-init\r\r\n# BEGIN nccl-init\nZ\n# END nccl-init\n");
    free(s);
    const char *only = "\r\n# BEGIN nccl-init\r\nA=1\r\n# END nccl-init\r\n";
    assert_true(block_only(only, strlen(only)));
}

/* An envset whose resolved set is the given KEY=VALUE pairs. As
 * envset_compose does, the set borrows the values (from kv) and keeps its
 * keys in one buffer of its own, which envset_free gives back. */
static void make_set(struct envset *s, const char *const *kv, size_t n)
{
    memset(s, 0, sizeof *s);
    s->v = calloc(n, sizeof *s->v);
    size_t bytes = 0;
    for (size_t i = 0; i < n; i++)
        bytes += strlen(kv[i]) + 1;
    char *k = s->keys = malloc(bytes);
    for (size_t i = 0; i < n; i++) {
        const char *eq = strchr(kv[i], '=');
        size_t kl = (size_t)(eq - kv[i]);
        memcpy(k, kv[i], kl);
        k[kl] = '\0';
        s->v[i].key = k;
        s->v[i].value = eq + 1;
        s->v[i].resolved = true;
        s->v[i].source = SRC_PROFILE;
        k += kl + 1;
    }
    s->n = n;
}

static void pam_env_values(void **state)
{
    (void)state;
    const char *kv[] = { "A_OK=x,y:z/1", "B_HASH=a#b", "C_QUOTE=\"q\"", "D_EMPTY=",
                         "E_BSLASH=a\\", "F_SPACE= a", "G_NL=a\nb", "H_MID=a\"b" };
    struct envset s;
    make_set(&s, kv, ARRAY_SIZE(kv));
    struct buf b = { 0 };
    skipped[0] = '\0';
    format_etc_environment(&b, &s, note_skip);
    assert_string_equal(b.data, "A_OK=x,y:z/1\nH_MID=a\"b\n");
    assert_contains(skipped, "etc-environment:B_HASH:pam_env treats '#' as a comment");
    assert_contains(skipped, "etc-environment:C_QUOTE:pam_env strips quotes");
    assert_contains(skipped, "etc-environment:D_EMPTY:an empty value means unset");
    assert_contains(skipped, "etc-environment:E_BSLASH:pam_env joins a line");
    assert_contains(skipped, "etc-environment:F_SPACE:pam_env does not keep surrounding blanks");
    assert_contains(skipped, "etc-environment:G_NL:it contains a control character");
    buf_free(&b);
    envset_free(&s);
}

static void nccl_conf_values(void **state)
{
    (void)state;
    const char *kv[] = { "CUDA_X=1", "NCCL_A=a#b \"c\"", "NCCL_CONF_FILE=/x", "NCCL_CR=a\rb" };
    struct envset s;
    make_set(&s, kv, ARRAY_SIZE(kv));
    struct buf b = { 0 };
    skipped[0] = '\0';
    format_nccl_conf(&b, &s, note_skip);
    /* NCCL keeps everything after '=' literally: '#' and quotes are fine */
    assert_string_equal(b.data, "NCCL_A=a#b \"c\"\n");
    assert_contains(skipped, "nccl-conf:NCCL_CR:it contains a control character");
    buf_free(&b);
    envset_free(&s);
}

static void python_literals_are_inert(void **state)
{
    (void)state;
    const char *kv[] = { "K1=it's \"q\" \\ '''x''' \"\"\" \\n", "K2=\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80",
                         "K3=');import os;os.system('id');('" };
    struct envset s;
    make_set(&s, kv, ARRAY_SIZE(kv));
    struct buf b = { 0 };
    format_python(&b, &s, NULL, NULL, note_skip);
    /* Only letters, digits, a few marks and escapes between the quotes: no
     * quote, backslash-quote or newline from a value reaches the code. */
    assert_contains(b.data, "('K1', 'it\\x27s \\x22q\\x22 \\x5c \\x27\\x27\\x27x\\x27\\x27\\x27 "
                            "\\x22\\x22\\x22 \\x5cn'),");
    assert_contains(b.data, "('K2', '\\xe9\\u20ac\\U0001f600'),");
    assert_contains(b.data, "('K3', '\\x27\\x29\\x3bimport os\\x3bos.system\\x28\\x27id\\x27\\x29\\x3b\\x28\\x27'),");
    buf_free(&b);
    envset_free(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(blocks),
        cmocka_unit_test(blocks_crlf),
        cmocka_unit_test(pam_env_values),
        cmocka_unit_test(nccl_conf_values),
        cmocka_unit_test(python_literals_are_inert),
    };
    return cmocka_run_group_tests_name("sink_formats", tests, NULL, NULL);
}
