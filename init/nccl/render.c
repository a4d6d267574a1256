#include "nccl/render.h"

#include "lib/log.h"
#include "nccl/releases.h"
#include "nccl/validate.h"
#include "lib/text.h"

#include <string.h>

void render_env(struct buf *b, const struct envset *s, bool all)
{
    for (size_t i = 0; i < s->n; i++) {
        if (!all && !envset_in_set(&s->v[i]))
            continue;
        /* One line a variable: a newline in a value would forge more. */
        if (strchr(s->v[i].value, '\n'))
            log_warn("render: %s has a newline in its value; shown only by --format json",
                     s->v[i].key);
        else
            buf_kv(b, s->v[i].key, s->v[i].value);
    }
}

static void json_entry_source(struct buf *b, const struct entry *e)
{
    buf_str(b, "\"file\": ");
    json_string(b, e->file);
    buf_str(b, ", \"line\": ");
    buf_uint(b, e->line);
    buf_str(b, ", \"profile\": ");
    json_string(b, e->profile);
}

static void json_var_with(struct buf *b, const struct var *v, bool nccl)
{
    static const char sources[][12] = { "environment", "profile", "nccl-init" };
    buf_str(b, "{\"key\": ");
    json_string(b, v->key);
    buf_str(b, ", \"value\": ");
    json_string(b, v->value);
    buf_str(b, ", \"source\": \"");
    buf_str(b, sources[v->source]);
    buf_str(b, "\"");
    if (v->resolved)
        buf_str(b, ", \"resolved\": true");
    if (v->source == SRC_PROFILE) {
        buf_str(b, ", ");
        json_entry_source(b, v->entry);
    }
    if (v->overridden) {
        buf_str(b, ", \"overrides\": {\"value\": ");
        json_string(b, v->entry->value);
        buf_str(b, ", ");
        json_entry_source(b, v->entry);
        buf_str(b, "}");
    }
    if (v->enforced)
        buf_str(b, ", \"enforced\": true");
    if (nccl)
        nccl_reading_json(b, v->key, v->value); /* what NCCL 2.28.9 makes of it */
    buf_str(b, "}");
}

void json_var(struct buf *b, const struct var *v)
{
    json_var_with(b, v, false);
}

void render_json(struct buf *b, const struct envset *s, bool enforce, bool all)
{
    buf_str(b, "{\n  \"profile\": ");
    json_string(b, s->names);
    buf_printf(b, ",\n  \"digest\": \"%s\",\n  \"enforce\": %s,\n  \"all\": %s,\n"
                  "  \"resolved\": %zu,\n  \"overrides\": %zu,\n  \"environment\": [",
               s->digest, enforce ? "true" : "false", all ? "true" : "false", s->resolved,
               s->overrides);
    const char *sep = "\n    ";
    for (size_t i = 0; i < s->n; i++) {
        if (!all && !envset_in_set(&s->v[i]))
            continue;
        buf_str(b, sep);
        json_var_with(b, &s->v[i], true);
        sep = ",\n    ";
    }
    buf_str(b, "\n  ]\n}\n");
}

void render_log_left_out(const struct envset *s)
{
    size_t n = 0, nccl = 0;
    struct buf names = { 0 };
    for (size_t i = 0; i < s->n; i++) {
        if (envset_in_set(&s->v[i]))
            continue;
        n++;
        if (strncmp(s->v[i].key, "NCCL_", 5) == 0 && nccl++ < 4)
            buf_printf(&names, ", %s", s->v[i].key);
    }
    if (nccl > 4)
        buf_printf(&names, " and %zu more NCCL_*", nccl - 4);
    if (n)
        log_info("render: %zu variable%s of the environment left out%s%s (the command gets them "
                 "too); --all prints the whole environment", n, n == 1 ? "" : "s",
                 names.data ? names.data : "", nccl ? " among them" : "");
    buf_free(&names);
}

void findings_collect(void *ctx, int severity, const char *file, unsigned line, const char *key,
                      const char *msg)
{
    struct findings *f = ctx;
    struct buf *b = &f->items;
    buf_str(b, f->n++ ? ",\n    {\"file\": " : "\n    {\"file\": ");
    json_string(b, file);
    buf_printf(b, ", \"line\": %u, \"key\": ", line);
    if (key)
        json_string(b, key);
    else
        buf_str(b, "null");
    buf_printf(b, ", \"severity\": \"%s\", \"message\": ",
               severity == DIAG_ERROR ? "error" : "warning");
    json_string(b, msg);
    buf_str(b, "}");
}

void render_check_json(struct buf *b, const struct findings *f, const struct diag *d,
                       const struct profile *profiles, size_t n)
{
    buf_printf(b, "{\n  \"ok\": %s,\n  \"errors\": %u,\n  \"warnings\": %u,\n  \"profiles\": [",
               d->errors ? "false" : "true", d->errors, d->warnings);
    for (size_t i = 0; i < n; i++) {
        buf_str(b, i ? ", " : "");
        json_string(b, profiles[i].path);
    }
    /* the NCCL releases whose rules applied (--nccl-version, --nccl-lib, or all) */
    buf_str(b, "],\n  \"nccl_releases\": [");
    int rel = validate_applied_release();
    for (int i = 0, k = 0; i < NCCL_RELEASES; i++)
        if (rel == RELEASE_ALL || rel == i)
            buf_printf(b, "%s\"%s\"", k++ ? ", " : "", nccl_releases[i]);
    buf_str(b, "],\n  \"findings\": [");
    if (f->n)
        buf_printf(b, "%s\n  ", f->items.data);
    buf_str(b, "]\n}\n");
}
