/* ELF symbol tables: whether a program or library defines a symbol. */
#ifndef NCCL_INIT_ELF_H
#define NCCL_INIT_ELF_H

#include <stdbool.h>
#include <stddef.h>

/* Whether the 64-bit ELF file fd (size bytes, open for reading; left open)
 * defines the symbol name: in its dynamic symbol table (.dynsym), or in
 * its symbol table (.symtab) where it was not stripped. An undefined
 * reference (a program that calls it from a library) is not a
 * definition. Found through the section headers; a file without them, or
 * that is not such a file, or that cannot be read, defines nothing. Reads
 * with pread only the headers and the symbol and string tables, each at
 * most ELF_TABLE_MAX bytes. */
bool elf_defines(int fd, size_t size, const char *name);

#define ELF_TABLE_MAX (64u << 20)

#endif
