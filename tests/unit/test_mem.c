/* init/mem.c: the start-up region, and what mem_close() gives back. */
#include "helpers.h"

#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

/* Whether the page holding p is resident. */
static bool resident(const void *p)
{
    unsigned char v = 0;
    void *page = (void *)((uintptr_t)p & ~(uintptr_t)4095);
    assert_int_equal(mincore(page, 4096, &v), 0);
    return v & 1;
}

/* One test, in order: mem_close() is once per process. */
static void region_then_malloc(void **state)
{
    (void)state;
    /* A block that lives on, as the options' arrays do: its page stays. */
    char *kept = xstrdup("kept");
    char *a = xmalloc(100);
    memset(a, 'a', 100);
    /* The last block grows where it is. */
    char *b = xmalloc(16);
    memcpy(b, "0123456789abcde", 16);
    char *b2 = xrealloc(b, 3000);
    assert_ptr_equal(b2, b);
    assert_memory_equal(b2, "0123456789abcde", 16);
    memset(b2, 'b', 3000);
    /* One that is not the last moves, its bytes with it. */
    char *a2 = xrealloc(a, 200);
    assert_ptr_not_equal(a2, a);
    for (int i = 0; i < 100; i++)
        assert_int_equal(a2[i], 'a');
    /* Freeing the last block lets the next take its place. */
    xfree(a2);
    char *c = xmalloc(200);
    assert_ptr_equal(c, a2);
    /* Too big for the region: malloc's, freed by free() underneath. */
    char *big = xmalloc(64 * 1024);
    memset(big, 'x', 64 * 1024);
    xfree(big);
    /* Pages of the region, far above the kept block, in use now. */
    char *far = xmalloc(6000);
    memset(far, 'f', 6000);
    assert_true(resident(far + 5999));
    xfree(b2);
    xfree(c);
    xfree(far);
    xfree(NULL);
    mem_close();
    /* Given back: not resident until touched again. */
    assert_false(resident(far + 5999));
    /* The block still in use kept its page and its bytes. */
    assert_string_equal(kept, "kept");
    /* After the close everything is malloc's, and realloc of a block
     * from the region moves it there. */
    char *d = xmalloc(16);
    char *k2 = xrealloc(kept, 4096);
    assert_string_equal(k2, "kept");
    assert_ptr_not_equal(k2, kept);
    xfree(d);
    xfree(k2);
    mem_close(); /* once only; a second call does nothing */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(region_then_malloc),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
