/* Managed blocks and the text of each sink. */
#include "helpers.h"

#include "lib/paths.h"
#include "sinks/block.h"
#include "nccl/envset.h"
#include "sinks/sink_formats.h"

#define BEGIN_LINE "# BEGIN nccl-init\n"

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
    *rc = block_splice(&out, old, strlen(old), body, top, false);
    return out.data ? out.data : strdup("");
}

/* The file old with its block taken out (remove): block_splice, body NULL. */
static char *unsplice(const char *old, int *rc)
{
    struct buf out = { 0 };
    *rc = block_splice(&out, old, strlen(old), NULL, false, false);
    return out.data ? out.data : strdup("");
}

static void blocks(void **state)
{
    (void)state;
    int rc;
    char *s = splice("A=1\n", "X=1\n", false, &rc);
    assert_int_equal(rc, 1);
    assert_string_equal(s, "A=1\n# BEGIN nccl-init\nX=1\n# END nccl-init\n");
    /* replaced in place, not appended; the rest kept byte for byte */
    char *t = splice("top\n# BEGIN nccl-init\nold\n# END nccl-init\nbottom", "new\n", false, &rc);
    assert_string_equal(t, "top\n# BEGIN nccl-init\nnew\n# END nccl-init\nbottom");
    xfree(t);
    /* idempotent: splicing the result again changes nothing */
    t = splice(s, "X=1\n", false, &rc);
    assert_string_equal(t, s);
    xfree(t);
    xfree(s);
    s = splice("no newline", "X\n", false, &rc);
    assert_string_equal(s, "no newline\n# BEGIN nccl-init\n" BLOCK_NEWLINE "\nX\n# END nccl-init\n");
    xfree(s);
    s = splice("import x\n", "Y\n", true, &rc);
    assert_string_equal(s, "# BEGIN nccl-init\nY\n# END nccl-init\nimport x\n");
    xfree(s);
    s = splice("", "", false, &rc);
    assert_string_equal(s, "# BEGIN nccl-init\n# END nccl-init\n");
    xfree(s);
    /* markers count only as whole lines */
    s = splice("x # BEGIN nccl-init\n", "Z\n", false, &rc);
    assert_string_equal(s, "x # BEGIN nccl-init\n# BEGIN nccl-init\nZ\n# END nccl-init\n");
    xfree(s);
    /* damaged: not ours to guess at */
    s = splice("# BEGIN nccl-init\nA=1\n", "Z\n", false, &rc);
    assert_int_equal(rc, -EBADMSG);
    xfree(s);
    s = splice("# BEGIN nccl-init\n# END nccl-init\n# BEGIN nccl-init\n# END nccl-init\n", "",
               false, &rc);
    assert_int_equal(rc, -EBADMSG);
    xfree(s);
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
    assert_int_equal(rc, 1);
    assert_string_equal(s, "A=1\r\n# BEGIN nccl-init\r\nX=1\n# END nccl-init\r\nB=2\r\n");
    /* idempotent */
    char *t = splice(s, "X=1\n", false, &rc);
    assert_string_equal(t, s);
    xfree(t);
    xfree(s);
    /* an END with a CR and no final newline; the block at the top */
    s = splice("# BEGIN nccl-init\r\nOLD=1\r\n# END nccl-init\r", "Y\n", true, &rc);
    assert_int_equal(rc, 1);
    assert_string_equal(s, "# BEGIN nccl-init\r\nY\n# END nccl-init\r\n");
    xfree(s);
    /* one CRLF marker and one LF marker still make one block */
    s = splice("# BEGIN nccl-init\nOLD\n# END nccl-init\r\nrest\n", "Z\n", false, &rc);
    assert_string_equal(s, "# BEGIN nccl-init\nZ\n# END nccl-init\nrest\n");
    xfree(s);
    /* a CRLF BEGIN without an END is damaged, as an LF one is */
    s = splice("A=1\r\n# BEGIN nccl-init\r\nOLD=1\r\n", "Z\n", false, &rc);
    assert_int_equal(rc, -EBADMSG);
    xfree(s);
    /* two CRs, or anything after the CR, is not a marker */
    s = splice("# BEGIN nccl-init\r\r\n", "Z\n", false, &rc);
    assert_int_equal(rc, 1);
    assert_string_equal(s, "# BEGIN nccl-init\r\r\n# BEGIN nccl-init\nZ\n# END nccl-init\n");
    xfree(s);
    const char *only = "\r\n# BEGIN nccl-init\r\nA=1\r\n# END nccl-init\r\n";
    assert_true(block_only(only, strlen(only)));
}

/* The note after BEGIN: MADE for a file that did not exist, NEWLINE when
 * nccl-init ended the last line to append; none otherwise. A replaced
 * block keeps its note. */
static void block_notes(void **state)
{
    (void)state;
    struct buf out = { 0 };
    assert_int_equal(block_splice(&out, "", 0, "X=1\n", false, true), 1);
    /* printf 'X=1\n' | sha256sum */
    assert_string_equal(out.data, "# BEGIN nccl-init\n" BLOCK_MADE "\n" BLOCK_SUM
                                  "7169412703c3edbf2de7c2dcd1fb1476dea91d7c951621eb2e3b79c06a3d174e"
                                  "\nX=1\n# END nccl-init\n");
    /* the same at the top (the Python hook) */
    struct buf top = { 0 };
    assert_int_equal(block_splice(&top, "", 0, "X=1\n", true, true), 1);
    assert_string_equal(top.data, out.data);
    buf_free(&top);
    /* an empty file that was there: no note */
    int rc;
    char *s = splice("", "X=1\n", false, &rc);
    assert_string_equal(s, "# BEGIN nccl-init\nX=1\n# END nccl-init\n");
    xfree(s);
    /* the block at the top of a file without a final newline: nothing added */
    s = splice("import x", "Y\n", true, &rc);
    assert_string_equal(s, "# BEGIN nccl-init\nY\n# END nccl-init\nimport x");
    xfree(s);
    /* replaced: the note stays, the body changes */
    s = splice(out.data, "X=2\n", false, &rc);
    assert_string_equal(s, "# BEGIN nccl-init\n" BLOCK_MADE "\n" BLOCK_SUM
                           "7cb9786fd111333eb2b25bf969a8ccbf41c4f7e6331b69fec0c43bc87e83548a"
                           "\nX=2\n# END nccl-init\n");
    xfree(s);
    s = splice("A=1\r\n# BEGIN nccl-init\r\n" BLOCK_NEWLINE "\nOLD\n# END nccl-init\r\n", "Z\n",
               false, &rc);
    assert_string_equal(s, "A=1\r\n# BEGIN nccl-init\r\n" BLOCK_NEWLINE "\nZ\n# END nccl-init\r\n");
    xfree(s);
    /* a note line anywhere but right after BEGIN is body */
    s = splice("# BEGIN nccl-init\nA\n" BLOCK_MADE "\n# END nccl-init\n", "B\n", false, &rc);
    assert_string_equal(s, "# BEGIN nccl-init\nB\n# END nccl-init\n");
    xfree(s);
    buf_free(&out);
}

/* A file, spliced as a start would (created when absent), then taken out
 * again: rc 2 (delete) for absent, else exactly the original bytes. */
static void round_trip(const char *orig, bool absent, bool top)
{
    struct buf in = { 0 }, out = { 0 };
    size_t n = orig ? strlen(orig) : 0;
    assert_int_equal(block_splice(&in, orig ? orig : "", n, "NCCL_ALGO=Ring\nNCCL_PROTO=LL\n", top,
                                  absent),
                     1);
    /* a second start changes nothing */
    struct buf again = { 0 };
    assert_int_equal(block_splice(&again, in.data, in.len, "NCCL_ALGO=Ring\nNCCL_PROTO=LL\n", top,
                                  false),
                     1);
    assert_int_equal(again.len, in.len);
    assert_memory_equal(again.data, in.data, in.len);
    int rc = block_splice(&out, in.data, in.len, NULL, top, false);
    if (absent) {
        assert_int_equal(rc, 2);
    } else {
        assert_int_equal(rc, 1);
        assert_int_equal(out.len, n);
        if (n)
            assert_memory_equal(out.data, orig, n);
        /* and a second remove finds nothing */
        struct buf none = { 0 };
        assert_int_equal(block_splice(&none, out.data ? out.data : "", out.len, NULL, top, false),
                         0);
        assert_int_equal(none.len, 0);
    }
    buf_free(&in);
    buf_free(&again);
    buf_free(&out);
}

static void remove_is_the_inverse(void **state)
{
    (void)state;
    static const char *const files[] = {
        "", "\n", "A=1\n", "A=1", "A=1\nB=2", "A=1\r\nB=2\r\n", "A=1\r\nB=2", "A=1\r\n\r",
        "# BEGIN nccl-init \n", "x # BEGIN nccl-init\nend", "import apport\n", "\n\n\n",
        BLOCK_MADE, BLOCK_NEWLINE "\n", "caf\xc3\xa9\t\x01", "# END nccl-init.",
    };
    for (size_t i = 0; i < ARRAY_SIZE(files); i++)
        for (int top = 0; top < 2; top++)
            round_trip(files[i], false, top);
    round_trip(NULL, true, false);
    round_trip(NULL, true, true);
}

/* What a remove leaves: lines around the block, a note it cannot vouch
 * for, a damaged block untouched. */
static void remove_what_is_not_ours(void **state)
{
    (void)state;
    int rc;
    /* a block in the middle: the lines around it stay, CRLF and all */
    char *s = unsplice("A=1\r\n# BEGIN nccl-init\r\nX\n# END nccl-init\r\nB=2\r\n", &rc);
    assert_int_equal(rc, 1);
    assert_string_equal(s, "A=1\r\nB=2\r\n");
    xfree(s);
    /* a made file that someone added to, after or before the block: kept */
    s = unsplice("# BEGIN nccl-init\n" BLOCK_MADE "\nX\n# END nccl-init\nMINE=1\n", &rc);
    assert_int_equal(rc, 1);
    assert_string_equal(s, "MINE=1\n");
    xfree(s);
    s = unsplice("MINE=1\n# BEGIN nccl-init\n" BLOCK_MADE "\nX\n# END nccl-init\n", &rc);
    assert_int_equal(rc, 1);
    assert_string_equal(s, "MINE=1\n");
    xfree(s);
    /* the newline note counts only while the block ends the file */
    s = unsplice("A\n# BEGIN nccl-init\n" BLOCK_NEWLINE "\nX\n# END nccl-init\nB\n", &rc);
    assert_int_equal(rc, 1);
    assert_string_equal(s, "A\nB\n");
    xfree(s);
    /* a block of an older nccl-init (no note) that made the file: empty */
    s = unsplice("# BEGIN nccl-init\nX\n# END nccl-init\n", &rc);
    assert_int_equal(rc, 1);
    assert_string_equal(s, "");
    xfree(s);
    /* an END with no newline at the end of the file */
    s = unsplice("A=1\n# BEGIN nccl-init\nX\n# END nccl-init", &rc);
    assert_int_equal(rc, 1);
    assert_string_equal(s, "A=1\n");
    xfree(s);
    /* nothing to take out */
    s = unsplice("A=1\n# BEGIN nccl-init-2\n", &rc);
    assert_int_equal(rc, 0);
    xfree(s);
    /* damaged: BEGIN alone, END alone, two blocks */
    static const char *const damaged[] = {
        "# BEGIN nccl-init\nA=1\n",
        "A=1\n# END nccl-init\n",
        "# BEGIN nccl-init\n# END nccl-init\n# BEGIN nccl-init\n# END nccl-init\n",
        "# BEGIN nccl-init\n# BEGIN nccl-init\n# END nccl-init\n",
    };
    for (size_t i = 0; i < ARRAY_SIZE(damaged); i++) {
        s = unsplice(damaged[i], &rc);
        assert_int_equal(rc, -EBADMSG);
        xfree(s);
    }
}

/* A made file is deleted only while its block's lines are the ones
 * nccl-init wrote (BLOCK_SUM); edited, it is left as it is. */
static void remove_an_edited_made_file(void **state)
{
    (void)state;
    struct buf made = { 0 }, out = { 0 };
    assert_int_equal(block_splice(&made, "", 0, "X=1\n", false, true), BLOCK_SPLICED);
    assert_contains(made.data, "\n" BLOCK_MADE "\n" BLOCK_SUM);
    assert_int_equal(block_splice(&out, made.data, made.len, NULL, false, false), BLOCK_ALONE);
    /* the operator's line inside the block, or a value changed */
    static const char *const edits[][2] = { { "X=1\n", "X=1\nMINE=1\n" }, { "X=1", "X=2" },
                                            { "X=1\n", "" } };
    for (size_t i = 0; i < ARRAY_SIZE(edits); i++) {
        char *e = strdup(made.data), *at = strstr(e, edits[i][0]);
        struct buf ed = { 0 };
        buf_add(&ed, e, (size_t)(at - e));
        buf_str(&ed, edits[i][1]);
        buf_str(&ed, at + strlen(edits[i][0]));
        buf_free(&out);
        assert_int_equal(block_splice(&out, ed.data, ed.len, NULL, false, false), BLOCK_EDITED);
        assert_int_equal(out.len, 0);
        /* with lines outside the block too: still left as it is */
        buf_str(&ed, "AFTER=1\n");
        assert_int_equal(block_splice(&out, ed.data, ed.len, NULL, false, false), BLOCK_EDITED);
        /* a start replaces it all the same, with a fresh sum */
        struct buf again = { 0 };
        assert_int_equal(block_splice(&again, ed.data, ed.len, "X=1\n", false, false),
                         BLOCK_SPLICED);
        assert_contains(again.data, "X=1\n# END nccl-init\nAFTER=1\n");
        assert_non_null(strstr(again.data, made.data + strlen(BEGIN_LINE)));
        buf_free(&again);
        buf_free(&ed);
        free(e);
    }
    /* a sum line that is not one (not 64 digits): an older block, no sum */
    buf_free(&out);
    const char *old = "# BEGIN nccl-init\n" BLOCK_MADE "\n" BLOCK_SUM "abc\nX=1\n# END nccl-init\n";
    assert_int_equal(block_splice(&out, old, strlen(old), NULL, false, false), BLOCK_SPLICED);
    assert_int_equal(out.len, 0);
    buf_free(&out);
    buf_free(&made);
}

/* block_find and block_insert: where a block is, and one put in at a line. */
static void block_find_and_insert(void **state)
{
    (void)state;
    const char *f = "A=1\n# BEGIN nccl-init\nX\n# END nccl-init\nB=2\n";
    size_t b, e;
    assert_true(block_find(f, strlen(f), &b, &e));
    assert_int_equal(b, 4);
    assert_int_equal(e, strlen(f) - 4);
    assert_false(block_find("A=1\n", 4, &b, &e));
    assert_false(block_find("# BEGIN nccl-init\n", 18, &b, &e));
    struct buf out = { 0 };
    block_insert(&out, "A=1\nB=2\n", 8, "X\n", 4, false);
    assert_string_equal(out.data, "A=1\n# BEGIN nccl-init\nX\n# END nccl-init\nB=2\n");
    buf_free(&out);
}

/* pam_env_scan against Linux-PAM 1.5.2's _assemble_line: BUF_SIZE 8192,
 * a line of 8190 bytes and its newline read, one more stops it; a NUL
 * stops it (but for one past the first byte of a last line without a
 * newline); a '\' joins lines (comments and blank lines between are
 * skipped); a last line still joined is dropped. */
static void pam_env_reading(void **state)
{
    (void)state;
    static char f[3 * 9000];
    struct pam_env_stop st;
    assert_true(pam_env_scan("A=1\nB=2\n", 8, SIZE_MAX, &st));
    assert_int_equal(st.at, 8);
    assert_false(st.joined);
    for (size_t len = 8189; len <= 8192; len++) {
        memset(f, 'x', sizeof f);
        memcpy(f, "A=1\nL=", 6);
        f[4 + len] = '\n';
        memcpy(f + 4 + len + 1, "B=2\n", 5);
        size_t n = strlen(f);
        bool all = pam_env_scan(f, n, SIZE_MAX, &st);
        assert_int_equal(all, len <= 8190);
        if (!all) {
            assert_int_equal(st.at, 4);
            assert_int_equal(st.line, 2);
            assert_int_equal(st.len, len);
            assert_contains(st.why, "longer than the 8190 bytes pam_env reads");
        }
    }
    /* the last line without a newline: 8190 bytes are read, 8191 are not */
    memset(f, 'x', 8191);
    f[8191] = '\0';
    assert_false(pam_env_scan(f, 8191, SIZE_MAX, &st));
    assert_true(pam_env_scan(f, 8190, SIZE_MAX, &st));
    /* a NUL byte */
    assert_false(pam_env_scan("A=1\nB=\0\nC=3\n", 12, SIZE_MAX, &st));
    assert_int_equal(st.line, 2);
    assert_int_equal(st.len, 3);
    assert_contains(st.why, "NUL");
    /* ... but in a last line without a newline (fgets reached the end of
     * the file: feof) only one as its first byte stops it; a later one
     * ends the line, which is read up to it */
    assert_true(pam_env_scan("A=1\nB=2\0x", 9, SIZE_MAX, &st));
    assert_false(pam_env_scan("A=1\n\0x", 6, SIZE_MAX, &st));
    assert_int_equal(st.line, 2);
    assert_contains(st.why, "NUL");
    assert_false(pam_env_scan("A=1\nB=\\\0x", 8, SIZE_MAX, &st));
    assert_int_equal(st.at, 4);
    assert_contains(st.why, "ends in a backslash and the file ends");
    /* a continuation: the block's place after it is joined; at the end of
     * the file it is dropped, and the block goes where it starts */
    const char *c = "A=1\nB=a\\\n# c\n\nb\nC=\\  \n";
    assert_false(pam_env_scan(c, strlen(c), 9, &st));
    assert_true(st.joined); /* the comment line, inside B's continuation */
    assert_int_equal(st.at, 16);
    assert_int_equal(st.line, 6);
    assert_int_equal(st.len, 5); /* "C=\\  ", without its newline */
    assert_contains(st.why, "ends in a backslash and the file ends");
    assert_false(pam_env_scan("A=1\nB=2\\\n", 9, SIZE_MAX, &st));
    assert_int_equal(st.len, 4);
    assert_true(pam_env_scan(c, 16, SIZE_MAX, &st));
    /* a '\' after '#' is a comment's, and a "\r" keeps the '\' from the end */
    assert_true(pam_env_scan("A=1 # x\\\nB=a\\\r\n", 15, SIZE_MAX, &st));
    assert_false(st.joined);
    /* joined lines count together against the buffer */
    memset(f, 'y', sizeof f);
    memcpy(f, "L=", 2);
    f[5000] = '\\';
    f[5001] = '\n';
    f[9002] = '\n';
    f[9003] = '\0';
    assert_false(pam_env_scan(f, 9003, SIZE_MAX, &st));
    assert_int_equal(st.at, 0);
    assert_int_equal(st.len, 9002); /* both lines, but the last newline */
    assert_contains(st.why, "the lines a backslash joins");
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
    format_nccl_conf(&b, &s, NULL, note_skip);
    /* NCCL keeps everything after '=' literally: '#' and quotes are fine */
    assert_string_equal(b.data, "NCCL_A=a#b \"c\"\n");
    assert_contains(skipped, "nccl-conf:NCCL_CR:it contains a control character");
    buf_free(&b);
    envset_free(&s);
}

/* The hook is fixed code: the same text for any set, no value in it; the
 * record's path is its one variable part, a literal that no path can break
 * out of; the record's bounds are lib/paths.h's. */
static void python_hook_is_static(void **state)
{
    (void)state;
    const char *kv[] = { "NCCL_ALGO=Ring", "K3=');import os;os.system('id');('" };
    struct envset s;
    make_set(&s, kv, ARRAY_SIZE(kv));
    struct buf a = { 0 }, b = { 0 }, c = { 0 };
    skipped[0] = '\0';
    format_python(&a, &s, false, NULL, note_skip);
    format_python(&b, NULL, false, NULL, note_skip);
    assert_string_equal(a.data, b.data);
    assert_string_equal(skipped, "");
    assert_null(strstr(a.data, "Ring"));
    assert_null(strstr(a.data, "os.system"));
    assert_contains(a.data, "_nccl_record = _nccl_init('/run/nccl-init/profile.env')\n");
    char want[128];
    snprintf(want, sizeof want, "def _nccl_init(path, size_max=%d, lines_max=%d, line_max=%d,",
             RECORD_SIZE_MAX, RECORD_LINES_MAX, RECORD_LINE_MAX);
    assert_contains(a.data, want);
    assert_contains(a.data, "enforce = rec.pop(b'" RECORD_ENFORCE "', None)");
    assert_contains(a.data, "nccl-init hook: record not used: ");
    /* the writer's lines: checked, and never put into the environment */
    assert_contains(a.data, "pid = rec.pop(b'" RECORD_WRITER_PID "', None)");
    assert_contains(a.data, "start = rec.pop(b'" RECORD_WRITER_START "', None)");
    assert_contains(a.data, "which is no longer running");
    /* one descriptor per process */
    assert_contains(a.data, "os.listdir('/proc/self/fd')");
    /* no chain for a file with code of its own */
    assert_null(strstr(a.data, "_nccl_chain"));
    /* the path, whatever it holds: quotes, a newline, bytes not UTF-8; the
     * chain, when the file is the hook alone, names no path: the
     * interpreter's sys.path says which at each start */
    format_python(&c, NULL, true, "/r'oot\n/\xff/run/nccl-init/profile.env", note_skip);
    assert_contains(c.data, "_nccl_init('/r\\x27oot\\x0a/\\udcff/run/nccl-init/profile.env')\n");
    assert_contains(c.data, "_nccl_chain(__file__)\n");
    assert_contains(c.data, "PathFinder.find_spec('sitecustomize', path[i + 1:])");
    assert_null(strstr(c.data, "_nccl_path"));
    assert_contains(c.data, "del _nccl_init\n");
    buf_free(&a);
    buf_free(&b);
    buf_free(&c);
    envset_free(&s);
}

/* The record: the enforce line where its key sorts, a line over the
 * readers' RECORD_LINE_MAX left out, a record over their bounds refused. */
static const struct record_writer WRITER = { 42, 4242 };

static void record_lines_and_bounds(void **state)
{
    (void)state;
    static char big[RECORD_LINE_MAX + 2];
    memset(big, 'v', sizeof big - 1);
    memcpy(big, "NCCL_LONG=", 10);
    big[RECORD_LINE_MAX] = '\0'; /* exactly RECORD_LINE_MAX bytes: kept */
    const char *kv[] = { "NCCL_ALGO=Ring", "NCCL_INIT_DIGEST=d", "NCCL_INIT_PROFILE=p", big,
                         "NCCL_PROTO=LL" };
    struct envset s;
    make_set(&s, kv, ARRAY_SIZE(kv));
    struct buf b = { 0 };
    skipped[0] = '\0';
    assert_int_equal(format_env_file(&b, &s, &WRITER, note_skip), 0);
    assert_null(strstr(b.data, RECORD_ENFORCE));
    assert_non_null(strstr(b.data, big));
    assert_string_equal(skipped, "");
    buf_free(&b);
    s.enforce = true;
    big[RECORD_LINE_MAX] = 'v'; /* one byte more: left out */
    assert_int_equal(format_env_file(&b, &s, &WRITER, note_skip), 0);
    assert_string_equal(b.data, "NCCL_ALGO=Ring\nNCCL_INIT_DIGEST=d\nNCCL_INIT_ENFORCE=1\n"
                                "NCCL_INIT_PID=42\nNCCL_INIT_PROFILE=p\nNCCL_INIT_START=4242\n"
                                "NCCL_PROTO=LL\n");
    assert_contains(skipped, "record:NCCL_LONG:its line would be longer than the 4096 bytes");
    buf_free(&b);
    envset_free(&s);

    /* nccl-init's own lines last when every key sorts before them */
    const char *one[] = { "A=1" };
    make_set(&s, one, 1);
    s.enforce = true;
    format_env_file(&b, &s, &WRITER, note_skip);
    assert_string_equal(b.data, "A=1\nNCCL_INIT_ENFORCE=1\nNCCL_INIT_PID=42\nNCCL_INIT_START=4242\n");
    buf_free(&b);
    envset_free(&s);

    /* too many lines, and too many bytes, the writer's two lines counted */
    static char keys[RECORD_LINES_MAX + 1][16];
    const char *many[RECORD_LINES_MAX + 1];
    for (size_t i = 0; i <= RECORD_LINES_MAX; i++) {
        snprintf(keys[i], sizeof keys[i], "K%04zu=1", i);
        many[i] = keys[i];
    }
    make_set(&s, many, RECORD_LINES_MAX - 2);
    assert_int_equal(format_env_file(&b, &s, &WRITER, note_skip), 0);
    buf_free(&b);
    envset_free(&s);
    make_set(&s, many, RECORD_LINES_MAX - 1);
    assert_int_equal(format_env_file(&b, &s, &WRITER, note_skip), -E2BIG);
    buf_free(&b);
    envset_free(&s);
    static char vals[17][RECORD_LINE_MAX];
    const char *wide[17];
    for (size_t i = 0; i < 17; i++) {
        memset(vals[i], 'v', RECORD_LINE_MAX - 1);
        vals[i][RECORD_LINE_MAX - 1] = '\0';
        memcpy(vals[i], "K", 1);
        vals[i][1] = (char)('a' + i);
        vals[i][2] = '=';
        wide[i] = vals[i];
    }
    /* 16 lines of 4096 bytes, the last one 38 bytes shorter for the
     * writer's lines (17 and 21 bytes): exactly 65536 */
    vals[15][RECORD_LINE_MAX - 1 - 38] = '\0';
    make_set(&s, wide, 16);
    assert_int_equal(format_env_file(&b, &s, &WRITER, note_skip), 0);
    assert_int_equal(b.len, RECORD_SIZE_MAX);
    buf_free(&b);
    envset_free(&s);
    vals[15][RECORD_LINE_MAX - 1 - 38] = 'v';
    make_set(&s, wide, 16);
    assert_int_equal(format_env_file(&b, &s, &WRITER, note_skip), -EFBIG);
    buf_free(&b);
    envset_free(&s);
}

/* The nccl-conf block names the plugin first, unless the set carries
 * NCCL_ENV_PLUGIN itself. */
static void nccl_conf_plugin_line(void **state)
{
    (void)state;
    const char *kv[] = { "NCCL_ALGO=Ring" };
    struct envset s;
    make_set(&s, kv, 1);
    struct buf b = { 0 };
    format_nccl_conf(&b, &s, "/p/lib/nccl-init/libnccl-env.so", note_skip);
    assert_string_equal(b.data, "NCCL_ENV_PLUGIN=/p/lib/nccl-init/libnccl-env.so\nNCCL_ALGO=Ring\n");
    buf_free(&b);
    envset_free(&s);
    const char *kv2[] = { "NCCL_ENV_PLUGIN=/p/lib/nccl-init/libnccl-env.so" };
    make_set(&s, kv2, 1);
    format_nccl_conf(&b, &s, "/p/lib/nccl-init/libnccl-env.so", note_skip);
    assert_string_equal(b.data, "NCCL_ENV_PLUGIN=/p/lib/nccl-init/libnccl-env.so\n");
    buf_free(&b);
    envset_free(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(blocks),
        cmocka_unit_test(blocks_crlf),
        cmocka_unit_test(block_notes),
        cmocka_unit_test(remove_is_the_inverse),
        cmocka_unit_test(remove_what_is_not_ours),
        cmocka_unit_test(remove_an_edited_made_file),
        cmocka_unit_test(block_find_and_insert),
        cmocka_unit_test(pam_env_reading),
        cmocka_unit_test(pam_env_values),
        cmocka_unit_test(nccl_conf_values),
        cmocka_unit_test(python_hook_is_static),
        cmocka_unit_test(record_lines_and_bounds),
        cmocka_unit_test(nccl_conf_plugin_line),
    };
    return cmocka_run_group_tests_name("sink_formats", tests, NULL, NULL);
}
