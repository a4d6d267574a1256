/* The witness parser on texts made by hand: what the plugin writes, and
 * what another program could put there instead (tests/verify.bats reads
 * real memfds through /proc). */
#include "helpers.h"

#include "inspect/witness_read.h"
#include "lib/procfs.h"
#include "lib/witness.h"

#include <sys/mman.h>

#define HEAD "nccl-init-witness 1 pid=42 start=1000\n"
#define NCCL1 "nccl copy=1 version=2.28.9 suffix= interface=v1 lib=/lib/libnccl.so.2\n"

/* Parses text as pid 42's, started at 1000. */
static void wparse(struct witness *w, const char *text)
{
    witness_parse(w, xstrdup(text), strlen(text), 42, 1000);
}

/* Parses text, expects it not trusted with why starting so, frees. */
static void refused(const char *text, const char *why)
{
    struct witness w;
    wparse(&w, text);
    assert_int_equal(w.state, WITNESS_UNTRUSTED);
    assert_non_null(w.why);
    if (strncmp(w.why, why, strlen(why)) != 0)
        fail_msg("why: \"%s\", wanted \"%s...\" for:\n%s", w.why, why, text);
    assert_int_equal(w.nasks, 0);
    assert_int_equal(w.ncopies, 0);
    witness_free(&w);
}

static void the_contracts_example(void **state)
{
    (void)state;
    struct witness w;
    wparse(&w, HEAD
          "record path=/run/nccl-init/profile.env digest=0d32 profile=pcie-8gpu enforced=0 values=6\n"
          NCCL1
          "ask copy=1 name=NCCL_SOCKET_IFNAME from=record value=lo\n"
          "ask copy=1 name=NCCL_COMM_ID from=none\n"
          "ask copy=1 name=NCCL_PROTO from=own value=Simple record=LL\n"
          "ask copy=1 name=NCCL_ALGO from=enforced value=Ring own=Tree\n"
          "ask copy=0 name=NCCL_X from=own value=a\\x20b\\x5cc\n"
          "ask copy=1 name=NCCL_SOCKET_IFNAME from=own value=eth9 record=lo\n"
          "finalize copy=1\n"
          "ask copy=1 name=NCCL_BIG from=record value=xx cut=1\n"
          "ask copy=1 name=NCCL_BEING from=rec");
    assert_int_equal(w.state, WITNESS_TRUSTED);
    assert_null(w.why);
    assert_int_equal(w.pid, 42);
    assert_true(w.record);
    assert_string_equal(w.rec_digest, "0d32");
    assert_string_equal(w.rec_profile, "pcie-8gpu");
    assert_false(w.rec_enforced);
    assert_int_equal(w.rec_values, 6);
    assert_int_equal(w.ncopies, 1);
    assert_string_equal(w.copies[0].version, "2.28.9");
    assert_string_equal(w.copies[0].suffix, "");
    assert_string_equal(w.copies[0].lib, "/lib/libnccl.so.2");
    assert_true(w.copies[0].finalized);
    /* the last line is being written: left out */
    assert_int_equal(w.nasks, 7);
    const struct witness_ask *a = witness_last_ask(&w, 1, "NCCL_SOCKET_IFNAME");
    assert_non_null(a);
    assert_int_equal(a->from, WITNESS_OWN);
    assert_string_equal(a->value, "eth9");
    assert_string_equal(a->record, "lo");
    a = witness_last_ask(&w, 1, "NCCL_COMM_ID");
    assert_int_equal(a->from, WITNESS_NONE);
    assert_null(a->value);
    a = witness_last_ask(&w, 1, "NCCL_ALGO");
    assert_string_equal(a->own, "Tree");
    a = witness_last_ask(&w, 0, "NCCL_X");
    assert_string_equal(a->value, "a b\\c");
    assert_true(witness_last_ask(&w, 1, "NCCL_BIG")->cut);
    assert_null(witness_last_ask(&w, 0, "NCCL_PROTO"));
    assert_null(witness_last_ask(&w, 1, "NCCL_BEING"));
    witness_free(&w);
}

static void forks_no_record_two_copies(void **state)
{
    (void)state;
    struct witness w;
    wparse(&w, HEAD "fork parent=7\n"
          "no-record level=warn why=no\\x20record\n" NCCL1
          "nccl copy=2 version=2.27.3 suffix=a interface=v2 lib=?\n"
          "ask copy=2 name=NCCL_ALGO from=record value=Ring\n"
          "finalize copy=1\n" NCCL1);
    assert_int_equal(w.state, WITNESS_TRUSTED);
    assert_int_equal(w.parent, 7);
    assert_false(w.record);
    assert_string_equal(w.no_record, "no record");
    assert_int_equal(w.ncopies, 2);
    /* initialised again after its finalize */
    assert_false(witness_copy(&w, 1)->finalized);
    assert_string_equal(witness_copy(&w, 2)->interface, "v2");
    assert_null(witness_copy(&w, 3));
    assert_null(witness_last_ask(&w, 1, "NCCL_ALGO"));
    assert_non_null(witness_last_ask(&w, 2, "NCCL_ALGO"));
    witness_free(&w);
}

static void not_trusted(void **state)
{
    (void)state;
    refused("", "empty");
    refused("nccl-init-witness 1 pid=42 start=10", "empty");
    refused("hello\n", "unknown format");
    refused("nccl-init-witness 2 pid=42 start=1000\n", "unknown format 2");
    refused("nccl-init-witness x pid=42 start=1000\n", "unknown format x");
    refused("\x1b[2J\n", "unknown format");
    refused("nccl-init-witness 1 start=1000 pid=42\n", "malformed at line 1");
    refused("nccl-init-witness 1 pid=42\n", "malformed at line 1");
    refused("nccl-init-witness 1 pid=042 start=1000\n", "malformed at line 1");
    refused("nccl-init-witness 1 pid=43 start=1000\n", "made by pid 43 (inherited)");
    refused("nccl-init-witness 1 pid=42 start=999\n", "made by pid 42 (inherited)");
    refused(HEAD NCCL1 "truncated\n", "truncated");
    refused(HEAD "truncated\n" NCCL1, "truncated");
    refused(HEAD "nccl-init-witness 1 pid=42 start=1000\n", "malformed at line 2: an unknown kind");
    refused(HEAD "ask copy=0 name=A from=none\n\n", "malformed at line 3: an empty field");
    refused(HEAD "ask copy=0  name=A from=none\n", "malformed at line 2: an empty field");
    refused(HEAD "ask copy=0 name=A from=none \n", "malformed at line 2: an empty field");
    refused(HEAD "ask copy=0 name=A from=record value=a\tb\n", "malformed at line 2: a byte");
    refused(HEAD "ask copy=0 name=A from=record value=\xc3\xa9\n", "malformed at line 2: a byte");
    refused(HEAD "ask copy=1 name=A from=none\n", "malformed at line 2: a copy");
    refused(HEAD "ask copy=0 name=A from=maybe\n", "malformed at line 2: an unknown from");
    refused(HEAD "ask copy=0 name=A from=none value=x\n", "malformed at line 2: from=none");
    refused(HEAD "ask copy=0 name=A from=record\n", "malformed at line 2: from=record");
    refused(HEAD "ask copy=0 name=A from=enforced value=x\n", "malformed at line 2: from=enforced");
    refused(HEAD "ask copy=0 name=A from=own value=x own=y\n", "malformed at line 2: from=own");
    refused(HEAD "ask copy=0 name=A from=record value=x cut=2\n", "malformed at line 2: cut");
    refused(HEAD "ask copy=0 name=A from=record value=\\x0\n", "malformed at line 2: a bad escape");
    refused(HEAD "ask copy=0 name=A from=record value=\\x00\n", "malformed at line 2: a bad escape");
    refused(HEAD "ask copy=0 name=A from=record value=\\\n", "malformed at line 2: a bad escape");
    refused(HEAD "ask copy=0 name=A name=B from=none\n", "malformed at line 2: a field twice");
    refused(HEAD "ask copy=0 name=A from=none who=me\n", "malformed at line 2: an unknown field");
    refused(HEAD "ask copy=0 from=none\n", "malformed at line 2: a field missing");
    refused(HEAD "finalize copy=1\n", "malformed at line 2: a copy");
    refused(HEAD "nccl copy=0 version=1 suffix= interface=v1 lib=x\n", "malformed at line 2: a bad copy");
    refused(HEAD "nccl copy=1 version=1 suffix= interface=v3 lib=x\n", "malformed at line 2: an interface");
    refused(HEAD "record path=p digest=d profile=x enforced=2 values=1\n", "malformed at line 2: enforced");
    refused(HEAD "record path=p digest=d profile=x enforced=1 values=-1\n", "malformed at line 2: a bad count");
    refused(HEAD "no-record level=debug why=x\n", "malformed at line 2: a level");
    refused(HEAD "fork parent=x\n", "malformed at line 2: a bad parent");
    refused(HEAD "a b c d e f g h i\n", "malformed at line 2: too many fields");
    static const char nul[] = HEAD "ask copy=0 name=A\0 from=none\n";
    struct witness w;
    witness_parse(&w, xstrndup(nul, sizeof nul - 1), sizeof nul - 1, 42, 1000);
    assert_string_equal(w.why, "malformed at line 2: a NUL byte");
    witness_free(&w);
}

/* Lines at the bounds: WITNESS_LINE_MAX with its newline passes, one byte
 * more does not; a whole witness of the reader's maximum parses. */
static void bounds(void **state)
{
    (void)state;
    struct buf b = { 0 };
    buf_str(&b, HEAD "ask copy=0 name=A from=record value=");
    size_t at = b.len;
    while (b.len - at + strlen("ask copy=0 name=A from=record value=") + 1 < WITNESS_LINE_MAX)
        buf_str(&b, "v");
    buf_str(&b, "\n");
    struct witness w;
    wparse(&w, b.data);
    assert_int_equal(w.state, WITNESS_TRUSTED);
    witness_free(&w);
    b.len--;
    buf_str(&b, "v\n");
    wparse(&w, b.data);
    assert_string_equal(w.why, "malformed at line 2: a line over 8192 bytes");
    witness_free(&w);
    buf_free(&b);
    buf_str(&b, HEAD);
    while (b.len + 30 < WITNESS_SIZE_MAX + WITNESS_LINE_MAX)
        buf_str(&b, "ask copy=0 name=A from=none\n");
    wparse(&w, b.data);
    assert_int_equal(w.state, WITNESS_TRUSTED);
    assert_true(w.nasks > 9000);
    witness_free(&w);
    buf_free(&b);
}

/* No witness descriptors in a directory without any: absent; a /proc
 * directory that is not there: -ENOENT. */
static void read_absent(void **state)
{
    (void)state;
    struct witness w;
    assert_int_equal(witness_read(&w, "/proc/self", 0), 0);
    assert_int_equal(w.state, WITNESS_ABSENT);
    assert_null(w.others);
    witness_free(&w);
    assert_int_equal(witness_read(&w, "/nonexistent/proc/1", 0), -ENOENT);
}

/* A memfd of this process's own: trusted; a second, without close-on-exec,
 * is named in others; a third of another pid too. */
static void read_own_memfd(void **state)
{
    (void)state;
    struct proc_stat st;
    assert_true(proc_stat_read(0, &st));
    struct buf b = { 0 };
    buf_printf(&b, "nccl-init-witness 1 pid=%d start=%llu\n" NCCL1
               "ask copy=1 name=NCCL_ALGO from=record value=Ring\n",
               (int)getpid(), st.start);
    int inherited = memfd_create(WITNESS_NAME, 0);
    int own = memfd_create(WITNESS_NAME, MFD_CLOEXEC);
    int other = memfd_create(WITNESS_NAME, MFD_CLOEXEC);
    assert_true(own >= 0 && inherited >= 0 && other >= 0);
    assert_int_equal(write(own, b.data, b.len), (ssize_t)b.len);
    assert_int_equal(write(inherited, b.data, b.len), (ssize_t)b.len);
    assert_int_equal(write(other, "nccl-init-witness 1 pid=1 start=5\n", 34), 34);
    struct witness w;
    assert_int_equal(witness_read(&w, "/proc/self", st.start), 0);
    assert_int_equal(w.state, WITNESS_TRUSTED);
    assert_string_equal(witness_last_ask(&w, 1, "NCCL_ALGO")->value, "Ring");
    assert_non_null(w.others);
    assert_non_null(strstr(w.others, ": inherited across an exec (no close-on-exec)"));
    assert_non_null(strstr(w.others, ": made by pid 1 (inherited)"));
    witness_free(&w);
    close(own);
    assert_int_equal(witness_read(&w, "/proc/self", st.start), 0);
    assert_int_equal(w.state, WITNESS_UNTRUSTED);
    witness_free(&w);
    close(inherited);
    close(other);
    buf_free(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(the_contracts_example),
        cmocka_unit_test(forks_no_record_two_copies),
        cmocka_unit_test(not_trusted),
        cmocka_unit_test(bounds),
        cmocka_unit_test(read_absent),
        cmocka_unit_test(read_own_memfd),
    };
    return cmocka_run_group_tests_name("witness_read", tests, NULL, NULL);
}
