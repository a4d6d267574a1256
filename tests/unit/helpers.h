/* Shared by the unit tests: cmocka, stderr capture, profiles from strings. */
#ifndef NCCL_INIT_TEST_HELPERS_H
#define NCCL_INIT_TEST_HELPERS_H

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "nccl/profile.h"
#include "lib/buf.h"
#include "lib/fileio.h"
#include "lib/mem.h"
#include "lib/sort.h"
#include "lib/text.h"

static FILE *capture_file;
static int capture_saved = -1;

/* Diagnostics go to fd 2 with write(2); capture them in a temp file. */
static inline void capture_begin(void)
{
    capture_file = tmpfile();
    assert_non_null(capture_file);
    capture_saved = dup(2);
    dup2(fileno(capture_file), 2);
}

/* Returns what was written to stderr since capture_begin (caller frees). */
static inline char *capture_end(void)
{
    dup2(capture_saved, 2);
    close(capture_saved);
    fseek(capture_file, 0, SEEK_END);
    long n = ftell(capture_file);
    rewind(capture_file);
    char *s = malloc((size_t)n + 1);
    size_t got = fread(s, 1, (size_t)n, capture_file);
    s[got] = '\0';
    fclose(capture_file);
    return s;
}

/* Parses len bytes of text as profile "t" from file "t.env". */
static inline unsigned parse_len(struct profile *p, const char *text, size_t len,
                                 struct diag *d, entry_fn *check, void *ctx)
{
    memset(p, 0, sizeof *p);
    p->name = xstrdup("t");
    p->path = xstrdup("t.env");
    p->text = xmalloc(len + 1);
    memcpy(p->text, text, len);
    p->text[len] = '\0';
    return profile_parse(p, p->text, len, d, check, ctx);
}

static inline unsigned parse(struct profile *p, const char *text, struct diag *d)
{
    return parse_len(p, text, strlen(text), d, NULL, NULL);
}

/* Asserts that haystack contains needle, showing both when it does not. */
#define assert_contains(haystack, needle)                                                    \
    do {                                                                                     \
        if (!strstr((haystack), (needle)))                                                   \
            fail_msg("expected to find \"%s\" in:\n%s", (needle), (haystack));               \
    } while (0)

#endif
