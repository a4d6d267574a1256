/* elf_defines: whether a program or library defines a symbol (verify's
 * test for a Python runtime inside an executable). */
#include "helpers.h"

#include "lib/elf.h"

#include <fcntl.h>
#include <sys/stat.h>

/* Runs elf_defines on the file at path; skips when it is not there. */
static bool defines(const char *path, const char *name)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return false;
    struct stat st;
    assert_int_equal(fstat(fd, &st), 0);
    bool d = elf_defines(fd, (size_t)st.st_size, name);
    close(fd);
    return d;
}

/* This test binary, unstripped: main in its .symtab; strcmp and cmocka's
 * functions are the libraries' (undefined here), no definition. */
static void own_symbols(void **state)
{
    (void)state;
    assert_true(defines("/proc/self/exe", "main"));
    assert_true(defines("/proc/self/exe", "own_symbols"));
    assert_false(defines("/proc/self/exe", "_cmocka_run_group_tests"));
    assert_false(defines("/proc/self/exe", "Py_Initialize"));
    assert_false(defines("/proc/self/exe", "mai")); /* whole names only */
}

/* A static CPython (Debian's python3.11) exports its runtime; a program
 * that is not Python does not define it. */
static void python_runtime(void **state)
{
    (void)state;
    char *python = realpath("/usr/bin/python3", NULL);
    if (!python)
        skip();
    assert_true(defines(python, "Py_Initialize"));
    free(python);
    assert_false(defines("/bin/sh", "Py_Initialize"));
}

/* Not ELF, cut short, or lying about its tables: defines nothing, reads
 * nothing outside the file. */
static void not_elf_or_broken(void **state)
{
    (void)state;
    char path[] = "/tmp/nccl-init-elf.XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, "#!/bin/sh\n", 10), 10);
    assert_false(elf_defines(fd, 10, "main"));
    /* the first 4 KiB of this binary: its headers, no section table */
    char head[4096];
    int self = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
    assert_int_equal(read(self, head, sizeof head), (ssize_t)sizeof head);
    close(self);
    assert_int_equal(ftruncate(fd, 0), 0);
    assert_int_equal(pwrite(fd, head, sizeof head, 0), (ssize_t)sizeof head);
    assert_false(elf_defines(fd, sizeof head, "main"));
    /* a size smaller than the headers say */
    assert_false(elf_defines(fd, 64, "main"));
    close(fd);
    unlink(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(own_symbols),
        cmocka_unit_test(python_runtime),
        cmocka_unit_test(not_elf_or_broken),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
