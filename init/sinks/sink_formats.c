#include "sinks/sink_formats.h"

#include "lib/paths.h"

#include "lib/log.h"
#include "lib/text.h"
#include "nccl/validate.h"

#include <errno.h>
#include <string.h>

/* pam_env reads a line of at most 8190 bytes and silently drops the rest of
 * the file after a longer one. */
#define PAM_ENV_MAX_LINE 8190

#define STR_(x) #x
#define STR(x) STR_(x)

bool sink_carries(const struct var *v)
{
    return v->resolved || v->source == SRC_INIT;
}

static bool has_control(const char *s)
{
    for (; *s; s++)
        if ((unsigned char)*s < 0x20 || *s == 0x7f)
            return true;
    return false;
}

/* pam_env (Linux-PAM 1.5) has no escaping: '#' starts a comment anywhere,
 * even inside quotes; a value that starts with a quote has its quotes
 * stripped; a trailing backslash joins the next line; an empty value
 * unsets. Only values that none of these rules touch are written. */
static const char *pam_env_problem(const struct var *v)
{
    const char *s = v->value;
    size_t n = strlen(s);
    if (n == 0)
        return "an empty value means unset to pam_env";
    if (has_control(s))
        return "it contains a control character";
    if (strchr(s, '#'))
        return "pam_env treats '#' as a comment, even in quotes";
    if (s[0] == '"' || s[0] == '\'')
        return "pam_env strips quotes";
    if (s[n - 1] == '\\')
        return "pam_env joins a line ending in '\\' with the next";
    if (s[0] == ' ' || s[0] == '\t' || s[n - 1] == ' ' || s[n - 1] == '\t')
        return "pam_env does not keep surrounding blanks";
    if (strlen(v->key) + 1 + n > PAM_ENV_MAX_LINE)
        return "the line would exceed pam_env's 8190 bytes";
    return NULL;
}

void format_etc_environment(struct buf *b, const struct envset *s, skip_fn *skip)
{
    for (size_t i = 0; i < s->n; i++) {
        const struct var *v = &s->v[i];
        if (!sink_carries(v))
            continue;
        const char *why = pam_env_problem(v);
        if (why)
            skip("etc-environment", v->key, why);
        else
            buf_kv(b, v->key, v->value);
    }
}

/* KEY=VALUE lines as NCCL's conf parser and docker's env-file reader take
 * them: every byte after '=' is the value (a CR too), '\n' ends it. NCCL's
 * reader (src/misc/param.cc setEnvFile) copies at most NCCL_CONF_MAX bytes of the
 * key and of the value into fixed buffers: a longer one would reach NCCL
 * cut short, so it is left out. */
static void format_lines(struct buf *b, const struct envset *s, const char *sink, bool nccl_only,
                         skip_fn *skip)
{
    for (size_t i = 0; i < s->n; i++) {
        const struct var *v = &s->v[i];
        if (!sink_carries(v) ||
            (nccl_only && (strncmp(v->key, "NCCL_", 5) != 0 ||
                           strcmp(v->key, "NCCL_CONF_FILE") == 0)))
            continue;
        if (has_control(v->value))
            skip(sink, v->key, "it contains a control character");
        else if (nccl_only && nccl_conf_cuts(v->key, v->value))
            skip(sink, v->key, "NCCL's nccl.conf reader keeps only " STR(NCCL_CONF_MAX) " bytes of a key or value");
        else
            buf_kv(b, v->key, v->value);
    }
}

/* Does the block carry NCCL_ENV_PLUGIN of the set itself? Then the set's
 * value is the block's, and no second line names ours. */
static bool carries_env_plugin(const struct envset *s)
{
    for (size_t i = 0; i < s->n; i++)
        if (strcmp(s->v[i].key, "NCCL_ENV_PLUGIN") == 0)
            return sink_carries(&s->v[i]);
    return false;
}

void format_nccl_conf(struct buf *b, const struct envset *s, const char *plugin, skip_fn *skip)
{
    /* First, though NCCL applies the whole file before it looks for its
     * plugin (initEnv, then ncclEnvPluginLoad): a reader sees it at once. */
    if (plugin && !carries_env_plugin(s)) {
        if (has_control(plugin))
            skip("nccl-conf", "NCCL_ENV_PLUGIN", "its path contains a control character");
        else if (nccl_conf_cuts("NCCL_ENV_PLUGIN", plugin))
            skip("nccl-conf", "NCCL_ENV_PLUGIN",
                 "NCCL's nccl.conf reader keeps only " STR(NCCL_CONF_MAX) " bytes of a value");
        else
            buf_kv(b, "NCCL_ENV_PLUGIN", plugin);
    }
    format_lines(b, s, "nccl-conf", true, skip);
}

/* The record holds what its readers take (lib/paths.h): a line longer
 * than RECORD_LINE_MAX is left out, like any value a sink cannot carry;
 * the enforce line goes where its key sorts, among the set's. */
int format_env_file(struct buf *b, const struct envset *s, skip_fn *skip)
{
    bool enforce = s->enforce;
    size_t lines = 0;
    for (size_t i = 0; i <= s->n; i++) {
        const struct var *v = i < s->n ? &s->v[i] : NULL;
        if (v && !sink_carries(v))
            continue;
        if (enforce && (!v || strcmp(v->key, RECORD_ENFORCE) > 0)) {
            buf_kv(b, RECORD_ENFORCE, "1");
            lines++;
            enforce = false;
        }
        if (!v)
            break;
        if (has_control(v->value))
            skip("record", v->key, "it contains a control character");
        else if (strlen(v->key) + 1 + strlen(v->value) > RECORD_LINE_MAX)
            skip("record", v->key, "its line would be longer than the " STR(RECORD_LINE_MAX)
                 " bytes the record's readers take");
        else {
            buf_kv(b, v->key, v->value);
            lines++;
        }
    }
    if (b->len > RECORD_SIZE_MAX)
        return -EFBIG;
    if (lines > RECORD_LINES_MAX)
        return -E2BIG;
    return 0;
}

/* A Python string literal that round-trips any valid UTF-8 exactly: only
 * letters, digits and a few punctuation marks appear as themselves;
 * everything else, quotes and backslashes included, becomes an escape. So
 * no value can end the literal early or form a different escape. */
static void py_literal(struct buf *b, const char *s)
{
    buf_add(b, "'", 1);
    const unsigned char *p = (const unsigned char *)s;
    size_t n = strlen(s);
    for (size_t i = 0; i < n;) {
        unsigned c = p[i];
        if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
            (c && strchr(" _-.,:/=^+@%", (int)c))) {
            buf_add(b, p + i, 1);
            i++;
            continue;
        }
        size_t l = utf8_seq_len(p + i, n - i);
        if (l == 0) {
            /* Not UTF-8 (only a path can be): surrogateescape, which is how
             * Python itself decodes such bytes, so open() gets them back. */
            buf_printf(b, "\\udc%02x", c);
            i++;
            continue;
        }
        unsigned cp = l == 1 ? c : c & (0x7f >> l);
        for (size_t k = 1; k < l; k++)
            cp = (cp << 6) | (p[i + k] & 0x3f);
        if (cp < 0x100)
            buf_printf(b, "\\x%02x", cp);
        else if (cp < 0x10000)
            buf_printf(b, "\\u%04x", cp);
        else
            buf_printf(b, "\\U%08x", cp);
        i += l;
    }
    buf_add(b, "'", 1);
}

/* The hook runs in every interpreter start, so it does the least it can:
 * no imports beyond os (already loaded by site), one loop of setdefault,
 * one open. The record stays open read-only for the life of the process,
 * in a module global: nccl-init verify finds it in /proc/PID/fd and knows
 * the hook ran there, with which record's values. A descriptor needs no
 * name: nothing to prune, nothing a reused PID or another user can
 * collide with. os.open's descriptors are non-inheritable (O_CLOEXEC): an
 * exec'd program runs its own hook, or has no record and none of its
 * values but those in its environment. */
void format_python(struct buf *b, const struct envset *s, const char *chain, const char *record,
                   skip_fn *skip)
{
    buf_str(b, "# Generated by nccl-init: the resolved NCCL profile, applied in every\n"
               "# interpreter to what is not set already, so an explicit value still wins.\n"
               "# The record stays open, read-only, for the life of the process: nccl-init\n"
               "# verify reads /proc/PID/fd to tell that the hook ran here.\n"
               "def _nccl_init(os):\n"
               "    env = os.environ\n"
               "    for k, v in (\n");
    for (size_t i = 0; i < s->n; i++) {
        const struct var *v = &s->v[i];
        if (!sink_carries(v))
            continue;
        if (!utf8_valid(v->value, strlen(v->value))) {
            skip("python", v->key, "it is not valid UTF-8");
            continue;
        }
        buf_str(b, "        (");
        py_literal(b, v->key);
        buf_str(b, ", ");
        py_literal(b, v->value);
        buf_str(b, "),\n");
    }
    buf_str(b, "    ):\n"
               "        if k not in env:\n"
               "            env[k] = v\n"
               "    try:\n"
               "        return os.open(");
    py_literal(b, record ? record : RECORD_ENV);
    buf_str(b, ", os.O_RDONLY)\n"
               "    except OSError:\n"
               "        return None\n"
               "import os as _nccl_os\n"
               "_nccl_record = _nccl_init(_nccl_os)\n");
    if (chain) {
        /* A sitecustomize further down sys.path that this one shadows. */
        buf_str(b, "_nccl_path = ");
        py_literal(b, chain);
        buf_str(b, "\n"
                   "with open(_nccl_path, 'rb') as _nccl_f:\n"
                   "    exec(compile(_nccl_f.read(), _nccl_path, 'exec'),\n"
                   "         {'__name__': 'sitecustomize', '__file__': _nccl_path})\n"
                   "del _nccl_path, _nccl_f\n");
    }
    buf_str(b, "del _nccl_os, _nccl_init\n");
}

void sink_skip_warn(const char *sink, const char *key, const char *why)
{
    log_warn("sink %s: %s left out: %s", sink, key, why);
}
