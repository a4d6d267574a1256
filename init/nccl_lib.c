/* The NCCL_* names a particular libnccl reads, taken from its strings.
 * A newer or older NCCL than the built-in table knows other names, and the
 * one that matters is the library the workers will actually load. */
#include "nccl_lib.h"

#include "nccl_table.h"
#include "mem.h"
#include "sort.h"
#include "text.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

static int is_name_char(unsigned char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The .rodata section of a 64-bit ELF file: where NCCL keeps the names it
 * passes to getenv. The debug information names many more NCCL_ enums and
 * macros (NCCL_LOG_WARN, NCCL_ALL...) that are not variables. Anything
 * that is not such an ELF file is scanned whole. */
static void rodata(const unsigned char *m, size_t size, size_t *off, size_t *len)
{
    *off = 0;
    *len = size;
    /* Headers are copied out: in a crafted file they need not be aligned. */
    Elf64_Ehdr eh;
    Elf64_Shdr names, sh;
    if (size < sizeof eh)
        return;
    memcpy(&eh, m, sizeof eh);
    if (memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
        eh.e_shentsize != sizeof sh || eh.e_shoff > size ||
        eh.e_shnum > (size - eh.e_shoff) / sizeof sh || eh.e_shstrndx >= eh.e_shnum)
        return;
    memcpy(&names, m + eh.e_shoff + (size_t)eh.e_shstrndx * sizeof sh, sizeof names);
    if (names.sh_offset > size || names.sh_size > size - names.sh_offset)
        return;
    for (unsigned i = 0; i < eh.e_shnum; i++) {
        memcpy(&sh, m + eh.e_shoff + (size_t)i * sizeof sh, sizeof sh);
        if (sh.sh_name + sizeof ".rodata" > names.sh_size ||
            memcmp(m + names.sh_offset + sh.sh_name, ".rodata", sizeof ".rodata") != 0)
            continue;
        if (sh.sh_offset <= size && sh.sh_size <= size - sh.sh_offset) {
            *off = sh.sh_offset;
            *len = sh.sh_size;
        }
        return;
    }
}

int known_names_from_lib(struct known_names *k, const char *path)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -errno;
    struct stat st;
    if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size == 0) {
        int e = errno ? errno : EINVAL;
        close(fd);
        return -e;
    }
    size_t size = (size_t)st.st_size;
    const unsigned char *m = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (m == MAP_FAILED)
        return -errno;
    size_t cap = 0, off, len;
    k->names = NULL;
    k->n = 0;
    rodata(m, size, &off, &len);
    const unsigned char *base = m;
    m += off;
    size = len;
    /* An environment name sits in .rodata as a whole string of its own:
     * NUL, "NCCL_", [A-Z0-9_]+, NUL. The tail of a longer string is not one:
     * libnccl 2.28.9 has error messages ending in "...NCCL_CONFIG_INITIALIZER"
     * and "...NCCL_SIM_INFO_INITIALIZER", which are macros, not variables. */
    for (const unsigned char *p = m; (p = find_bytes(p, size - (size_t)(p - m), "NCCL_", 5));
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
    munmap((void *)base, (size_t)st.st_size);
    if (k->n == 0) {
        free(k->names);
        k->names = NULL;
        return -ENOENT;
    }
    sort(k->names, k->n, sizeof *k->names, cmp_str);
    size_t w = 1;
    for (size_t i = 1; i < k->n; i++) {
        if (strcmp(k->names[i], k->names[w - 1]) == 0)
            free(k->names[i]);
        else
            k->names[w++] = k->names[i];
    }
    k->n = w;
    return 0;
}

bool known_names_has(const struct known_names *k, const char *name)
{
    if (!k || !k->names)
        return nccl_param_rule(name) >= 0;
    return bsearch(&name, k->names, k->n, sizeof *k->names, cmp_str) != NULL;
}

void known_names_free(struct known_names *k)
{
    for (size_t i = 0; i < k->n; i++)
        free(k->names[i]);
    free(k->names);
    k->names = NULL;
    k->n = 0;
}
