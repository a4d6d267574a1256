/* verify's report as text and JSON: the env plugin's source, its notes and
 * the "env_plugin" field, from rows made by hand (verify.c fills them from
 * /proc; tests/verify.bats covers that). */
#include "helpers.h"

#include "inspect/verify.h"

static struct verify_key keys[] = { { "NCCL_ALGO", "Ring" }, { "NCCL_PROTO", "LL" } };

static struct verify_value val(enum verify_source from, const char *have, bool same)
{
    return (struct verify_value){ from, same, (char *)have, false, NULL };
}

/* A report of one checked row with a libnccl, its values v. */
static struct verify_report report(struct verify_row *w, struct verify_value *v)
{
    static struct verify_lib lib = { "00:10 42", "/lib/libnccl.so.2", "2.28.9+cuda13.0", 0 };
    *w = (struct verify_row){ .kind = ROW_CHECKED, .pid = 7, .comm = "python3", .python = true,
                              .nccl = true, .lib = 0, .values = v };
    w->ok = true;
    for (size_t k = 0; k < 2; k++)
        w->ok = w->ok && v[k].from && v[k].same;
    return (struct verify_report){ .digest = "abc", .profile = "p", .keys = keys, .nkeys = 2,
                                   .rows = w, .nrows = 1, .checked = 1, .good = w->ok,
                                   .libs = &lib, .nlibs = 1 };
}

static void plugin_cells_and_notes(void **state)
{
    (void)state;
    struct verify_row w;
    struct verify_value v[2] = { val(FROM_PLUGIN, "Tree", false), val(FROM_CONF, "Simple", false) };
    v[1].over_plugin = true;
    struct verify_report r = report(&w, v);
    w.env_plugin = (struct verify_env_plugin){ true, "0123456789abcdef", false,
                                               val(FROM_NONE, NULL, false) };
    struct buf b = { 0 };
    verify_print_text(&b, &r);
    assert_non_null(strstr(b.data, "\n7       python3         CONFLICT   CONFLICT   2.28.9"));
    assert_non_null(strstr(b.data, "pid 7: NCCL_ALGO=Tree (by the env plugin, from an older "
                                   "record, digest 0123456789ab), the profile says Ring\n"));
    assert_non_null(strstr(b.data, "pid 7: NCCL_PROTO=Simple (from /etc/nccl.conf, which NCCL "
                                   "applies before its env plugin answers), the profile says LL\n"));
    /* the plugin holds the record: no NCCL_ENV_PLUGIN note */
    assert_null(strstr(b.data, "NCCL_ENV_PLUGIN"));
    buf_free(&b);
    v[0] = val(FROM_PLUGIN, "Ring", true);
    v[1] = val(FROM_PLUGIN, "LL", true);
    r = report(&w, v); /* the row anew: the plugin's record enforced */
    w.env_plugin = (struct verify_env_plugin){ true, "0123456789abcdef", true,
                                               val(FROM_NONE, NULL, false) };
    verify_print_text(&b, &r);
    assert_non_null(strstr(b.data, "\n7       python3         plugin     plugin     2.28.9"));
    assert_non_null(strstr(b.data, "1 process checked, 1 with every value"));
    buf_free(&b);
    verify_print_json(&b, &r);
    assert_non_null(strstr(b.data, "\"env_plugin\": {\"record\": \"0123456789abcdef\", "
                                   "\"enforce\": true, \"setting\": null}"));
    assert_non_null(strstr(b.data, "\"NCCL_ALGO\": {\"via\": \"plugin\", \"value\": \"Ring\", "
                                   "\"nccl\": {\"asked\": false}}"));
    buf_free(&b);
}

static void env_plugin_setting(void **state)
{
    (void)state;
    struct verify_row w;
    struct verify_value v[2] = { val(FROM_ENV, "Ring", true), val(FROM_ENV, "LL", true) };
    struct verify_report r = report(&w, v);
    w.env_plugin = (struct verify_env_plugin){ true, NULL, false, val(FROM_ENV, "NONE", false) };
    struct buf b = { 0 };
    verify_print_text(&b, &r);
    assert_non_null(strstr(b.data, "pid 7: NCCL_ENV_PLUGIN=NONE (in its environment): NCCL reads "
                                   "its environment directly, not through nccl-init's env plugin\n"));
    buf_free(&b);
    /* another plugin, from the user's conf file, a control byte escaped */
    w.conf_file = "/home/u/.nccl.conf";
    w.env_plugin.setting = val(FROM_USER_CONF, "libnccl-env-\x1b[2J.so", false);
    verify_print_text(&b, &r);
    assert_non_null(strstr(b.data, "pid 7: NCCL_ENV_PLUGIN=libnccl-env-\\x1b[2J.so (from "
                                   "/home/u/.nccl.conf): NCCL loads that env plugin, and no "
                                   "nccl-init env plugin holds the record\n"));
    buf_free(&b);
    verify_print_json(&b, &r);
    assert_non_null(strstr(b.data, "\"env_plugin\": {\"record\": null, \"enforce\": false, "
                                   "\"setting\": {\"value\": \"libnccl-env-\\u001b[2J.so\", "
                                   "\"from\": \"nccl.conf\", \"file\": \"/home/u/.nccl.conf\"}}"));
    buf_free(&b);
    /* no libnccl mapped and no plugin record: null, no note */
    w.nccl = false;
    w.lib = -1;
    w.env_plugin = (struct verify_env_plugin){ 0 };
    verify_print_json(&b, &r);
    assert_non_null(strstr(b.data, "\"env_plugin\": null"));
    buf_free(&b);
    verify_print_text(&b, &r);
    assert_null(strstr(b.data, "NCCL_ENV_PLUGIN"));
    buf_free(&b);
}

/* No process checked is no pass: its own status, a line that says why,
 * and "ok": false with the reason in JSON. */
static void nothing_checked(void **state)
{
    (void)state;
    struct verify_row gone = { .kind = ROW_EXITED, .pid = 9, .lib = -1 };
    struct verify_report r = { .digest = "abc", .profile = "p", .keys = keys, .nkeys = 2,
                               .rows = &gone, .nrows = 1, .nothing = "why \x1b" };
    assert_int_equal(verify_status(&r), VERIFY_NOTHING);
    struct buf b = { 0 };
    verify_print_text(&b, &r);
    assert_non_null(strstr(b.data, "pid 9: has exited\n"
                                   "0 processes checked (profile p, digest abc)\n"
                                   "no process checked: why \\x1b\n"));
    buf_free(&b);
    verify_print_json(&b, &r);
    assert_non_null(strstr(b.data, "\"checked\": 0,"));
    assert_non_null(strstr(b.data, "\"nothing_checked\": \"why \\u001b\",\n  \"ok\": false\n}"));
    buf_free(&b);
    /* a kernel thread named with --pid: its own note */
    gone.kind = ROW_KTHREAD;
    verify_print_text(&b, &r);
    assert_non_null(strstr(b.data, "pid 9: a kernel thread: it runs no program of its own, "
                                   "nothing to check\n"));
    buf_free(&b);
}

/* A process named with --pid that was not checked fails the run, beside
 * one that passes: the user asked about it. --json names each such
 * process, and those outside the tree set aside, with why. */
static void named_not_checked(void **state)
{
    (void)state;
    struct verify_value v[2] = { val(FROM_ENV, "Ring", true), val(FROM_ENV, "LL", true) };
    struct verify_row rows[5];
    struct verify_report r = report(&rows[4], v);
    rows[0] = (struct verify_row){ .kind = ROW_NO_SUCH, .pid = 99, .lib = -1 };
    rows[1] = (struct verify_row){ .kind = ROW_EXITED, .pid = 8, .lib = -1 };
    rows[2] = (struct verify_row){ .kind = ROW_EXITED, .pid = 9, .lib = -1, .reason = "is exiting" };
    rows[3] = (struct verify_row){ .kind = ROW_KTHREAD, .pid = 2, .lib = -1 };
    r.rows = rows;
    r.nrows = 5;
    assert_int_equal(verify_named_unchecked(&r), 4);
    assert_int_equal(verify_status(&r), VERIFY_FAILED);
    struct buf b = { 0 };
    verify_print_text(&b, &r);
    assert_non_null(strstr(b.data, "1 process checked, 1 with every value, 4 named with --pid "
                                   "not checked (profile p"));
    buf_free(&b);
    verify_print_json(&b, &r);
    assert_non_null(strstr(b.data, "\"not_checked\": [{\"pid\": 99, \"why\": \"no such process\"}, "
                                   "{\"pid\": 8, \"why\": \"has exited\"}, {\"pid\": 9, \"why\": "
                                   "\"is exiting\"}, {\"pid\": 2, \"why\": \"a kernel thread\"}],\n"
                                   "  \"nothing_checked\": null,\n  \"ok\": false\n}"));
    buf_free(&b);
    /* one outside the tree, set aside: named in not_checked, no failure */
    rows[3] = (struct verify_row){ .kind = ROW_OUTSIDE, .pid = 5, .lib = -1 };
    r.rows = &rows[3];
    r.nrows = 2;
    r.outside = 1;
    assert_int_equal(verify_status(&r), VERIFY_OK);
    verify_print_json(&b, &r);
    assert_non_null(strstr(b.data, "\"not_checked\": [{\"pid\": 5, \"why\": \"outside nccl-init's "
                                   "tree, its memory map cannot be read\"}],\n  \"nothing_checked\": "
                                   "null,\n  \"ok\": true\n}"));
    buf_free(&b);
    /* every one checked: an empty list */
    r.rows = &rows[4];
    r.nrows = 1;
    verify_print_json(&b, &r);
    assert_non_null(strstr(b.data, "\"not_checked\": [],\n  \"nothing_checked\": null,\n"
                                   "  \"ok\": true\n}"));
    buf_free(&b);
}

/* A process not verified is never a pass, whatever the other counts say. */
static void status_counts(void **state)
{
    (void)state;
    struct verify_row w;
    struct verify_value v[2] = { val(FROM_ENV, "Ring", true), val(FROM_ENV, "LL", true) };
    struct verify_report r = report(&w, v);
    assert_int_equal(verify_status(&r), VERIFY_OK);
    struct buf b = { 0 };
    verify_print_json(&b, &r);
    assert_non_null(strstr(b.data, "\"nothing_checked\": null,\n  \"ok\": true\n}"));
    buf_free(&b);
    r.unverified = 1;
    assert_int_equal(verify_status(&r), VERIFY_FAILED);
    verify_print_json(&b, &r);
    assert_non_null(strstr(b.data, "\"ok\": false"));
    buf_free(&b);
    r.unverified = 0;
    r.good = 0;
    assert_int_equal(verify_status(&r), VERIFY_FAILED);
}

/* A library the process's mount namespace replaced by a FIFO (or a link). */
static void lib_not_regular(void **state)
{
    (void)state;
    struct verify_row w;
    struct verify_value v[2] = { val(FROM_ENV, "Ring", true), val(FROM_ENV, "LL", true) };
    struct verify_report r = report(&w, v);
    struct verify_lib lib = { "00:10 42", "/lib/libnccl.so.2", NULL, EINVAL };
    r.libs = &lib;
    struct buf b = { 0 };
    verify_print_text(&b, &r);
    assert_non_null(strstr(b.data, "libnccl of unknown version in 1 process (/lib/libnccl.so.2: "
                                   "not a regular file): check and run apply every known "
                                   "release's rules (2.28.9, 2.29.7, 2.30.7)\n"));
    buf_free(&b);
}

/* A row whose witness says what NCCL read: the cells, the notes, the
 * lines per copy, and the JSON. */
static void nccl_read_cells(void **state)
{
    (void)state;
    static const char text[] =
        "nccl-init-witness 1 pid=7 start=1\n"
        "record path=/run/nccl-init/profile.env digest=0123456789abcdef profile=p enforced=0 values=2\n"
        "nccl copy=1 version=2.28.9 suffix= interface=v1 lib=/lib/libnccl.so.2\n"
        "nccl copy=2 version=2.27.3 suffix= interface=v2 lib=/w/libnccl.so.2\n"
        "ask copy=1 name=NCCL_ALGO from=record value=Ring\n"
        "ask copy=2 name=NCCL_ALGO from=own value=Tr\\x1bee record=Ring\n"
        "ask copy=1 name=NCCL_DEBUG from=none\n";
    struct witness wit;
    witness_parse(&wit, xstrdup(text), sizeof text - 1, 7, 1);
    assert_int_equal(wit.state, WITNESS_TRUSTED);
    struct verify_row w;
    struct verify_value v[2] = { val(FROM_NCCL, "Tr\x1b" "ee", false), val(FROM_ENV, "LL", true) };
    v[0].nccl = &wit.asks[1];
    struct verify_report r = report(&w, v);
    w.witness = &wit;
    struct buf b = { 0 };
    verify_print_text(&b, &r);
    assert_non_null(strstr(b.data, "\n7       python3         CONFLICT   env        2.28.9"));
    assert_non_null(strstr(b.data, "pid 7 (python3): NCCL 2.27.3 read NCCL_ALGO=Tr\\x1bee from its "
                                   "own environment, not the profile's Ring: the process set it "
                                   "itself; start nccl-init with --enforce to make NCCL read the "
                                   "profile's\n"));
    assert_non_null(strstr(b.data, "pid 7 (python3): NCCL 2.28.9 read NCCL_ALGO=Ring from the "
                                   "record; not asked yet: NCCL_PROTO (NCCL asks the tuning keys "
                                   "at its first communicator) [copy 1: v1, /lib/libnccl.so.2]\n"));
    assert_non_null(strstr(b.data, "pid 7 (python3): NCCL 2.27.3 read NCCL_ALGO="));
    buf_free(&b);
    verify_print_json(&b, &r);
    assert_non_null(strstr(b.data, "\"nccl\": {\"asked\": true, \"copy\": 2, \"value\": "
                                   "\"Tr\\u001bee\", \"from\": \"own\"}"));
    assert_non_null(strstr(b.data, "\"witness\": {\"trusted\": true, \"why\": null, \"pid\": 7, "
                                   "\"record\": {\"path\": \"/run/nccl-init/profile.env\", "
                                   "\"digest\": \"0123456789abcdef\", \"profile\": \"p\", "
                                   "\"enforced\": false}, \"no_record\": null, \"copies\": [{\"copy\": 1, "));
    /* the reads of the profile's keys only: NCCL_DEBUG is none of them */
    assert_non_null(strstr(b.data, "\"reads\": [{\"copy\": 1, \"name\": \"NCCL_ALGO\", \"value\": "
                                   "\"Ring\", \"from\": \"record\", \"own\": null, \"record\": null, "
                                   "\"cut\": false}, {\"copy\": 2, "));
    assert_null(strstr(b.data, "NCCL_DEBUG"));
    buf_free(&b);
    r.all = true;
    verify_print_json(&b, &r);
    assert_non_null(strstr(b.data, "\"name\": \"NCCL_DEBUG\", \"value\": null, \"from\": \"none\""));
    buf_free(&b);
    witness_free(&wit);
    witness_parse(&wit, xstrdup(text), sizeof text - 1, 8, 1);
    v[0] = val(FROM_ENV, "Ring", true);
    r = report(&w, v);
    w.witness = &wit;
    verify_print_text(&b, &r);
    assert_non_null(strstr(b.data, "pid 7 (python3): witness not trusted: made by pid 7 (inherited)\n"));
    buf_free(&b);
    verify_print_json(&b, &r);
    assert_non_null(strstr(b.data, "\"witness\": {\"trusted\": false, \"why\": \"made by pid 7 "
                                   "(inherited)\", \"pid\": 7, \"record\": null, \"no_record\": null, "
                                   "\"copies\": [], \"reads\": []}"));
    buf_free(&b);
    witness_free(&wit);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(plugin_cells_and_notes),
        cmocka_unit_test(env_plugin_setting),
        cmocka_unit_test(nothing_checked),
        cmocka_unit_test(status_counts),
        cmocka_unit_test(named_not_checked),
        cmocka_unit_test(lib_not_regular),
        cmocka_unit_test(nccl_read_cells),
    };
    return cmocka_run_group_tests_name("verify_print", tests, NULL, NULL);
}
