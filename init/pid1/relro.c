/* RELRO for a static PIE on musl.
 *
 * The build links with -z relro -z now, which lays out a PT_GNU_RELRO
 * segment: the GOT and the relocated constant data (.data.rel.ro, the
 * option table's and the rule tables' pointers) that must be writable only
 * while relocations are applied. Sealing it is the loader's job. In a
 * static PIE the "loader" is musl's rcrt1.o: ldso/dlstart.c applies the
 * relative relocations and crt/rcrt1.c's __dls2 goes straight on to
 * __libc_start_main, so nothing seals it, and /proc/PID/maps showed the
 * range rw-p. glibc's static-pie start-up does seal it
 * (_dl_relocate_static_pie, then _dl_protect_relro). So the init does it
 * itself, first thing, before it reads any input: afterwards a stray write
 * into a function pointer there faults instead of redirecting a root
 * process.
 *
 * Under the sanitizer build (glibc, dynamic) ld.so has sealed it already;
 * doing it again is harmless. */
#include "pid1/relro.h"

#include <elf.h>
#include <errno.h>
#include <link.h>
#include <stdint.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <unistd.h>

/* The linker's name for the ELF header, which the first PT_LOAD maps at the
 * binary's load address: the base the segments' addresses are relative to
 * (a static PIE has no PT_PHDR to find it by). */
extern const ElfW(Ehdr) __ehdr_start;

int relro_seal(void)
{
    /* The program headers as the kernel passed them (auxv). */
    const ElfW(Phdr) *ph = (const ElfW(Phdr) *)getauxval(AT_PHDR);
    size_t n = getauxval(AT_PHNUM);
    uintptr_t base = (uintptr_t)&__ehdr_start, page = (uintptr_t)getauxval(AT_PAGESZ);
    for (size_t i = 0; ph && page && i < n; i++) {
        if (ph[i].p_type != PT_GNU_RELRO)
            continue;
        /* Whole pages only, as ld.so does: the start rounds down (what
         * precedes it on that page is not writable data), the end rounds
         * down (a partial last page is shared with .data). */
        uintptr_t start = (base + ph[i].p_vaddr) & ~(page - 1);
        uintptr_t end = (base + ph[i].p_vaddr + ph[i].p_memsz) & ~(page - 1);
        if (end > start && mprotect((void *)start, end - start, PROT_READ) < 0)
            return -errno;
    }
    return 0;
}
