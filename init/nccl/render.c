#include "nccl/render.h"

#include "lib/log.h"
#include "nccl/validate.h"
#include "lib/text.h"

#include <string.h>

void render_env(struct buf *b, const struct envset *s)
{
    for (size_t i = 0; i < s->n; i++) {
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

void render_json(struct buf *b, const struct envset *s, bool enforce)
{
    buf_str(b, "{\n  \"profile\": ");
    json_string(b, s->names);
    buf_printf(b, ",\n  \"digest\": \"%s\",\n  \"enforce\": %s,\n  \"resolved\": %zu,\n"
                  "  \"overrides\": %zu,\n  \"environment\": [",
               s->digest, enforce ? "true" : "false", s->resolved, s->overrides);
    for (size_t i = 0; i < s->n; i++) {
        buf_str(b, i ? ",\n    " : "\n    ");
        json_var_with(b, &s->v[i], true);
    }
    buf_str(b, "\n  ]\n}\n");
}
