/* init/lib/mem.c: the start-up arena, and the seal after the fork. */
#include "helpers.h"

#include <sys/wait.h>
#include <unistd.h>

static void arena_blocks(void **state)
{
    (void)state;
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
    /* Too big for the arena: malloc's, and a block of the arena that
     * grows past it moves there with its bytes. */
    char *big = xmalloc(64 * 1024);
    memset(big, 'x', 64 * 1024);
    xfree(big);
    char *d = xstrdup("kept");
    char *d2 = xrealloc(d, 40000);
    assert_string_equal(d2, "kept");
    xfree(d2);
    xfree(b2);
    xfree(c);
    xfree(NULL);
}

/* After mem_seal() an allocation aborts, with one line saying why; a free
 * is still fine. In a child: the seal is for the rest of a process. */
static void sealed_allocation_aborts(void **state)
{
    (void)state;
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    char *kept = xstrdup("kept");
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        dup2(fds[1], STDERR_FILENO);
        mem_seal();
        xfree(kept);
        (void)xmalloc(8);
        _exit(0); /* not reached */
    }
    close(fds[1]);
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFSIGNALED(status));
    assert_int_equal(WTERMSIG(status), SIGABRT);
    char line[128] = { 0 };
    ssize_t n = read(fds[0], line, sizeof line - 1);
    assert_true(n > 0);
    assert_non_null(strstr(line, "nccl-init: error: allocation after the fork\n"));
    close(fds[0]);
    xfree(kept);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(arena_blocks),
        cmocka_unit_test(sealed_allocation_aborts),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
