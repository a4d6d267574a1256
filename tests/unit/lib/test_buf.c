/* init/buf.c: the buffer's printf against the C library's, fixed buffers
 * that truncate, and reserved room. */
#include "helpers.h"

#include <limits.h>
#include <stdint.h>

static void printf_matches_libc(void **state)
{
    (void)state;
    struct buf b = { 0 };
    char want[256];
    buf_printf(&b, "%s|%5s|%-5s|%.3s|%.*s|%c|%%", "abc", "ab", "ab", "abcdef", 2, "xyz", 'q');
    snprintf(want, sizeof want, "%s|%5s|%-5s|%.3s|%.*s|%c|%%", "abc", "ab", "ab", "abcdef", 2,
             "xyz", 'q');
    assert_string_equal(b.data, want);
    buf_free(&b);
    buf_printf(&b, "%d %d %u %x %02x %04x %ld %lld %lld %zu %3d|%-3d|", 0, -42, 4000000000u,
               255u, 7u, 0xabu, -1L, LLONG_MIN, LLONG_MAX, (size_t)123, 5, 5);
    snprintf(want, sizeof want, "%d %d %u %x %02x %04x %ld %lld %lld %zu %3d|%-3d|", 0, -42,
             4000000000u, 255u, 7u, 0xabu, -1L, LLONG_MIN, LLONG_MAX, (size_t)123, 5, 5);
    assert_string_equal(b.data, want);
    buf_free(&b);
}

static void fixed_buffers_truncate(void **state)
{
    (void)state;
    char small[8];
    struct buf b = BUF_FIXED(small);
    buf_printf(&b, "%s-%d", "abcdef", 12345);
    assert_string_equal(small, "abcdef-");
    assert_int_equal(b.len, 7);
}

/* What state.json's text relies on after the fork, where nothing may be
 * allocated (init/README.md): once room is reserved, adding up to it
 * keeps the same block. */
static void reserved_room_takes_text_in_place(void **state)
{
    (void)state;
    struct buf b = { 0 };
    buf_str(&b, "head");
    buf_reserve(&b, 4 + 30000 + 1);
    const char *at = b.data;
    for (int i = 0; i < 3000; i++)
        buf_str(&b, "0123456789");
    assert_ptr_equal(b.data, at);
    assert_int_equal(b.len, 30004);
    assert_memory_equal(b.data, "head0123456789", 14);
    assert_int_equal(b.data[b.len], '\0');
    buf_free(&b);
    /* a fixed buffer has what it has */
    char small[8];
    struct buf f = BUF_FIXED(small);
    buf_reserve(&f, 100);
    assert_int_equal(f.cap, sizeof small);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(printf_matches_libc),
        cmocka_unit_test(fixed_buffers_truncate),
        cmocka_unit_test(reserved_room_takes_text_in_place),
    };
    return cmocka_run_group_tests_name("buf", tests, NULL, NULL);
}
