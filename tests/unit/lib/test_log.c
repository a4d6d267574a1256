/* init/lib/log.c: one line per message, escaped, and a long one cut
 * between characters with a marker that says how much is missing. */
#include "helpers.h"

#include "lib/log.h"

/* The line log_warn writes for msg (a "%s" argument). */
static char *line_of(const char *msg)
{
    capture_begin();
    log_warn("%s", msg);
    return capture_end();
}

static void short_lines_whole(void **state)
{
    (void)state;
    char *l = line_of("a\\x1b \x1b \xe2\x80\xae");
    assert_string_equal(l, "nccl-init: warning: a\\\\x1b \\x1b \\xe2\\x80\\xae\n");
    free(l);
}

/* The bytes of a line that stand for the message: after the prefix,
 * before the marker. */
static size_t cut_at(const char *l, size_t *missing)
{
    const char *m = strstr(l, " [+");
    assert_non_null(m);
    assert_int_equal(sscanf(m, " [+%zu bytes cut]\n", missing), 1);
    assert_string_equal(strchr(m, ']'), "]\n");
    return (size_t)(m - l) - strlen("nccl-init: warning: ");
}

static void long_lines_cut_between_characters(void **state)
{
    (void)state;
    static char msg[6000];
    size_t missing;
    /* 2-byte letters: the cut never halves one */
    for (size_t i = 0; i + 2 < 4000; i += 2)
        memcpy(msg + i, "\xc3\xa9", 2);
    msg[3998] = '\0';
    char *l = line_of(msg);
    assert_true(strlen(l) <= 1024);
    size_t kept = cut_at(l, &missing);
    assert_int_equal(kept % 2, 0);
    assert_int_equal(kept + missing, 3998);
    assert_true(utf8_valid(l, strlen(l)));
    free(l);
    /* escapes: whole "\x1b" only, and the count is of the message's bytes */
    memset(msg, 0x1b, 300);
    msg[300] = '\0';
    l = line_of(msg);
    kept = cut_at(l, &missing);
    assert_int_equal(kept % 4, 0);
    assert_int_equal(kept / 4 + missing, 300);
    free(l);
    /* longer than the formatting buffer: the count is still exact */
    memset(msg, 'x', sizeof msg - 1);
    msg[sizeof msg - 1] = '\0';
    l = line_of(msg);
    kept = cut_at(l, &missing);
    assert_int_equal(kept + missing, sizeof msg - 1);
    free(l);
    /* exactly as long as a line takes: no marker */
    size_t room = 1024 - 2 - strlen("nccl-init: warning: ");
    memset(msg, 'y', room);
    msg[room] = '\0';
    l = line_of(msg);
    assert_null(strstr(l, " [+"));
    assert_int_equal(strlen(l), 1023);
    free(l);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(short_lines_whole),
        cmocka_unit_test(long_lines_cut_between_characters),
    };
    return cmocka_run_group_tests_name("log", tests, NULL, NULL);
}
