/* The one sort. */
#ifndef NCCL_INIT_SORT_H
#define NCCL_INIT_SORT_H

#include <stddef.h>

/* A stable merge sort with qsort's interface, linear on input already in
 * order. It allocates scratch space for half the items: not for use after
 * the fork.
 *
 * Stable order matters in one place: the inherited environment, where
 * copies of one key must stay in their order so that the last one wins
 * (envset.c). The other callers sort unique keys (sorted variables, PCI
 * bus ids, NCCL names, pids), where any sort would do; they use this one
 * too, so that there is one sort to read. */
void sort(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *));

#endif
