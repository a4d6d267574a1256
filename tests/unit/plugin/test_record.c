/* plugin/record.c: the strict parse (every bound at its edge), the index
 * and its lookup, and the trust walk and opens in a scratch directory under
 * /tmp (sticky, as the walk allows above the record's own directory). Built
 * with plugin/record.c alone, not init/'s sources (the Makefile's rule for
 * tests/unit/plugin). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/paths.h"
#include "record.h"

#define DIGEST "NCCL_INIT_DIGEST=048a7130c51bf9814e2220ed05931e9d131fb37a524432702a3bc043f4187e51\n"
#define GOOD "NCCL_BUFFSIZE=8388608\n" DIGEST "NCCL_INIT_PROFILE=lo\nNCCL_SOCKET_IFNAME=lo\n"

static struct record r;
static char buf[2 * RECORD_SIZE_MAX];

/* Parses a copy of s (the parse writes NULs into its text). */
static int parse_n(const char *s, size_t n)
{
    assert_true(n <= sizeof buf);
    memcpy(buf, s, n);
    return record_parse(&r, buf, n);
}

static int parse(const char *s)
{
    return parse_n(s, strlen(s));
}

static void refused(const char *s, const char *why)
{
    assert_int_equal(parse(s), -EINVAL);
    assert_string_equal(r.why, why);
    assert_int_equal(r.n, 0);
    assert_null(record_find(&r, "NCCL_SOCKET_IFNAME"));
    assert_null(r.digest);
    assert_false(r.enforce);
}

static void test_good(void **state)
{
    (void)state;
    assert_int_equal(parse(GOOD), 0);
    assert_int_equal(r.n, 2);
    assert_string_equal(record_find(&r, "NCCL_SOCKET_IFNAME"), "lo");
    assert_string_equal(record_find(&r, "NCCL_BUFFSIZE"), "8388608");
    assert_null(record_find(&r, "NCCL_ALGO"));
    assert_null(record_find(&r, "NCCL_INIT_DIGEST"));
    assert_null(record_find(&r, "NCCL_INIT_PROFILE"));
    assert_string_equal(r.profile, "lo");
    assert_string_equal(r.digest, "048a7130c51bf9814e2220ed05931e9d131fb37a524432702a3bc043f4187e51");
    assert_false(r.enforce);
    /* '=' in a value, an empty value, UTF-8, spaces: all the value's. */
    assert_int_equal(parse(DIGEST "B=x=y\nA=\nC=\xc3\xa9 t\n"), 0);
    assert_string_equal(record_find(&r, "B"), "x=y");
    assert_string_equal(record_find(&r, "A"), "");
    assert_string_equal(record_find(&r, "C"), "\xc3\xa9 t");
    assert_int_equal(parse("NCCL_INIT_ENFORCE=1\n" GOOD), 0);
    assert_true(r.enforce);
    assert_null(record_find(&r, "NCCL_INIT_ENFORCE"));
}

/* Any order in; sorted index out; every key found. */
static void test_sorted(void **state)
{
    (void)state;
    static char text[RECORD_SIZE_MAX];
    size_t len = 0;
    for (int i = 499; i >= 0; i--)
        len += (size_t)snprintf(text + len, sizeof text - len, "K%d=%d\n", (i * 7) % 500, i);
    len += (size_t)snprintf(text + len, sizeof text - len, DIGEST);
    assert_int_equal(parse_n(text, len), 0);
    assert_int_equal(r.n, 500);
    for (size_t i = 1; i < r.n; i++)
        assert_true(strcmp(r.v[i - 1].key, r.v[i].key) < 0);
    char key[16];
    for (int k = 0; k < 500; k++) {
        snprintf(key, sizeof key, "K%d", k);
        assert_non_null(record_find(&r, key));
    }
    assert_null(record_find(&r, "K500"));
    assert_null(record_find(&r, ""));
}

static void test_refused(void **state)
{
    (void)state;
    refused("", "empty");
    refused(GOOD "X=1", "the last line does not end with a newline");
    refused(GOOD "\n", "line 5: not KEY=VALUE (a key starts with a letter or '_')");
    refused(GOOD "#X=1\n", "line 5: not KEY=VALUE (a key starts with a letter or '_')");
    refused(GOOD "1X=1\n", "line 5: not KEY=VALUE (a key starts with a letter or '_')");
    refused(GOOD "=1\n", "line 5: not KEY=VALUE (a key starts with a letter or '_')");
    refused(GOOD "X\n", "line 5: not KEY=VALUE (a key is letters, digits and '_', then '=')");
    refused(GOOD "X Y=1\n", "line 5: not KEY=VALUE (a key is letters, digits and '_', then '=')");
    refused(GOOD "X-Y=1\n", "line 5: not KEY=VALUE (a key is letters, digits and '_', then '=')");
    refused(GOOD "X=a\rb\n", "line 5: a control byte (0x0d) in the value");
    refused(GOOD "X=a\tb\n", "line 5: a control byte (0x09) in the value");
    refused(GOOD "X=a\x7f\n", "line 5: a control byte (0x7f) in the value");
    refused(GOOD "X=a\x1b[2J\n", "line 5: a control byte (0x1b) in the value");
    refused("NCCL_BUFFSIZE=1\n" GOOD, "the key NCCL_BUFFSIZE is there more than once");
    refused(DIGEST GOOD, "the key NCCL_INIT_DIGEST is there more than once");
    refused("NCCL_BUFFSIZE=1\n", "no NCCL_INIT_DIGEST line");
    refused("NCCL_INIT_DIGEST=\n", "no NCCL_INIT_DIGEST line");
    refused("NCCL_INIT_ENFORCE=yes\n" GOOD, "NCCL_INIT_ENFORCE is not 1");
    refused("NCCL_INIT_ENFORCE=\n" GOOD, "NCCL_INIT_ENFORCE is not 1");
    /* A NUL is a control byte, in a value or where a key should start. */
    assert_int_equal(parse_n(GOOD "X=a\0b\n", sizeof GOOD + 5), -EINVAL);
    assert_string_equal(r.why, "line 5: a control byte (0x00) in the value");
    assert_int_equal(parse_n(GOOD "\0X=1\n", sizeof GOOD + 4), -EINVAL);
    assert_string_equal(r.why, "line 5: not KEY=VALUE (a key starts with a letter or '_')");
    /* A good parse after a refused one serves again. */
    assert_int_equal(parse(GOOD), 0);
    assert_int_equal(r.n, 2);
}

/* RECORD_LINE_MAX bytes in a line, RECORD_LINES_MAX lines, each at its
 * bound and one past it. */
static void test_bounds(void **state)
{
    (void)state;
    static char text[2 * RECORD_SIZE_MAX];
    size_t len = (size_t)snprintf(text, sizeof text, "%s", DIGEST);
    memcpy(text + len, "X=", 2);
    memset(text + len + 2, 'v', RECORD_LINE_MAX - 2);
    text[len + RECORD_LINE_MAX] = '\n';
    assert_int_equal(parse_n(text, len + RECORD_LINE_MAX + 1), 0);
    assert_int_equal(strlen(record_find(&r, "X")), RECORD_LINE_MAX - 2);
    memset(text + len + 2, 'v', RECORD_LINE_MAX - 1);
    text[len + RECORD_LINE_MAX + 1] = '\n';
    assert_int_equal(parse_n(text, len + RECORD_LINE_MAX + 2), -EINVAL);
    assert_string_equal(r.why, "line 2: longer than 4096 bytes");

    len = (size_t)snprintf(text, sizeof text, "%s", DIGEST);
    for (int i = 1; i < RECORD_LINES_MAX; i++)
        len += (size_t)snprintf(text + len, sizeof text - len, "K%d=1\n", i);
    assert_int_equal(parse_n(text, len), 0);
    assert_int_equal(r.n, RECORD_LINES_MAX - 1);
    len += (size_t)snprintf(text + len, sizeof text - len, "K0=1\n");
    assert_int_equal(parse_n(text, len), -EINVAL);
    assert_string_equal(r.why, "more than 512 lines");
}

/* --- the walk and the opens, under /tmp ----------------------------------- */

#include "scratch.h"

/* The writer's lines naming this process, which runs: what record_load
 * takes (record_writer_runs). */
static const char *writer_lines(void)
{
    static char lines[96];
    FILE *f = fopen("/proc/self/stat", "r");
    assert_non_null(f);
    char line[1024];
    assert_non_null(fgets(line, sizeof line, f));
    fclose(f);
    const char *p = strrchr(line, ')') + 2;
    for (int field = 3; field < 22; field++)
        p = strchr(p, ' ') + 1;
    snprintf(lines, sizeof lines, RECORD_WRITER_PID "=%d\n" RECORD_WRITER_START "=%llu\n",
             (int)getpid(), strtoull(p, NULL, 10));
    return lines;
}

static const char *live_record(void)
{
    static char live[sizeof GOOD + 96];
    snprintf(live, sizeof live, "%s%s", GOOD, writer_lines());
    return live;
}

static void put(const char *rel, const char *text, size_t len, mode_t mode)
{
    const char *p = at(rel);
    unlink(p);
    int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, text, len), (ssize_t)len);
    assert_int_equal(fchmod(fd, mode), 0);
    close(fd);
}

/* The records record_load takes: GOOD, with a writer that runs. */
static void put_live(const char *rel, mode_t mode)
{
    const char *text = live_record();
    put(rel, text, strlen(text), mode);
}

static int load(const char *rel)
{
    if (r.fd >= 0)
        record_close(&r);
    int e = record_load(&r, at(rel));
    if (e < 0) {
        assert_int_equal(r.fd, -1);
        assert_int_equal(r.n, 0);
    }
    return e;
}

static void test_load(void **state)
{
    (void)state;
    r.fd = -1;
    assert_int_equal(mkdir(at("run"), 0755), 0);
    put_live("run/profile.env", 0644);
    assert_int_equal(load("run/profile.env"), 0);
    assert_int_equal(r.n, 2); /* NCCL_INIT_PID and NCCL_INIT_START are not served */
    assert_null(record_find(&r, RECORD_WRITER_PID));
    assert_string_equal(record_find(&r, "NCCL_SOCKET_IFNAME"), "lo");
    /* The descriptor kept: O_PATH, close-on-exec, the record. */
    assert_true(r.fd >= 0);
    int fl = fcntl(r.fd, F_GETFL);
    assert_true(fl & O_PATH);
    assert_true(fcntl(r.fd, F_GETFD) & FD_CLOEXEC);
    char link[64], target[256];
    snprintf(link, sizeof link, "/proc/self/fd/%d", r.fd);
    ssize_t n = readlink(link, target, sizeof target - 1);
    assert_true(n > 0);
    target[n] = '\0';
    assert_string_equal(target, at("run/profile.env"));
    record_close(&r);
    assert_int_equal(r.fd, -1);
    assert_int_equal(r.n, 0);
    assert_null(record_find(&r, "NCCL_SOCKET_IFNAME"));

    /* Missing: the file, a directory on the way. */
    assert_int_equal(load("run/none.env"), -ENOENT);
    char no[300];
    snprintf(no, sizeof no, "no %s", at("run/none.env"));
    assert_string_equal(r.why, no);
    assert_int_equal(load("nodir/profile.env"), -ENOENT);

    /* The file: group- or other-writable, a link, a FIFO, a directory, too
     * large, unparsable. */
    put_live("run/profile.env", 0664);
    assert_int_equal(load("run/profile.env"), -EPERM);
    assert_non_null(strstr(r.why, "is writable by group or others (mode 0664)"));
    put_live("run/profile.env", 0646);
    assert_int_equal(load("run/profile.env"), -EPERM);
    put_live("run/profile.env", 0600);
    assert_int_equal(load("run/profile.env"), 0);
    assert_int_equal(symlink("profile.env", at("run/link.env")), 0);
    assert_int_equal(load("run/link.env"), -ELOOP);
    assert_non_null(strstr(r.why, "is a symbolic link"));
    assert_int_equal(mkfifo(at("run/fifo.env"), 0644), 0);
    assert_int_equal(load("run/fifo.env"), -EPERM);
    assert_non_null(strstr(r.why, "is a FIFO"));
    assert_int_equal(mkdir(at("run/dir.env"), 0755), 0);
    assert_int_equal(load("run/dir.env"), -EPERM);
    assert_non_null(strstr(r.why, "is not a regular file"));
    put("run/bad.env", "X=1\n", 4, 0644);
    assert_int_equal(load("run/bad.env"), -EINVAL);
    assert_string_equal(strstr(r.why, "/run/bad.env: "), "/run/bad.env: no NCCL_INIT_DIGEST line");

    /* RECORD_SIZE_MAX bytes: read and parsed; one more: too large, from its
     * size; and a file that grows between the check and the read. */
    static char big[RECORD_SIZE_MAX + 1];
    size_t len = (size_t)snprintf(big, sizeof big, "%s%s", DIGEST, writer_lines());
    while (len + 4001 <= RECORD_SIZE_MAX) {
        len += (size_t)snprintf(big + len, sizeof big - len, "K%05zu=", len);
        size_t v = 4000 - 7;
        memset(big + len, 'v', v);
        len += v;
        big[len++] = '\n';
    }
    size_t rest = RECORD_SIZE_MAX - len;
    assert_true(rest >= 4);
    memcpy(big + len, "Z=", 2);
    memset(big + len + 2, 'z', rest - 3);
    big[RECORD_SIZE_MAX - 1] = '\n';
    put("run/max.env", big, RECORD_SIZE_MAX, 0644);
    assert_int_equal(load("run/max.env"), 0);
    assert_non_null(record_find(&r, "Z"));
    big[RECORD_SIZE_MAX - 1] = 'z';
    big[RECORD_SIZE_MAX] = '\n';
    put("run/max.env", big, RECORD_SIZE_MAX + 1, 0644);
    assert_int_equal(load("run/max.env"), -EFBIG);
    assert_non_null(strstr(r.why, "is 65537 bytes, more than the 65536 a record may have"));
    assert_int_equal(truncate(at("run/max.env"), 100 << 20), 0);
    assert_int_equal(load("run/max.env"), -EFBIG);
}

static void test_dirs(void **state)
{
    (void)state;
    r.fd = -1;
    assert_int_equal(mkdir(at("d"), 0755), 0);
    put_live("d/profile.env", 0644);
    assert_int_equal(load("d/profile.env"), 0);
    /* The record's own directory may be writable by group or others,
     * sticky or not (an emptyDir is 0777); then the record must have one
     * link. */
    assert_int_equal(chmod(at("d"), 0777), 0);
    assert_int_equal(load("d/profile.env"), 0);
    assert_int_equal(chmod(at("d"), 01777), 0);
    assert_int_equal(load("d/profile.env"), 0);
    assert_int_equal(chmod(at("d"), 0775), 0);
    assert_int_equal(load("d/profile.env"), 0);
    assert_int_equal(link(at("d/profile.env"), at("d/other")), 0);
    assert_int_equal(load("d/profile.env"), -EPERM);
    assert_non_null(strstr(r.why, "/d/profile.env has 2 hard links, in a directory others may "
                                  "write to"));
    /* Not shared, two links are no one else's doing. */
    assert_int_equal(chmod(at("d"), 0755), 0);
    assert_int_equal(load("d/profile.env"), 0);
    assert_int_equal(unlink(at("d/other")), 0);
    /* An ancestor: sticky and writable passes (/tmp is one already),
     * writable without sticky does not. */
    assert_int_equal(chmod(top, 01777), 0);
    assert_int_equal(load("d/profile.env"), 0);
    assert_int_equal(chmod(top, 0777), 0);
    assert_int_equal(load("d/profile.env"), -EPERM);
    assert_non_null(strstr(r.why, "is writable by group or others (mode 0777)"));
    assert_int_equal(chmod(top, 0700), 0);
    /* A link on the way, or a file where a directory should be. */
    assert_int_equal(symlink("d", at("l")), 0);
    /* O_PATH|O_NOFOLLOW|O_DIRECTORY on a link: ENOTDIR. */
    assert_int_equal(load("l/profile.env"), -ENOTDIR);
    assert_non_null(strstr(r.why, "/l is a symbolic link or not a directory"));
    assert_int_equal(load("d/profile.env/x"), -ENOTDIR);
    assert_int_equal(load("d/../d/profile.env"), -EINVAL);
    assert_int_equal(record_load(&r, "relative/profile.env"), -EINVAL);
    assert_int_equal(record_load(&r, "/tmp/"), -EINVAL);
    /* Someone else's: the file, the directory (root only: chown). */
    if (geteuid() != 0)
        return;
    assert_int_equal(chown(at("d/profile.env"), 65534, 65534), 0);
    assert_int_equal(load("d/profile.env"), -EPERM);
    assert_non_null(strstr(r.why, "is owned by uid 65534, neither root nor this process's 0"));
    assert_int_equal(chown(at("d/profile.env"), 0, 0), 0);
    assert_int_equal(chown(at("d"), 65534, 65534), 0);
    assert_int_equal(load("d/profile.env"), -EPERM);
    assert_non_null(strstr(r.why, "/d is owned by uid 65534"));
    assert_int_equal(chown(at("d"), 0, 0), 0);
    assert_int_equal(load("d/profile.env"), 0);
    record_close(&r);
}

/* A fake /proc/PID/stat under the scratch directory. */
static void fake_stat(const char *pid, const char *line)
{
    char rel[64];
    snprintf(rel, sizeof rel, "proc/%s", pid);
    mkdir(at("proc"), 0755);
    mkdir(at(rel), 0755);
    snprintf(rel, sizeof rel, "proc/%s/stat", pid);
    put(rel, line, strlen(line), 0444);
}

static int writer(const char *pid, const char *start)
{
    char text[512];
    int n = snprintf(text, sizeof text, DIGEST "%s%s%s%s%s%s", pid ? RECORD_WRITER_PID "=" : "",
                     pid ? pid : "", pid ? "\n" : "", start ? RECORD_WRITER_START "=" : "",
                     start ? start : "", start ? "\n" : "");
    assert_int_equal(parse_n(text, (size_t)n), 0);
    return record_writer_runs(&r, at("proc"));
}

/* The writer's check, on fake stat lines: the start time is field 22,
 * counted after the last ')' of the command name. */
static void test_writer(void **state)
{
    (void)state;
    static const char tail[] = " 1 1 0 -1 4194560 100 0 0 0 2 3 0 0 20 0 1 0 ";
    char line[256];
    snprintf(line, sizeof line, "7 (nccl-init) S %s4242 1000 100\n", tail);
    fake_stat("7", line);
    assert_int_equal(writer("7", "4242"), 0);
    assert_int_equal(writer("7", "4243"), -ESRCH);
    assert_string_equal(r.why, "written by nccl-init pid 7, which is no longer running (a run "
                               "that has ended, or an older record put back)");
    assert_int_equal(writer("8", "4242"), -ESRCH); /* no such process */
    /* a name with ") S 1 2" in it does not shift the fields */
    snprintf(line, sizeof line, "9 (a) S 1 2 (x)) S %s4242 1000 100\n", tail);
    fake_stat("9", line);
    assert_int_equal(writer("9", "4242"), 0);
    /* a zombie has ended */
    snprintf(line, sizeof line, "10 (nccl-init) Z %s4242 0 0\n", tail);
    fake_stat("10", line);
    assert_int_equal(writer("10", "4242"), -ESRCH);
    fake_stat("11", "11 (short) S 1 2\n");
    assert_int_equal(writer("11", "4242"), -EINVAL);
    assert_non_null(strstr(r.why, "cannot check its writer, pid 11: "));
    assert_int_equal(writer(NULL, NULL), -EINVAL);
    assert_string_equal(r.why, "no NCCL_INIT_PID line: not written by this nccl-init (an older "
                               "one wrote it, or nobody's run does)");
    assert_int_equal(writer("7", NULL), -EINVAL);
    assert_int_equal(writer("07", "4242"), -EINVAL);
    assert_int_equal(writer("-7", "4242"), -EINVAL);
    assert_int_equal(writer("0", "4242"), -EINVAL);
    assert_int_equal(writer("7", "42x"), -EINVAL);
    assert_string_equal(r.why, "NCCL_INIT_PID or NCCL_INIT_START is not a number");

    /* record_load refuses a record whose writer has gone, and serves
     * nothing, with no descriptor kept */
    r.fd = -1;
    assert_int_equal(mkdir(at("run"), 0755), 0);
    snprintf(line, sizeof line, GOOD RECORD_WRITER_PID "=%d\n" RECORD_WRITER_START "=1\n",
             (int)getpid());
    put("run/profile.env", line, strlen(line), 0644);
    assert_int_equal(load("run/profile.env"), -ESRCH);
    assert_non_null(strstr(r.why, "which is no longer running"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_good),
        cmocka_unit_test(test_sorted),
        cmocka_unit_test(test_refused),
        cmocka_unit_test(test_bounds),
        cmocka_unit_test_setup_teardown(test_load, make_top, remove_top),
        cmocka_unit_test_setup_teardown(test_dirs, make_top, remove_top),
        cmocka_unit_test_setup_teardown(test_writer, make_top, remove_top),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
