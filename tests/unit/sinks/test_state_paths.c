/* What remove --root takes from a root's state.json, and how a path is
 * kept inside the root. */
#include "helpers.h"

#include "sinks/state_paths.h"

/* A state.json as sinks.c's state_text writes it, with entries between. */
#define HEAD "{\n  \"profile\": \"p\",\n  \"child_pid\": 7,\n  \"variables\": [\n  ],\n  \"sinks\": ["
#define TAIL "\n  ]\n}\n"

static void parse_written_entries(void **state)
{
    (void)state;
    struct state_paths p = { 0 };
    state_paths_parse(&p, HEAD
        "\n    {\"sink\": \"record\", \"path\": \"/run/nccl-init/profile.env\", \"outcome\": \"written\"},"
        "\n    {\"sink\": \"etc-environment\", \"path\": \"/etc/environment\", \"outcome\": \"unchanged\"},"
        "\n    {\"sink\": \"nccl-conf\", \"path\": \"/etc/nccl.conf\", \"outcome\": \"failed\", \"note\": \"x\"},"
        "\n    {\"sink\": \"python\", \"path\": \"/opt/a \\\"b\\\\c/lib/python3.12/sitecustomize.py\", \"outcome\": \"written\", \"note\": \"chains to /x\"},"
        "\n    {\"sink\": \"env-plugin\", \"path\": \"/usr/lib/x.so\", \"outcome\": \"named\"}" TAIL);
    /* the record and the plugin are not blocks; a failed write wrote nothing */
    assert_int_equal(p.n, 2);
    assert_string_equal(p.v[0].sink, "etc-environment");
    assert_string_equal(p.v[0].path, "/etc/environment");
    assert_string_equal(p.v[1].sink, "python");
    assert_string_equal(p.v[1].path, "/opt/a \"b\\c/lib/python3.12/sitecustomize.py");
    state_paths_free(&p);
}

static void parse_refuses_what_it_did_not_write(void **state)
{
    (void)state;
    struct state_paths p = { 0 };
    /* an escape nccl-init would not have to give back (a control byte, a
     * replaced byte), an unterminated string, another layout, no list */
    state_paths_parse(&p, HEAD
        "\n    {\"sink\": \"python\", \"path\": \"/a\\u000a/sitecustomize.py\", \"outcome\": \"written\"},"
        "\n    {\"sink\": \"python\", \"path\": \"/a\\ufffd/sitecustomize.py\", \"outcome\": \"written\"},"
        "\n    {\"sink\": \"python\", \"path\": \"/a\\n\", \"outcome\": \"written\"},"
        "\n    {\"path\": \"/etc/environment\", \"sink\": \"etc-environment\", \"outcome\": \"written\"},"
        "\n    {\"sink\": \"nccl-conf\", \"path\": \"/etc/nccl.conf" TAIL);
    assert_int_equal(p.n, 0);
    state_paths_parse(&p, "{\"sinks\": [{\"sink\": \"python\", \"path\": \"/x\", \"outcome\": \"written\"}]}");
    assert_int_equal(p.n, 0);
    state_paths_parse(&p, "");
    assert_int_equal(p.n, 0);
    state_paths_free(&p);
}

static void check_inside(const char *root, const char *path, const char *want)
{
    char *got = state_path_inside(root, path);
    if (!want)
        assert_null(got);
    else
        assert_string_equal(got, want);
    xfree(got);
}

static void paths_stay_inside(void **state)
{
    (void)state;
    /* as a current binary writes them, and with an older one's root prefix */
    check_inside("/r", "/etc/environment", "/etc/environment");
    check_inside("/r", "/r/etc/environment", "/etc/environment");
    check_inside("/r/", "/r/etc/environment", "/etc/environment");
    check_inside("r", "r/etc/nccl.conf", "/etc/nccl.conf");
    check_inside("/r", "/rx/etc/nccl.conf", "/rx/etc/nccl.conf");
    /* never "..", ".", an empty component or a relative path */
    check_inside("/r", "/../etc/passwd", NULL);
    check_inside("/r", "/r/../etc/passwd", NULL);
    check_inside("/r", "/a/../../etc/passwd", NULL);
    check_inside("/r", "/a/./b", NULL);
    check_inside("/r", "/a//b", NULL);
    check_inside("/r", "/a/", NULL);
    check_inside("/r", "etc/environment", NULL);
    check_inside("/r", "", NULL);
    check_inside("/", "/etc/nccl.conf", "/etc/nccl.conf");
    /* --root . (or a root that collapses to it): as a current binary
     * writes them, and relative, as an older one wrote them; still clean */
    check_inside(".", "/etc/environment", "/etc/environment");
    check_inside(".", "etc/environment", "/etc/environment");
    check_inside("a/..", "etc/nccl.conf", "/etc/nccl.conf");
    check_inside(".", "a/../../etc/passwd", NULL);
    check_inside(".", "../etc/passwd", NULL);
    check_inside(".", "./etc/passwd", NULL);
    check_inside(".", "a//b", NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(parse_written_entries),
        cmocka_unit_test(parse_refuses_what_it_did_not_write),
        cmocka_unit_test(paths_stay_inside),
    };
    return cmocka_run_group_tests_name("state_paths", tests, NULL, NULL);
}
