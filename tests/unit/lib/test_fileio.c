/* init/fileio.c: path_join's lexical rules, whole-file reads. */
#include "helpers.h"

#include <errno.h>
#include <sys/stat.h>

static void path_join_is_lexical(void **state)
{
    (void)state;
    char *p = path_join("/root/", "/etc/x");
    assert_string_equal(p, "/root/etc/x");
    xfree(p);
    p = path_join("/", "etc");
    assert_string_equal(p, "/etc");
    xfree(p);
    const char *cases[][3] = {
        { "/usr/bin", "..", "/usr" },
        { "/opt/p/bin/", "../lib/./python3.11", "/opt/p/lib/python3.11" },
        { "/", "..", "/" },
        { "/a", "../../b", "/b" },
        { "rel/dir", "../x", "rel/x" },
        { "..", "../x", "../../x" },
        { "a", "..", "." },
        { "/a//b", "c//d/", "/a/b/c/d" },
    };
    for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
        p = path_join(cases[i][0], cases[i][1]);
        if (strcmp(p, cases[i][2]) != 0)
            fail_msg("path_join(%s, %s) = %s, want %s", cases[i][0], cases[i][1], p, cases[i][2]);
        xfree(p);
    }
}

/* Whole files: a regular file up to its stated size, a /proc file that
 * states 0 bytes, and what is refused without being opened. */
static void read_file_kinds(void **state)
{
    (void)state;
    char dir[] = "/tmp/test_fileio.XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[64], fifo[64];
    snprintf(path, sizeof path, "%s/f", dir);
    snprintf(fifo, sizeof fifo, "%s/p", dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs("A=1\nB=2\n", f);
    fclose(f);
    char *data;
    size_t len;
    assert_int_equal(read_file(path, 1 << 20, &data, &len), 0);
    assert_int_equal(len, 8);
    assert_string_equal(data, "A=1\nB=2\n");
    xfree(data);
    assert_int_equal(read_file(path, 4, &data, &len), -EFBIG);
    /* /proc states a size of 0 and has more: read to the end */
    assert_int_equal(read_file("/proc/self/status", 1 << 20, &data, &len), 0);
    assert_true(len > 0 && strstr(data, "Pid:") != NULL);
    xfree(data);
    assert_int_equal(mkfifo(fifo, 0600), 0);
    assert_int_equal(read_file(fifo, 1 << 20, &data, &len), -EINVAL);
    assert_int_equal(read_file(dir, 1 << 20, &data, &len), -EISDIR);
    assert_int_equal(read_file("/nonexistent/x", 1 << 20, &data, &len), -ENOENT);
    unlink(fifo);
    unlink(path);
    rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(path_join_is_lexical),
        cmocka_unit_test(read_file_kinds),
    };
    return cmocka_run_group_tests_name("fileio", tests, NULL, NULL);
}
