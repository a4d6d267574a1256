/* init/buf.c: the buffer's printf against the C library's, fixed buffers
 * that truncate, and soft buffers that fail without dying. */
#include "helpers.h"

#include <limits.h>
#include <stdint.h>

/* A huge allocation is a NULL here, not ASan's abort: what the soft buffer
 * must survive. */
const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
    return "allocator_may_return_null=1";
}

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

/* What state.json's text is built in after the fork (supervise.c): it
 * grows like any buffer, and when memory cannot be had it keeps what it
 * has, takes nothing more, and says so in failed; the init lives on. */
static void soft_buffers_fail_without_dying(void **state)
{
    (void)state;
    struct buf b = { .soft = true };
    for (int i = 0; i < 3000; i++)
        buf_str(&b, "0123456789"); /* past the start-up region's blocks: malloc's */
    assert_int_equal(b.len, 30000);
    assert_false(b.failed);
    buf_add(&b, "x", SIZE_MAX / 4); /* no memory for that: refused before any copy */
    assert_true(b.failed);
    assert_int_equal(b.len, 30000);
    assert_memory_equal(b.data + 29990, "0123456789", 10);
    buf_str(&b, "more");
    buf_printf(&b, "%d", 42);
    assert_int_equal(b.len, 30000);
    buf_free(&b);
    /* a size no doubling reaches: refused too, not a loop */
    struct buf c = { .soft = true };
    buf_add(&c, "x", SIZE_MAX - 8);
    assert_true(c.failed);
    assert_int_equal(c.len, 0);
    buf_free(&c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(printf_matches_libc),
        cmocka_unit_test(fixed_buffers_truncate),
        cmocka_unit_test(soft_buffers_fail_without_dying),
    };
    return cmocka_run_group_tests_name("buf", tests, NULL, NULL);
}
