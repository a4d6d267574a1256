#include "sinks/state_paths.h"

#include "lib/fileio.h"
#include "lib/mem.h"

#include <limits.h>
#include <stdbool.h>
#include <string.h>

/* A JSON string at s (after its opening quote) as state_text writes one
 * (json_string, lib/text.c), into a new string; *end after its closing
 * quote. NULL for any escape but \" and \\: a path with those is one
 * nccl-init cannot give back exactly, or not one of its own. */
static char *json_str(const char *s, const char **end)
{
    size_t n = 0;
    for (const char *p = s; *p != '"'; p++, n++) {
        if (!*p || (unsigned char)*p < 0x20)
            return NULL;
        if (*p == '\\' && p[1] != '"' && p[1] != '\\')
            return NULL;
        p += *p == '\\';
    }
    char *out = xmalloc(n + 1), *w = out;
    const char *p = s;
    for (; *p != '"'; p++)
        *w++ = *p == '\\' ? *++p : *p;
    *w = '\0';
    *end = p + 1;
    return out;
}

/* The string after `"key": "` at s, or NULL. */
static char *field(const char *s, const char *key, const char **end)
{
    size_t n = strlen(key);
    if (s[0] != '"' || strncmp(s + 1, key, n) != 0 || strncmp(s + 1 + n, "\": \"", 4) != 0)
        return NULL;
    return json_str(s + n + 5, end);
}

static bool wanted(const char *sink, const char *outcome)
{
    bool s = strcmp(sink, "python") == 0 || strcmp(sink, "nccl-conf") == 0 ||
             strcmp(sink, "etc-environment") == 0;
    return s && (strcmp(outcome, "written") == 0 || strcmp(outcome, "unchanged") == 0);
}

void state_paths_parse(struct state_paths *out, const char *text)
{
    const char *p = strstr(text, "\n  \"sinks\": [");
    while (p && (p = strstr(p, "\n    {"))) {
        p += 6;
        const char *e = p;
        char *sink = field(p, "sink", &e), *path = NULL, *outcome = NULL;
        if (sink && strncmp(e, ", ", 2) == 0)
            path = field(e + 2, "path", &e);
        if (path && strncmp(e, ", ", 2) == 0)
            outcome = field(e + 2, "outcome", &e);
        if (outcome && wanted(sink, outcome)) {
            grow((void **)&out->v, &out->cap, out->n + 1, sizeof out->v[0]);
            struct state_path *x = &out->v[out->n++];
            strcpy(x->sink, sink); /* one of wanted()'s, shorter than sink[] */
            x->path = path;
            path = NULL;
        }
        xfree(sink);
        xfree(path);
        xfree(outcome);
    }
}

void state_paths_free(struct state_paths *p)
{
    for (size_t i = 0; i < p->n; i++)
        xfree(p->v[i].path);
    xfree(p->v);
    memset(p, 0, sizeof *p);
}

/* Absolute, and no component empty, "." or "..". */
static bool clean(const char *p)
{
    if (p[0] != '/' || strlen(p) >= PATH_MAX)
        return false;
    for (const char *c = p + 1;; ) {
        size_t n = strcspn(c, "/");
        if (n == 0 || (n == 1 && c[0] == '.') || (n == 2 && c[0] == '.' && c[1] == '.'))
            return false;
        if (!c[n])
            return true;
        c += n + 1;
    }
}

char *state_path_inside(const char *root, const char *path)
{
    char *r = path_join(root, "."); /* the root as path_join wrote it */
    size_t n = strlen(r);
    /* A root that collapses to "." (--root .): an older nccl-init wrote
     * its paths as found there, relative ("etc/environment"). */
    char *abs = NULL;
    if (strcmp(r, ".") == 0 && path[0] != '/') {
        abs = xmalloc(strlen(path) + 2); /* "/" in front, nothing collapsed */
        abs[0] = '/';
        strcpy(abs + 1, path);
        path = abs;
    }
    else if (!(n == 1 && r[0] == '/') && strncmp(path, r, n) == 0 && path[n] == '/')
        path += n;
    xfree(r);
    char *inside = clean(path) ? xstrdup(path) : NULL;
    xfree(abs);
    return inside;
}
