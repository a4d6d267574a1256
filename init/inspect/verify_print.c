/* verify's report: a table with notes and a summary, or JSON. */
#include "inspect/verify.h"
#include "nccl/releases.h"
#include "nccl/nccl_table.h"
#include "lib/paths.h"
#include "lib/text.h"

#include <errno.h>
#include <string.h>
#include <strings.h>

/* For a terminal: every control byte (C0, DEL, and C1 as UTF-8) and every
 * byte that is not UTF-8 as \xNN (text.h), a backslash as \\; the rest as
 * is. No value can move the cursor, change colours or forge a line. */
static void text_escaped_n(struct buf *b, const char *s, size_t n)
{
    buf_escaped(b, s, n, true);
}

static void text_escaped(struct buf *b, const char *s)
{
    text_escaped_n(b, s, strlen(s));
}

/* The first max bytes of s, escaped (a character cut in two as \xNN): a
 * column's heading, or a digest short enough to read and long enough to
 * tell records apart. */
static void text_prefix(struct buf *b, const char *s, size_t max)
{
    text_escaped_n(b, s, strnlen(s, max));
}

/* Pads with spaces from column at to width columns. */
static void pad(struct buf *b, size_t at, size_t width)
{
    for (size_t w = b->len - at; w < width; w++)
        buf_str(b, " ");
}

/* Ends a table row: no padding after the last column. */
static void end_row(struct buf *b)
{
    while (b->len && b->data[b->len - 1] == ' ')
        b->len--;
    buf_str(b, "\n");
}

/* The word for how a value reaches the process; CONFLICT when it is not
 * the profile's, wherever it comes from. NCCL's own word (a witness's
 * ask) says where NCCL took it: nccl:rec, nccl:enf, nccl:own. */
static const char *via(const struct verify_value *v)
{
    static const char names[][10] = { "MISSING",   "env",       "site",
                                      "nccl.conf", "nccl.conf", "plugin" };
    static const char nccl[][10] = { "nccl:rec", "nccl:enf", "nccl:own" };
    if (v->from != FROM_NONE && !v->same)
        return "CONFLICT";
    return v->from == FROM_NCCL ? nccl[v->nccl->from] : names[v->from];
}

static bool in_table(const struct verify_row *w)
{
    return w->kind == ROW_UNVERIFIED || w->kind == ROW_CHECKED;
}

/* PID, COMMAND, then one column per key, named without "NCCL_". */
static void table_header(struct buf *b, const struct verify_report *r)
{
    buf_printf(b, "%-7s %-15s", "PID", "COMMAND");
    for (size_t k = 0; k < r->nkeys; k++) {
        const char *key = r->keys[k].name;
        buf_str(b, " ");
        size_t at = b->len;
        text_prefix(b, key + (strncmp(key, "NCCL_", 5) ? 0 : 5), 10);
        pad(b, at, 10);
    }
    if (r->nlibs)
        buf_str(b, " LIBNCCL");
    end_row(b);
}

static void table_row(struct buf *b, const struct verify_report *r, const struct verify_row *w)
{
    buf_printf(b, "%-7d ", (int)w->pid);
    size_t at = b->len;
    text_escaped(b, w->comm);
    pad(b, at, 15);
    if (w->kind == ROW_UNVERIFIED)
        buf_printf(b, " not verified: %s", w->reason);
    else
        for (size_t k = 0; k < r->nkeys; k++)
            buf_printf(b, " %-10s", via(&w->values[k]));
    /* the version of the libnccl.so it maps: "-" none, "?" unknown */
    if (r->nlibs && w->kind == ROW_CHECKED) {
        buf_str(b, " ");
        const struct verify_lib *l = w->lib < 0 ? NULL : &r->libs[w->lib];
        text_escaped(b, !l ? "-" : l->version ? l->version : "?");
    }
    end_row(b);
}

/* "NCCL 2.28.9" for a witness's copy: its version and suffix as it said
 * them; copy 0 asked from outside every copy. */
static void nccl_label(struct buf *b, const struct witness *wit, unsigned copy)
{
    const struct witness_copy *c = witness_copy(wit, copy);
    if (!c) {
        buf_str(b, "NCCL (a caller outside every libnccl copy)");
        return;
    }
    buf_str(b, "NCCL ");
    text_escaped(b, c->version);
    text_escaped(b, c->suffix);
}

/* What NCCL read for a name: "read K=V from the record", "read nothing
 * for K (NCCL's default)". */
static void nccl_read_text(struct buf *b, const struct witness_ask *a)
{
    static const char *const from[] = { " from the record", " from the record, enforced over "
                                        "its own ", " from its own environment" };
    if (a->from == WITNESS_NONE) {
        buf_str(b, " read nothing for ");
        text_escaped(b, a->name);
        buf_str(b, " (NCCL's default)");
        return;
    }
    buf_str(b, " read ");
    text_escaped(b, a->name);
    buf_str(b, "=");
    text_escaped(b, a->value);
    buf_str(b, a->cut ? "... (cut)" : "");
    buf_str(b, from[a->from]);
    if (a->from == WITNESS_ENFORCED)
        text_escaped(b, a->own);
}

/* A key NCCL itself read otherwise than the profile says (a witness's
 * ask): which value, from where, and what to do. Exit 1. */
static void nccl_note(struct buf *b, const struct verify_key *key, const struct verify_row *w,
                      const struct witness_ask *a)
{
    buf_printf(b, "pid %d (", (int)w->pid);
    text_escaped(b, w->comm);
    buf_str(b, "): ");
    nccl_label(b, w->witness, a->copy);
    nccl_read_text(b, a);
    buf_str(b, ", not the profile's ");
    text_escaped(b, key->value);
    if (a->from == WITNESS_OWN) {
        buf_str(b, ": the process set it itself; start nccl-init with --enforce to make NCCL "
                   "read the profile's\n");
    } else if (a->from != WITNESS_NONE) {
        buf_str(b, ": the env plugin serves another record than the profile's (digest ");
        text_prefix(b, w->witness->rec_digest ? w->witness->rec_digest : "?", 12);
        buf_str(b, ")\n");
    } else if (w->witness->no_record) {
        buf_str(b, ": the env plugin serves no record (");
        text_escaped(b, w->witness->no_record);
        buf_str(b, ")\n");
    } else {
        buf_str(b, ": the record the env plugin serves lacks it\n");
    }
}

/* The keys copy has not asked for yet, after "; not asked yet:"; none:
 * nothing. NCCL asks most at its first communicator, not at its init. */
static void not_asked(struct buf *b, const struct verify_report *r, const struct witness *wit,
                      unsigned copy)
{
    size_t n = 0;
    for (size_t k = 0; k < r->nkeys; k++)
        if (!witness_last_ask(wit, copy, r->keys[k].name)) {
            buf_str(b, n++ ? " " : "; not asked yet: ");
            text_escaped(b, r->keys[k].name);
        }
    if (n)
        buf_str(b, " (NCCL asks the tuning keys at its first communicator)");
}

/* One line for a copy of NCCL in a process's witness (copy 0: asks from
 * outside every copy): what it read of the profile's keys, "NCCL 2.28.9
 * read NCCL_SOCKET_IFNAME=lo from the record" for each, and which it has
 * not asked for yet. */
static void copy_line(struct buf *b, const struct verify_report *r, const struct verify_row *w,
                      unsigned copy)
{
    const struct witness *wit = w->witness;
    buf_printf(b, "pid %d (", (int)w->pid);
    text_escaped(b, w->comm);
    buf_str(b, "): ");
    size_t n = 0;
    for (size_t k = 0; k < r->nkeys; k++) {
        const struct witness_ask *a = witness_last_ask(wit, copy, r->keys[k].name);
        if (!a)
            continue;
        buf_str(b, n++ ? "; " : "");
        nccl_label(b, wit, copy);
        nccl_read_text(b, a);
    }
    if (!n) {
        nccl_label(b, wit, copy);
        buf_str(b, " has read none of the profile's keys yet");
    }
    if (copy)
        not_asked(b, r, wit, copy);
    const struct witness_copy *c = witness_copy(wit, copy);
    if (c) {
        buf_printf(b, " [copy %u: %s, ", c->copy, c->interface);
        text_escaped(b, c->lib);
        buf_str(b, c->finalized ? ", finalized]" : "]");
    }
    buf_str(b, "\n");
}

/* Under the table, per process with a witness: what NCCL read, copy by
 * copy, or why its witness is not trusted; and the other witness
 * descriptors it holds. */
static void witness_notes(struct buf *b, const struct verify_report *r, const struct verify_row *w)
{
    const struct witness *wit = w->witness;
    if (!wit)
        return;
    if (wit->state == WITNESS_UNTRUSTED) {
        buf_printf(b, "pid %d (", (int)w->pid);
        text_escaped(b, w->comm);
        buf_str(b, "): witness not trusted: ");
        text_escaped(b, wit->why);
        buf_str(b, "\n");
    } else if (wit->state == WITNESS_TRUSTED && !wit->ncopies) {
        buf_printf(b, "pid %d (", (int)w->pid);
        text_escaped(b, w->comm);
        buf_str(b, "): a witness of its own, and no NCCL has initialised the env plugin yet\n");
    }
    for (size_t c = 0; wit->state == WITNESS_TRUSTED && c < wit->ncopies; c++)
        copy_line(b, r, w, wit->copies[c].copy);
    bool outside = false;
    for (size_t i = 0; i < wit->nasks && !outside; i++)
        outside = wit->asks[i].copy == 0;
    if (wit->state == WITNESS_TRUSTED && outside)
        copy_line(b, r, w, 0);
    if (wit->others) {
        buf_printf(b, "pid %d (", (int)w->pid);
        text_escaped(b, w->comm);
        buf_str(b, "): other witness descriptors, not taken: ");
        text_escaped(b, wit->others);
        buf_str(b, "\n");
    }
}

/* A value other than the profile's, and where it comes from when that is
 * not the environment, where anyone can see it. */
static void conflict_note(struct buf *b, const struct verify_key *key, const struct verify_row *w,
                          const struct verify_value *v)
{
    buf_printf(b, "pid %d: ", (int)w->pid);
    text_escaped(b, key->name);
    buf_str(b, "=");
    text_escaped(b, v->have);
    if (v->from == FROM_SITE) {
        buf_str(b, " (by the site hook, from an older record, digest ");
        text_prefix(b, w->site_digest ? w->site_digest : "?", 12);
        buf_str(b, ")");
    } else if (v->from == FROM_USER_CONF) {
        buf_str(b, " (from ");
        text_escaped(b, w->conf_file);
        buf_str(b, ", read before " ETC_NCCL_CONF ")");
    } else if (v->from == FROM_PLUGIN) {
        buf_str(b, " (by the env plugin, from an older record, digest ");
        text_prefix(b, w->env_plugin.record ? w->env_plugin.record : "?", 12);
        buf_str(b, ")");
    } else if (v->over_plugin) {
        buf_str(b, " (from " ETC_NCCL_CONF ", which NCCL applies before its env plugin answers)");
    }
    buf_str(b, ", the profile says ");
    text_escaped(b, key->value);
    buf_str(b, "\n");
}

/* A process with a libnccl mapped whose NCCL does not ask nccl-init's env
 * plugin, by its NCCL_ENV_PLUGIN: "none" (any case, src/plugin/env.cc)
 * or another plugin. Unset, NCCL looks for libnccl-env.so: nothing to say
 * (the plugin is not installed, or NCCL has not initialized yet). */
static void env_plugin_note(struct buf *b, const struct verify_row *w)
{
    const struct verify_env_plugin *e = &w->env_plugin;
    if (!w->nccl || e->record || !e->setting.have)
        return;
    buf_printf(b, "pid %d: NCCL_ENV_PLUGIN=", (int)w->pid);
    text_escaped(b, e->setting.have);
    if (e->setting.from == FROM_ENV) {
        buf_str(b, " (in its environment)");
    } else if (e->setting.from == FROM_SITE) {
        buf_str(b, " (set by the site hook)");
    } else {
        buf_str(b, " (from ");
        text_escaped(b, e->setting.from == FROM_USER_CONF ? w->conf_file : ETC_NCCL_CONF);
        buf_str(b, ")");
    }
    if (strcasecmp(e->setting.have, "none") == 0)
        buf_str(b, ": NCCL reads its environment directly, not through nccl-init's env plugin\n");
    else
        buf_str(b, ": NCCL loads that env plugin, and no nccl-init env plugin holds the record\n");
}

static void notes(struct buf *b, const struct verify_report *r, const struct verify_row *w)
{
    if (w->kind == ROW_NO_SUCH)
        buf_printf(b, "pid %d: no such process\n", (int)w->pid);
    else if (w->kind == ROW_KTHREAD)
        buf_printf(b, "pid %d: a kernel thread: it runs no program of its own, nothing to check\n",
                   (int)w->pid);
    else if (w->kind == ROW_EXITED)
        buf_printf(b, "pid %d: %s\n", (int)w->pid, w->reason ? w->reason : "has exited");
    else if (w->kind == ROW_UNVERIFIED)
        buf_printf(b, "pid %d: not verified: %s\n", (int)w->pid, w->detail);
    else if (w->kind == ROW_CHECKED)
        for (size_t k = 0; k < r->nkeys; k++) {
            if (w->values[k].nccl && !w->values[k].same)
                nccl_note(b, &r->keys[k], w, w->values[k].nccl);
            else if (w->values[k].from != FROM_NONE && !w->values[k].same)
                conflict_note(b, &r->keys[k], w, &w->values[k]);
        }
    if (w->kind == ROW_CHECKED) {
        env_plugin_note(b, w);
        witness_notes(b, r, w);
    }
}

/* The processes outside the tree that were not checked, in one line: the
 * first ten by pid. */
static void outside_note(struct buf *b, const struct verify_report *r)
{
    if (!r->outside)
        return;
    buf_printf(b, "not checked: %u process%s outside nccl-init's tree whose memory map "
                  "cannot be read, to tell whether it loaded NCCL (pid ",
               r->outside, r->outside == 1 ? "" : "es");
    unsigned shown = 0;
    for (size_t i = 0; i < r->nrows && shown <= 10; i++)
        if (r->rows[i].kind == ROW_OUTSIDE) {
            if (shown++ < 10)
                buf_printf(b, "%s%d", shown > 1 ? ", " : "", (int)r->rows[i].pid);
            else
                buf_str(b, ", ...");
        }
    buf_str(b, ")\n");
}

/* Each libnccl.so the rows map, its version, and the release whose rules
 * check --nccl-lib and run mode apply to it (nccl/releases.h): a known
 * one, the newest for a newer one, or every known release. */
static void lib_notes(struct buf *b, const struct verify_report *r)
{
    for (size_t i = 0; i < r->nlibs; i++) {
        const struct verify_lib *l = &r->libs[i];
        unsigned n = 0;
        for (size_t k = 0; k < r->nrows; k++)
            n += r->rows[k].lib == (int)i;
        buf_str(b, "libnccl ");
        text_escaped(b, l->version ? l->version : "of unknown version");
        buf_printf(b, " in %u process%s (", n, n == 1 ? "" : "es");
        text_escaped(b, l->path);
        char known[64];
        release_list(known, sizeof known, (1u << NCCL_RELEASES) - 1);
        bool newer = false;
        int rel = l->version ? release_parse(l->version, &newer) : -2;
        if (!l->version)
            buf_printf(b, ": %s): check and run apply every known release's rules (%s)\n",
                       l->err == ENOEXEC  ? "no NCCL version string in it"
                       : l->err == ESTALE ? "the file at that path is not the one mapped"
                       : l->err == EINVAL ? "not a regular file"
                       : l->err == ELOOP  ? "a symbolic link"
                                          : strerror(l->err),
                       known);
        else if (rel >= 0 && !newer)
            buf_printf(b, "): NCCL %s, a release whose rules check and run know "
                          "(--nccl-lib, or --nccl-version %s)\n",
                       nccl_releases[rel], nccl_releases[rel]);
        else if (rel >= 0)
            buf_printf(b, "): newer than the releases check and run know (%s): "
                          "--nccl-lib applies %s's rules\n",
                       known, nccl_releases[rel]);
        else
            buf_printf(b, "): not a release check and run know (%s)\n", known);
    }
}

void verify_print_text(struct buf *b, const struct verify_report *r)
{
    table_header(b, r);
    for (size_t i = 0; i < r->nrows; i++)
        if (in_table(&r->rows[i]))
            table_row(b, r, &r->rows[i]);
    for (size_t i = 0; i < r->nrows; i++)
        notes(b, r, &r->rows[i]);
    outside_note(b, r);
    lib_notes(b, r);
    buf_printf(b, "%u process%s checked", r->checked, r->checked == 1 ? "" : "es");
    if (r->checked)
        buf_printf(b, ", %u with every value", r->good);
    if (r->unverified)
        buf_printf(b, ", %u not verified", r->unverified);
    unsigned gone = verify_named_unchecked(r);
    if (gone && r->checked)
        buf_printf(b, ", %u named with --pid not checked", gone);
    buf_str(b, " (profile ");
    text_escaped(b, r->profile ? r->profile : "?");
    buf_str(b, ", digest ");
    text_prefix(b, r->digest ? r->digest : "?", 12);
    buf_str(b, ")\n");
    /* no process checked is no pass: say why */
    if (!r->checked) {
        buf_str(b, "no process checked: ");
        text_escaped(b, r->nothing ? r->nothing : "none found");
        buf_str(b, "\n");
    }
}

static const char *const witness_from_name[] = { "record", "enforced", "own", "none" };

static void json_or_null(struct buf *b, const char *s)
{
    if (s)
        json_string(b, s);
    else
        buf_str(b, "null");
}

/* Whether name is a key of the report's. */
static bool is_key(const struct verify_report *r, const char *name)
{
    for (size_t k = 0; k < r->nkeys; k++)
        if (strcmp(r->keys[k].name, name) == 0)
            return true;
    return false;
}

/* A witness's reads, in its order: of the profile's keys, or (--all) of
 * every name. */
static void json_reads(struct buf *b, const struct verify_report *r, const struct witness *wit)
{
    buf_str(b, ", \"reads\": [");
    size_t n = 0;
    for (size_t i = 0; i < wit->nasks; i++) {
        const struct witness_ask *a = &wit->asks[i];
        if (!r->all && !is_key(r, a->name))
            continue;
        buf_printf(b, "%s{\"copy\": %u, \"name\": ", n++ ? ", " : "", a->copy);
        json_string(b, a->name);
        buf_str(b, ", \"value\": ");
        json_or_null(b, a->value);
        buf_printf(b, ", \"from\": \"%s\", \"own\": ", witness_from_name[a->from]);
        json_or_null(b, a->own);
        buf_str(b, ", \"record\": ");
        json_or_null(b, a->record);
        buf_printf(b, ", \"cut\": %s}", a->cut ? "true" : "false");
    }
    buf_str(b, "]");
}

/* "witness": null, or what a process's witness says and whether it is
 * trusted (a witness not trusted has no record, copies or reads). */
static void json_witness(struct buf *b, const struct verify_report *r, const struct verify_row *w)
{
    const struct witness *wit = w->witness;
    buf_str(b, ", \"witness\": ");
    if (!wit || wit->state == WITNESS_ABSENT) {
        buf_str(b, "null");
        return;
    }
    buf_printf(b, "{\"trusted\": %s, \"why\": ", wit->state == WITNESS_TRUSTED ? "true" : "false");
    json_or_null(b, wit->why);
    buf_str(b, ", \"pid\": ");
    if (wit->pid >= 0)
        buf_printf(b, "%lld", wit->pid);
    else
        buf_str(b, "null");
    buf_str(b, ", \"record\": ");
    if (wit->record) {
        buf_str(b, "{\"path\": ");
        json_string(b, wit->rec_path);
        buf_str(b, ", \"digest\": ");
        json_string(b, wit->rec_digest);
        buf_str(b, ", \"profile\": ");
        json_string(b, wit->rec_profile);
        buf_printf(b, ", \"enforced\": %s}", wit->rec_enforced ? "true" : "false");
    } else {
        buf_str(b, "null");
    }
    buf_str(b, ", \"no_record\": ");
    json_or_null(b, wit->no_record);
    buf_str(b, ", \"copies\": [");
    for (size_t c = 0; c < wit->ncopies; c++) {
        const struct witness_copy *k = &wit->copies[c];
        buf_printf(b, "%s{\"copy\": %u, \"version\": ", c ? ", " : "", k->copy);
        json_string(b, k->version);
        buf_str(b, ", \"suffix\": ");
        json_string(b, k->suffix);
        buf_str(b, ", \"interface\": ");
        json_string(b, k->interface);
        buf_str(b, ", \"lib\": ");
        json_string(b, k->lib);
        buf_str(b, "}");
    }
    buf_str(b, "]");
    json_reads(b, r, wit);
    buf_str(b, "}");
}

static void json_value(struct buf *b, const struct verify_key *key, const struct verify_row *w,
                       const struct verify_value *v)
{
    json_string(b, key->name);
    buf_printf(b, ": {\"via\": \"%s\", \"value\": ", via(v));
    if (v->have)
        json_string(b, v->have);
    else
        buf_str(b, "null");
    if (v->from == FROM_USER_CONF) {
        buf_str(b, ", \"file\": ");
        json_string(b, w->conf_file);
    }
    /* NCCL's own word, where a trusted witness has it */
    const struct witness_ask *a = v->nccl;
    if (!a) {
        buf_str(b, ", \"nccl\": {\"asked\": false}}");
        return;
    }
    buf_printf(b, ", \"nccl\": {\"asked\": true, \"copy\": %u, \"value\": ", a->copy);
    json_or_null(b, a->value);
    buf_printf(b, ", \"from\": \"%s\"}}", witness_from_name[a->from]);
}

/* "env_plugin": null for a process that maps no libnccl and holds no
 * plugin record; else the record the plugin holds (its digest, or null)
 * and NCCL_ENV_PLUGIN as NCCL reads it (null: unset). */
static void json_env_plugin(struct buf *b, const struct verify_row *w)
{
    const struct verify_env_plugin *e = &w->env_plugin;
    buf_str(b, ", \"env_plugin\": ");
    if (!e->shown) {
        buf_str(b, "null");
        return;
    }
    buf_str(b, "{\"record\": ");
    if (e->record)
        json_string(b, e->record);
    else
        buf_str(b, "null");
    buf_printf(b, ", \"enforce\": %s, \"setting\": ", e->enforce ? "true" : "false");
    if (!e->setting.have) {
        buf_str(b, "null}");
        return;
    }
    static const char from[][10] = { "", "env", "site", "nccl.conf", "nccl.conf", "", "" };
    buf_str(b, "{\"value\": ");
    json_string(b, e->setting.have);
    buf_printf(b, ", \"from\": \"%s\"", from[e->setting.from]);
    if (e->setting.from == FROM_USER_CONF) {
        buf_str(b, ", \"file\": ");
        json_string(b, w->conf_file);
    }
    buf_str(b, "}}");
}

static void json_row(struct buf *b, const struct verify_report *r, const struct verify_row *w)
{
    buf_printf(b, "{\"pid\": %d, \"command\": ", (int)w->pid);
    json_string(b, w->comm);
    buf_printf(b, ", \"python\": %s, \"nccl\": %s, \"libnccl\": ", w->python ? "true" : "false",
               w->nccl ? "true" : "false");
    if (w->lib < 0) {
        buf_str(b, "null");
    } else {
        const struct verify_lib *l = &r->libs[w->lib];
        buf_str(b, "{\"path\": ");
        json_string(b, l->path);
        buf_str(b, ", \"version\": ");
        if (l->version)
            json_string(b, l->version);
        else
            buf_str(b, "null");
        buf_str(b, "}");
    }
    if (w->kind == ROW_UNVERIFIED) {
        buf_str(b, ", \"verified\": false, \"reason\": ");
        json_string(b, w->reason);
        buf_str(b, ", \"detail\": ");
        json_string(b, w->detail);
        buf_str(b, ", \"ok\": false}");
        return;
    }
    buf_str(b, ", \"verified\": true, \"site_digest\": ");
    if (w->site_digest)
        json_string(b, w->site_digest);
    else
        buf_str(b, "null");
    json_env_plugin(b, w);
    json_witness(b, r, w);
    buf_str(b, ", \"variables\": {");
    for (size_t k = 0; k < r->nkeys; k++) {
        buf_str(b, k ? ", " : "");
        json_value(b, &r->keys[k], w, &w->values[k]);
    }
    buf_str(b, w->ok ? "}, \"ok\": true}" : "}, \"ok\": false}");
}

/* Why a row's process was not checked, in a word or two; NULL: it was. */
static const char *not_checked_why(const struct verify_row *w)
{
    switch (w->kind) {
    case ROW_NO_SUCH:
        return "no such process";
    case ROW_EXITED:
        return w->reason ? w->reason : "has exited";
    case ROW_KTHREAD:
        return "a kernel thread";
    case ROW_OUTSIDE:
        return "outside nccl-init's tree, its memory map cannot be read";
    default:
        return NULL;
    }
}

/* "not_checked": the processes named with --pid that were not checked,
 * and those outside the tree set aside, in the order of the notes. */
static void json_not_checked(struct buf *b, const struct verify_report *r)
{
    buf_str(b, ",\n  \"not_checked\": [");
    unsigned n = 0;
    for (size_t i = 0; i < r->nrows; i++) {
        const char *why = not_checked_why(&r->rows[i]);
        if (!why)
            continue;
        buf_printf(b, "%s{\"pid\": %d, \"why\": ", n++ ? ", " : "", (int)r->rows[i].pid);
        json_string(b, why);
        buf_str(b, "}");
    }
    buf_str(b, "]");
}

void verify_print_json(struct buf *b, const struct verify_report *r)
{
    buf_str(b, "{\n  \"digest\": ");
    json_string(b, r->digest ? r->digest : "");
    buf_str(b, ",\n  \"nccl_releases\": [");
    for (int i = 0; i < NCCL_RELEASES; i++)
        buf_printf(b, "%s\"%s\"", i ? ", " : "", nccl_releases[i]);
    buf_str(b, "]");
    buf_str(b, ",\n  \"processes\": [");
    unsigned listed = 0;
    for (size_t i = 0; i < r->nrows; i++)
        if (in_table(&r->rows[i])) {
            buf_str(b, listed++ ? ",\n    " : "\n    ");
            json_row(b, r, &r->rows[i]);
        }
    buf_printf(b, "\n  ],\n  \"checked\": %u,\n  \"not_verified\": %u,\n"
                  "  \"not_checked_outside_tree\": %u",
               r->checked, r->unverified, r->outside);
    json_not_checked(b, r);
    buf_str(b, ",\n  \"nothing_checked\": ");
    if (!r->checked)
        json_string(b, r->nothing ? r->nothing : "none found");
    else
        buf_str(b, "null");
    buf_printf(b, ",\n  \"ok\": %s\n}\n", verify_status(r) == VERIFY_OK ? "true" : "false");
}
