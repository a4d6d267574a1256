/* The NCCL_* names a particular libnccl reads, taken from its strings.
 * A newer or older NCCL than the built-in table knows other names, and the
 * one that matters is the library the workers will actually load. */
#include "nccl/nccl_lib.h"

#include "nccl/nccl_table.h"
#include "lib/fileio.h"
#include "lib/mem.h"
#include "lib/sort.h"
#include "lib/text.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The most of a library read into memory: its .rodata, or the whole file
 * when it is not a 64-bit ELF file. */
#define RODATA_MAX (256u << 20)

static bool is_name_char(unsigned char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Reads n bytes at off, or fails: pread, so that a library another
 * process holds (verify) cannot fault us by shrinking under a mapping. */
static void *read_at(int fd, size_t off, size_t n)
{
    unsigned char *p = xmalloc(n + 1);
    if (pread(fd, p, n, (off_t)off) != (ssize_t)n) {
        xfree(p);
        return NULL;
    }
    p[n] = '\0';
    return p;
}

/* The contents of the .rodata section of the 64-bit ELF file fd (size
 * bytes), where NCCL keeps the names it passes to getenv and its version
 * string: the debug information names many more NCCL_ enums and macros
 * (NCCL_LOG_WARN, NCCL_ALL...) that are not variables. Only the headers
 * and that section are read; a libnccl is hundreds of MB, its .rodata a
 * few hundred KB. NULL when fd is not such a file. */
static unsigned char *rodata(int fd, size_t size, size_t *len)
{
    Elf64_Ehdr eh;
    Elf64_Shdr *sh = NULL;
    char *names = NULL;
    unsigned char *r = NULL;
    if (pread(fd, &eh, sizeof eh, 0) != (ssize_t)sizeof eh ||
        memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
        eh.e_shentsize != sizeof *sh || eh.e_shoff > size ||
        eh.e_shnum > (size - eh.e_shoff) / sizeof *sh || eh.e_shstrndx >= eh.e_shnum ||
        !(sh = read_at(fd, eh.e_shoff, eh.e_shnum * sizeof *sh)))
        return NULL;
    const Elf64_Shdr *n = &sh[eh.e_shstrndx];
    if (n->sh_size <= RODATA_MAX && (names = read_at(fd, n->sh_offset, n->sh_size)))
        for (unsigned i = 0; i < eh.e_shnum; i++)
            if (sh[i].sh_name < n->sh_size && strcmp(names + sh[i].sh_name, ".rodata") == 0) {
                if (sh[i].sh_size <= RODATA_MAX &&
                    (r = read_at(fd, sh[i].sh_offset, sh[i].sh_size)))
                    *len = sh[i].sh_size;
                break;
            }
    xfree(names);
    xfree(sh);
    return r;
}

/* fd's size: 0 or -errno, -EINVAL when fd is not a regular file (or an
 * empty one, which holds no name either). */
static int file_size(int fd, size_t *size)
{
    struct stat st;
    if (fstat(fd, &st) < 0)
        return -errno;
    if (!S_ISREG(st.st_mode) || st.st_size == 0)
        return -EINVAL;
    *size = (size_t)st.st_size;
    return 0;
}

int known_names_from_lib(struct known_names *k, const char *path)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -errno;
    size_t size = 0, len = 0, cap = 0;
    int rc = file_size(fd, &size);
    if (rc < 0) {
        close(fd);
        return rc;
    }
    unsigned char *m = rodata(fd, size, &len);
    if (m) {
        close(fd);
    } else { /* not such an ELF file: scanned whole */
        rc = read_fd(fd, (off_t)size, RODATA_MAX, (char **)&m, &len);
        if (rc < 0)
            return rc;
    }
    k->names = NULL;
    k->n = 0;
    size = len;
    /* An environment name sits in .rodata as a whole string of its own:
     * NUL, "NCCL_", [A-Z0-9_]+, NUL. The tail of a longer string is not one:
     * libnccl 2.28.9 has error messages ending in "...NCCL_CONFIG_INITIALIZER"
     * and "...NCCL_SIM_INFO_INITIALIZER", which are macros, not variables. */
    for (const unsigned char *p = m; (p = memmem(p, size - (size_t)(p - m), "NCCL_", 5));
         p += 5) {
        if (p > m && p[-1] != '\0')
            continue;
        const unsigned char *e = p + 5;
        while ((size_t)(e - m) < size && is_name_char(*e))
            e++;
        if ((size_t)(e - m) >= size || *e != '\0' || e - p < 7 || e[-1] == '_')
            continue;
        grow((void **)&k->names, &cap, k->n + 1, sizeof *k->names);
        k->names[k->n++] = xstrndup((const char *)p, (size_t)(e - p));
    }
    xfree(m);
    if (k->n == 0) {
        xfree(k->names);
        k->names = NULL;
        return -ENOENT;
    }
    sort(k->names, k->n, sizeof *k->names, cmp_str);
    size_t w = 1;
    for (size_t i = 1; i < k->n; i++) {
        if (strcmp(k->names[i], k->names[w - 1]) == 0)
            xfree(k->names[i]);
        else
            k->names[w++] = k->names[i];
    }
    k->n = w;
    return 0;
}

char *nccl_lib_version(int fd)
{
    size_t size = 0, len = 0;
    unsigned char *m = file_size(fd, &size) == 0 ? rodata(fd, size, &len) : NULL;
    char *v = NULL;
    /* NCCL's VERSION_STRING (src/init.cc), a whole string of its own:
     * "NCCL version 2.28.9+cuda13.0". Others begin the same way ("NCCL
     * version mismatch ...", "NCCL version %s compiled with CUDA %d.%d"),
     * so: a digit next, and no space in the rest. */
    for (const unsigned char *p = m; !v && m && (p = memmem(p, len - (size_t)(p - m),
                                                               "NCCL version ", 13)); p += 13)
        if ((p == m || p[-1] == '\0') && p[13] >= '0' && p[13] <= '9' &&
            !strchr((const char *)p + 13, ' '))
            v = xstrdup((const char *)p + 13);
    xfree(m);
    return v;
}

bool known_names_has(const struct known_names *k, const char *name)
{
    if (!k || !k->names)
        return nccl_param_find(name) != NULL;
    return bsearch(&name, k->names, k->n, sizeof *k->names, cmp_str) != NULL;
}

void known_names_free(struct known_names *k)
{
    for (size_t i = 0; i < k->n; i++)
        xfree(k->names[i]);
    xfree(k->names);
    k->names = NULL;
    k->n = 0;
}
