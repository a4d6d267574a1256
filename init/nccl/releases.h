/* NCCL's releases: which names each reads and which value rules changed
 * between them. The data are generated (nccl_releases.c, by
 * scripts/nccl-releases.py from ../shared/reference/); the rules they name
 * are nccl_table.c's, and a key no entry names reads as in 2.28.9. */
#ifndef NCCL_INIT_RELEASES_H
#define NCCL_INIT_RELEASES_H

#include "nccl/nccl_table.h"

#include <stdbool.h>
#include <stddef.h>

#define NCCL_RELEASES 3
/* Every known release at once: check's default, with no --nccl-version or
 * --nccl-lib to name one. */
#define RELEASE_ALL (-1)

/* Oldest first; index 0 is nccl_table.c's own release, 2.28.9. */
extern const char *const nccl_releases[NCCL_RELEASES];

struct release_name {
    const char *name;
    unsigned char releases; /* bit i: nccl_releases[i] reads it */
};
extern const struct release_name release_names[];
extern const size_t release_names_count;

/* From nccl_releases[from] on, key reads by rule (until a later entry). */
struct release_rule {
    const char *key;
    unsigned char from;
    unsigned short rule;    /* enum rule_id */
    const char *changed_in; /* the NCCL release that changed it ("2.29.2") */
    const char *source;     /* "TAG:file:line" */
};
extern const struct release_rule release_rules[];
extern const size_t release_rules_count;

/* How a release reads nccl.conf (src/misc/param.cc setEnvFile). Every
 * release keeps at most NCCL_CONF_MAX bytes of a key and of a value
 * (lib/paths.h). */
struct release_conf {
    unsigned short line_max; /* fgets: a line this long or longer is read in pieces; 0: getline */
    bool strips_cr;          /* a trailing '\r' is dropped (CRLF files work) */
    bool home_env;           /* ~/.nccl.conf is found through $HOME, not the passwd entry */
};
extern const struct release_conf release_confs[NCCL_RELEASES];

/* The releases that read name, as release_name's bits; 0: none does. */
unsigned release_mask(const char *name);

/* The entry in effect for key in release rel, or NULL: 2.28.9's rule. */
const struct release_rule *release_change(const char *key, int rel);

/* The rule by which release rel reads key: enum rule_id, or -1 (no rule:
 * a name the release reads but nccl_table.c has no rule for, or one it
 * does not read). */
int release_rule(const char *key, int rel);

/* The release of a version ("2.30.7", or a library's "2.30.7+cuda13.0"):
 * its index; a version newer than the newest gets the newest's, *newer set.
 * -1: older than the oldest, or between two known releases (whose rules
 * are neither's); -2: not X.Y.Z. */
int release_parse(const char *version, bool *newer);

/* "2.28.9, 2.29.7, 2.30.7": the releases of mask, into buf (size n). */
void release_list(char *buf, size_t n, unsigned mask);

#endif
