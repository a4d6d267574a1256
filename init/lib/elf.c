#include "lib/elf.h"

#include "lib/mem.h"

#include <elf.h>
#include <string.h>
#include <unistd.h>

/* n bytes at off of fd, or NULL: the whole of them or nothing. */
static void *read_at(int fd, size_t off, size_t n)
{
    void *p = xmalloc(n ? n : 1);
    if (pread(fd, p, n, (off_t)off) != (ssize_t)n) {
        xfree(p);
        return NULL;
    }
    return p;
}

/* Whether the table sh (within a file of size bytes) is there to read. */
static bool section_ok(const Elf64_Shdr *sh, size_t size)
{
    return sh->sh_size <= ELF_TABLE_MAX && sh->sh_offset <= size &&
           sh->sh_size <= size - sh->sh_offset;
}

/* Whether the symbol table sh, with its string table strs, defines name. */
static bool table_defines(int fd, size_t size, const Elf64_Shdr *sh, const Elf64_Shdr *strs,
                          const char *name)
{
    if (sh->sh_entsize != sizeof(Elf64_Sym) || !section_ok(sh, size) || !section_ok(strs, size))
        return false;
    Elf64_Sym *sym = read_at(fd, sh->sh_offset, sh->sh_size);
    char *str = sym ? read_at(fd, strs->sh_offset, strs->sh_size) : NULL;
    size_t n = sh->sh_size / sizeof *sym, nl = strlen(name) + 1;
    bool found = false;
    for (size_t i = 0; str && i < n && !found; i++)
        found = sym[i].st_shndx != SHN_UNDEF && sym[i].st_name < strs->sh_size &&
                strs->sh_size - sym[i].st_name >= nl &&
                memcmp(str + sym[i].st_name, name, nl) == 0;
    xfree(str);
    xfree(sym);
    return found;
}

bool elf_defines(int fd, size_t size, const char *name)
{
    Elf64_Ehdr eh;
    if (pread(fd, &eh, sizeof eh, 0) != (ssize_t)sizeof eh ||
        memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
        eh.e_shentsize != sizeof(Elf64_Shdr) || eh.e_shoff > size ||
        eh.e_shnum > (size - eh.e_shoff) / sizeof(Elf64_Shdr))
        return false;
    Elf64_Shdr *sh = eh.e_shnum ? read_at(fd, eh.e_shoff, eh.e_shnum * sizeof *sh) : NULL;
    bool found = false;
    for (unsigned i = 0; sh && i < eh.e_shnum && !found; i++)
        if ((sh[i].sh_type == SHT_DYNSYM || sh[i].sh_type == SHT_SYMTAB) &&
            sh[i].sh_link < eh.e_shnum)
            found = table_defines(fd, size, &sh[i], &sh[sh[i].sh_link], name);
    xfree(sh);
    return found;
}
