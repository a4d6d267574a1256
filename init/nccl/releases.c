/* Lookups over nccl_releases.c's generated data. */
#include "nccl/releases.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp_name(const void *key, const void *elem)
{
    return strcmp(key, ((const struct release_name *)elem)->name);
}

unsigned release_mask(const char *name)
{
    const struct release_name *n =
        bsearch(name, release_names, release_names_count, sizeof release_names[0], cmp_name);
    return n ? n->releases : 0;
}

const struct release_rule *release_change(const char *key, int rel)
{
    const struct release_rule *found = NULL;
    for (size_t i = 0; i < release_rules_count; i++)
        if (strcmp(release_rules[i].key, key) == 0 && release_rules[i].from <= rel)
            found = &release_rules[i]; /* in release order: the last one holds */
    return found;
}

int release_rule(const char *key, int rel)
{
    if (!(release_mask(key) & (1u << rel)))
        return -1;
    const struct release_rule *c = release_change(key, rel);
    if (c)
        return c->rule;
    const struct nccl_param *p = nccl_param_find(key);
    return p ? (int)p->rule : -1;
}

/* "X.Y.Z" with nothing after it but a "+build" suffix; 0 on success. */
static int parse_triple(const char *s, long v[3])
{
    for (int i = 0; i < 3; i++) {
        char *end;
        if (*s < '0' || *s > '9')
            return -1;
        v[i] = strtol(s, &end, 10);
        if (i < 2 && *end != '.')
            return -1;
        s = end + (i < 2);
        if (i == 2 && *end && *end != '+')
            return -1;
    }
    return 0;
}

static int compare(const long a[3], const long b[3])
{
    for (int i = 0; i < 3; i++)
        if (a[i] != b[i])
            return a[i] < b[i] ? -1 : 1;
    return 0;
}

int release_parse(const char *version, bool *newer)
{
    long v[3], k[3];
    *newer = false;
    if (!version || parse_triple(version, v) < 0)
        return -2;
    for (int i = 0; i < NCCL_RELEASES; i++) {
        parse_triple(nccl_releases[i], k);
        if (compare(v, k) == 0)
            return i;
    }
    if (compare(v, k) > 0) { /* k: the newest */
        *newer = true;
        return NCCL_RELEASES - 1;
    }
    return -1;
}

void release_list(char *buf, size_t n, unsigned mask)
{
    size_t len = 0;
    buf[0] = '\0';
    for (int i = 0; i < NCCL_RELEASES; i++)
        if (mask & (1u << i) && len < n)
            len += (size_t)snprintf(buf + len, n - len, "%s%s", len ? ", " : "", nccl_releases[i]);
}
