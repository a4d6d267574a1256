/* The one sort: a stable merge sort (sort.h says why). */
#include "lib/sort.h"

#include "lib/mem.h"

#include <stdlib.h>
#include <string.h>

static void merge_sort(char *v, char *tmp, size_t n, size_t size,
                       int (*cmp)(const void *, const void *))
{
    if (n < 2)
        return;
    size_t h = n / 2;
    merge_sort(v, tmp, h, size, cmp);
    merge_sort(v + h * size, tmp, n - h, size, cmp);
    /* Halves already in order need no merge. The environment arrives as
     * sorted runs (the inherited variables, then the profile's), so this
     * makes its sort nearly linear. */
    if (cmp(v + (h - 1) * size, v + h * size) <= 0)
        return;
    /* The left half aside, then both merged into place from the front:
     * the output (k = i + j - h) never overtakes the right half's next
     * element, and what is left of the right half is where it belongs. */
    memcpy(tmp, v, h * size);
    size_t i = 0, j = h, k = 0;
    while (i < h && j < n) {
        /* "<= 0" takes the left one on ties: that is what makes it stable */
        if (cmp(tmp + i * size, v + j * size) <= 0)
            memcpy(v + k++ * size, tmp + i++ * size, size);
        else
            memcpy(v + k++ * size, v + j++ * size, size);
    }
    memcpy(v + k * size, tmp + i * size, (h - i) * size);
}

void sort(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
    if (n < 2)
        return;
    /* Scratch space for half the items; nothing sorts after the fork,
     * where nothing may be allocated (init/README.md). */
    char *tmp = xmalloc(n / 2 * size);
    merge_sort(base, tmp, n, size, cmp);
    xfree(tmp);
}
