/* Bounded text: see text.h. */
#include "text.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void text_add(struct text *t, const char *s, size_t n)
{
    if (t->len + 1 >= t->cap)
        return;
    size_t room = t->cap - 1 - t->len;
    if (n > room)
        n = room;
    memcpy(t->s + t->len, s, n);
    t->len += n;
    t->s[t->len] = '\0';
}

void text_adds(struct text *t, const char *s)
{
    text_add(t, s, strlen(s));
}

void text_addf(struct text *t, const char *fmt, ...)
{
    if (t->len + 1 >= t->cap)
        return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(t->s + t->len, t->cap - t->len, fmt, ap);
    va_end(ap);
    if (n > 0)
        t->len += (size_t)n < t->cap - t->len ? (size_t)n : t->cap - 1 - t->len;
}

void text_escaped(struct text *t, const char *s, size_t max, bool space)
{
    for (size_t i = 0; i < max && s[i]; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c < 0x20 || c >= 0x7f || c == '\\' || (space && c == ' '))
            text_addf(t, "\\x%02x", c);
        else
            text_add(t, &s[i], 1);
    }
}
