/* The scan of /proc that the tree walk and verify share: every process
 * once, never our own, through any buffer that holds one entry; and, for
 * the tree walk, a refusal of a /proc that is not our namespace's. */
#include "helpers.h"

#include "lib/proc_scan.h"

#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/wait.h>

#define CHILDREN 3

static pid_t kids[CHILDREN];

/* Children that wait to be killed: processes that must be listed. */
static int start_kids(void **state)
{
    (void)state;
    for (int i = 0; i < CHILDREN; i++) {
        kids[i] = fork();
        if (kids[i] < 0)
            return -1;
        if (kids[i] == 0) {
            pause();
            _exit(0);
        }
    }
    return 0;
}

static int stop_kids(void **state)
{
    (void)state;
    for (int i = 0; i < CHILDREN; i++) {
        kill(kids[i], SIGKILL);
        waitpid(kids[i], NULL, 0);
    }
    return 0;
}

/* Scans through a buffer of size bytes: each child seen exactly once, our
 * own pid never, and nothing that is no pid. */
static void scan_with(size_t size)
{
    static char buf[16384] __attribute__((aligned(8)));
    struct proc_scan s;
    assert_int_equal(proc_scan_open(&s, buf, size, false), 0);
    int seen[CHILDREN] = { 0 };
    unsigned n = 0;
    for (pid_t pid; (pid = proc_scan_next(&s));) {
        assert_true(pid > 0);
        assert_int_not_equal(pid, getpid());
        for (int i = 0; i < CHILDREN; i++)
            seen[i] += pid == kids[i];
        n++;
    }
    proc_scan_close(&s);
    assert_true(n >= CHILDREN);
    for (int i = 0; i < CHILDREN; i++)
        assert_int_equal(seen[i], 1);
}

static void lists_every_process_but_ours(void **state)
{
    (void)state;
    scan_with(16384);
}

/* A buffer that holds one entry or two: getdents64 refills it all the way
 * through /proc. */
static void refills_a_small_buffer(void **state)
{
    (void)state;
    scan_with(64);
}

static void our_own_namespace_passes(void **state)
{
    (void)state;
    char buf[1024] __attribute__((aligned(8)));
    struct proc_scan s;
    assert_int_equal(proc_scan_open(&s, buf, sizeof buf, true), 0);
    proc_scan_close(&s);
}

/* Runs f in a child with its own mount namespace; its exit status is the
 * result, 77 when the namespace cannot be made (not root). */
static int in_child(int (*f)(void))
{
    pid_t pid = fork();
    if (pid == 0) {
        if (unshare(CLONE_NEWNS) < 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
            _exit(77);
        _exit(f());
    }
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    if (WEXITSTATUS(status) == 77)
        skip();
    return WEXITSTATUS(status);
}

/* A tmpfs over /proc: no "self", and no processes either. */
static int scan_a_tmpfs(void)
{
    if (mount("tmpfs", "/proc", "tmpfs", 0, NULL) < 0)
        return 77;
    char buf[1024] __attribute__((aligned(8)));
    struct proc_scan s;
    if (proc_scan_open(&s, buf, sizeof buf, true) != -ENOENT)
        return 1;
    if (proc_scan_open(&s, buf, sizeof buf, false) != 0 || proc_scan_next(&s) != 0)
        return 2;
    proc_scan_close(&s);
    return 0;
}

static void refuses_a_proc_without_self(void **state)
{
    (void)state;
    assert_int_equal(in_child(scan_a_tmpfs), 0);
}

/* In a new PID namespace under the old /proc, "self" names the pid the old
 * namespace knows, not ours (1). */
static int scan_from_a_new_pid_namespace(void)
{
    if (unshare(CLONE_NEWPID) < 0)
        return 77;
    pid_t pid = fork();
    if (pid == 0) {
        char buf[1024] __attribute__((aligned(8)));
        struct proc_scan s;
        _exit(getpid() == 1 && proc_scan_open(&s, buf, sizeof buf, true) == -EXDEV ? 0 : 1);
    }
    int status;
    if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
        return 3;
    return WEXITSTATUS(status);
}

static void refuses_another_namespaces_proc(void **state)
{
    (void)state;
    assert_int_equal(in_child(scan_from_a_new_pid_namespace), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(lists_every_process_but_ours, start_kids, stop_kids),
        cmocka_unit_test_setup_teardown(refills_a_small_buffer, start_kids, stop_kids),
        cmocka_unit_test(our_own_namespace_passes),
        cmocka_unit_test(refuses_a_proc_without_self),
        cmocka_unit_test(refuses_another_namespaces_proc),
    };
    return cmocka_run_group_tests_name("proc_scan", tests, NULL, NULL);
}
