/* Bounded text in a caller's buffer, for the lines the plugin writes: its
 * log line (plugin.c) and the witness's lines (witness.c). Nothing
 * allocates, and nothing writes past cap: what does not fit is dropped,
 * and the text stays NUL-terminated. */
#ifndef NCCL_INIT_PLUGIN_TEXT_H
#define NCCL_INIT_PLUGIN_TEXT_H

#include <stdbool.h>
#include <stddef.h>

struct text {
    char *s;
    size_t cap, len;
};

void text_add(struct text *t, const char *s, size_t n);
void text_adds(struct text *t, const char *s);
__attribute__((format(printf, 2, 3))) void text_addf(struct text *t, const char *fmt, ...);

/* At most max bytes of s, with its control bytes, backslashes and every
 * byte above ASCII (C1 controls come as UTF-8) as \xHH, and spaces too
 * when space is set (the witness splits its fields at spaces): anything
 * that came from a file or from the process, so that no value can put a
 * newline or an escape sequence into a line. */
void text_escaped(struct text *t, const char *s, size_t max, bool space);

#endif
