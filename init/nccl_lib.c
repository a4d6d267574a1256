/* The NCCL_* names a particular libnccl reads, taken from its strings.
 * A newer or older NCCL than the built-in table knows other names, and the
 * one that matters is the library the workers will actually load. */
#include "validate.h"

#include "nccl_table.h"
#include "util.h"

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
    size_t cap = 0;
    k->names = NULL;
    k->n = 0;
    /* An environment name sits in .rodata as a NUL-terminated string: "NCCL_"
     * then [A-Z0-9_]+ then NUL, not glued to a longer identifier. */
    for (const unsigned char *p = m; (p = find_bytes(p, size - (size_t)(p - m), "NCCL_", 5));
         p += 5) {
        if (p > m && is_name_char(p[-1]))
            continue;
        const unsigned char *e = p + 5;
        while ((size_t)(e - m) < size && is_name_char(*e))
            e++;
        if ((size_t)(e - m) >= size || *e != '\0' || e - p < 7 || e[-1] == '_')
            continue;
        grow((void **)&k->names, &cap, k->n + 1, sizeof *k->names);
        k->names[k->n++] = xstrndup((const char *)p, (size_t)(e - p));
    }
    munmap((void *)m, size);
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
        return nccl_param_find(name) != NULL;
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
