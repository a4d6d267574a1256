/* Text and bytes: NCCL's integers, UTF-8, escaping for logs and JSON,
 * edit distance for suggestions. */
#ifndef NCCL_INIT_TEXT_H
#define NCCL_INIT_TEXT_H

#include "lib/buf.h"

#include <stdbool.h>
#include <stddef.h>

/* What strtoll(s, NULL, 0) returns, as NCCL reads its integers: optional
 * sign, 0x hex, leading-0 octal, stops at the first bad character.
 * Returns false on overflow. */
bool parse_c_integer(const char *s, long long *out);

/* Length of the valid UTF-8 sequence at s (1..4), or 0 when invalid. */
size_t utf8_seq_len(const unsigned char *s, size_t avail);
bool utf8_valid(const char *s, size_t n);

/* Appends s[0..n) with every byte that could steer or spoof a terminal
 * written as \xNN: C0 controls, DEL, the UTF-8 forms of the C1 controls,
 * of the bidi controls, the line and paragraph separators and the other
 * invisible format characters (text.c, spoofs), and bytes that are not
 * UTF-8; with backslash, a backslash as two, so that the text reads back
 * unambiguously (a literal "\x1b" is not an ESC). For logs, which carry
 * values from the environment and from files, and for verify. */
void buf_escaped(struct buf *b, const char *s, size_t n, bool backslash);
/* The same, but only as much as fits in limit bytes of b in all, never
 * half a character or half an escape: returns how many bytes of s went
 * in. */
size_t buf_escaped_fit(struct buf *b, const char *s, size_t n, bool backslash, size_t limit);

/* Writes s as a JSON string literal (with quotes). Invalid UTF-8 bytes are
 * written as U+FFFD so that the document stays valid. */
void json_string(struct buf *b, const char *s);

/* Levenshtein distance between a and b; SIZE_MAX when either is over 64
 * bytes. */
size_t edit_distance(const char *a, const char *b);

/* A profile NAME as -p NAME and auto.rules take it: letters, digits, '-',
 * '_' and '.', not starting with '.' or '-' (so never a path, a hidden
 * file or an option). */
bool profile_name_valid(const char *s);

#endif
