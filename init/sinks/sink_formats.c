#include "sinks/sink_formats.h"

#include "lib/paths.h"

#include "lib/log.h"
#include "lib/mem.h"
#include "lib/text.h"
#include "nccl/validate.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

/* pam_env reads /etc/environment with fgets into a buffer of BUF_SIZE 8192
 * bytes (Linux-PAM 1.5.2, modules/pam_env/pam_env.c): a line of at most
 * 8190 bytes and its newline. _assemble_line returns -1 for a longer one
 * ("line too long"), and _parse_env_file's loop ends there: the rest of
 * the file is silently dropped. */
#define PAM_ENV_BUF 8192
#define PAM_ENV_MAX_LINE (PAM_ENV_BUF - 2)

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
        return "pam_env joins a line ending in a backslash with the next";
    if (s[0] == ' ' || s[0] == '\t' || s[n - 1] == ' ' || s[n - 1] == '\t')
        return "pam_env does not keep surrounding blanks";
    if (strlen(v->key) + 1 + n > PAM_ENV_MAX_LINE)
        return "the line would exceed pam_env's 8190 bytes";
    return NULL;
}

/* One physical line as _assemble_line takes it into its buffer at used
 * bytes in (a line that a '\' before it joins to goes after the ones
 * before): the new used, 0 when the logical line ends here; *cont when it
 * ends in '\' (blanks after it allowed) and goes on. A blank or comment
 * line changes nothing, inside a continuation too. */
static size_t assemble(const char *l, size_t len, size_t used, bool *cont)
{
    size_t ws = 0;
    while (ws < len && (l[ws] == ' ' || l[ws] == '\n' || l[ws] == '\t'))
        ws++;
    if (ws == len || l[ws] == '#')
        return used;
    const char *hash = memchr(l + ws, '#', len - ws);
    *cont = false;
    if (hash)
        return 0; /* what follows '#' is a comment, a '\' in it too */
    size_t e = len;
    while (e > ws && (l[e - 1] == ' ' || l[e - 1] == '\t' || l[e - 1] == '\n'))
        e--;
    if (l[e - 1] != '\\')
        return 0;
    *cont = true;
    return used + e - 1; /* the '\' is cut, the next line goes there */
}

bool pam_env_scan(const char *s, size_t n, size_t probe, struct pam_env_stop *st)
{
    *st = (struct pam_env_stop){ .at = n };
    size_t used = 0, start = 0;
    unsigned line = 0, start_line = 0;
    bool cont = false;
    for (size_t i = 0; i < n; line++) {
        const char *nl = memchr(s + i, '\n', n - i);
        size_t len = nl ? (size_t)(nl - s) - i + 1 : n - i;
        if (i == probe)
            st->joined = cont;
        if (!cont) {
            start = i;
            start_line = line + 1;
        }
        /* fgets reads at most PAM_ENV_BUF - 1 - used bytes; a line that
         * does not fit ends the reading ("line too long"); the last line
         * needs no newline if shorter. A NUL as its first byte ends it
         * ("corrupted or binary file"); one further on cuts strlen short,
         * before the newline, which is "line too long" too, unless fgets
         * reached the end of the file (feof): a last line without a
         * newline is then read up to the NUL. */
        size_t room = PAM_ENV_BUF - 1 - used;
        const char *nul = memchr(s + i, '\0', len);
        if (nl ? len > room : len >= room)
            st->why = cont ? "the lines a backslash joins are longer than the 8190 bytes pam_env "
                             "reads"
                           : "the line is longer than the 8190 bytes pam_env reads";
        else if (nul && (nul == s + i || nl))
            st->why = "the line holds a NUL byte";
        if (st->why) {
            st->at = start;
            st->line = start_line;
            st->len = i + len - start - (nl ? 1 : 0);
            return false;
        }
        used = assemble(s + i, nul ? (size_t)(nul - (s + i)) : len, used, &cont);
        i += len;
    }
    if (probe >= n)
        st->joined = cont;
    if (!cont)
        return true;
    /* At the end of the file in a continuation: "incomplete read", that
     * logical line dropped; a block after it would be joined to it. */
    st->why = "the line ends in a backslash and the file ends: pam_env drops it";
    st->at = start;
    st->line = start_line;
    st->len = n - start - (s[n - 1] == '\n');
    return false;
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
 * cut short, so it is left out. In every release through 2.30.7: the lines
 * left are too short for 2.30.3's fgets to split, and a CR, which 2.30.3
 * strips and 2.28.9 keeps, is a control character, refused first. */
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
 * nccl-init's own lines (enforce, the writer) go where their keys sort,
 * among the set's. */
int format_env_file(struct buf *b, const struct envset *s, const struct record_writer *w,
                    skip_fn *skip)
{
    char pid[24], start[24];
    snprintf(pid, sizeof pid, "%ld", w->pid);
    snprintf(start, sizeof start, "%llu", w->start);
    /* sorted by key, as the set is */
    const struct {
        const char *key, *value;
    } own[] = { { RECORD_ENFORCE, s->enforce ? "1" : NULL },
                { RECORD_WRITER_PID, pid },
                { RECORD_WRITER_START, start } };
    size_t lines = 0, k = 0;
    for (size_t i = 0; i <= s->n; i++) {
        const struct var *v = i < s->n ? &s->v[i] : NULL;
        if (v && !sink_carries(v))
            continue;
        for (; k < ARRAY_SIZE(own) && (!v || strcmp(v->key, own[k].key) > 0); k++)
            if (own[k].value) {
                buf_kv(b, own[k].key, own[k].value);
                lines++;
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

/* The hook is fixed code: the record's path (and a shadowed sitecustomize
 * to chain to) is all that varies, so it can be written once, at image
 * build time (nccl-init install), and a start writes only the record. At
 * every interpreter start it opens the record with the env plugin's trust
 * rules (plugin/record.c: the walk from "/" without a link, each directory
 * root's or ours and writable by no group or others unless sticky, but the
 * record's own, which may be shared, an emptyDir: then the record must
 * have one link; the record root's or ours, regular, not writable by group
 * or others), reads it once and parses it as strictly (the bounds of
 * lib/paths.h, put in from the macros), takes it only while the nccl-init
 * run it names (RECORD_WRITER_PID, RECORD_WRITER_START: /proc/PID/stat's start time)
 * runs, then applies every line but RECORD_ENFORCE, RECORD_WRITER_PID and
 * RECORD_WRITER_START: os.environ[k] = v when enforced, else setdefault. The
 * bytes are decoded as os.environ decodes the environment (os.fsdecode:
 * surrogateescape), so any value reaches the process exactly.
 *
 * It costs the least it can: no import beyond os and stat, which site has
 * already loaded (os imports stat), a dozen system calls. The record stays
 * open read-only for the life of the process, in a module global: nccl-init
 * verify finds it in /proc/PID/fd and knows the hook ran there, with which
 * record's values. A descriptor needs no name: nothing to prune, nothing a
 * reused PID or another user can collide with. One per process: a
 * sub-interpreter runs site again, and keeps the one the process holds on
 * the same file, read-only and close-on-exec, instead of its own. It is
 * opened O_CLOEXEC (as os.open always does, and said so): an exec'd
 * program runs its own hook,
 * and verify takes a descriptor without the flag (made inheritable, passed
 * to a python3 -S) for one the hook did not open in that interpreter. No
 * record: nothing, silently. A record it cannot trust or parse: no value
 * at all, one line on stderr, and the interpreter starts as without it;
 * no exception leaves sitecustomize. With chain (a file of the hook
 * alone), it then runs the sitecustomize it shadows: the next one on the
 * running interpreter's sys.path after its own directory, found by the
 * import system's PathFinder as site's "import sitecustomize" would have;
 * one that fails is one line on stderr. */
void format_python(struct buf *b, const struct envset *s, bool chain, const char *record,
                   skip_fn *skip)
{
    (void)s; /* the values are the record's, read at each start */
    (void)skip;
    buf_str(b, "# Generated by nccl-init. At every interpreter start: applies the record that\n"
               "# nccl-init writes when it starts, if it can trust it as NCCL's env plugin does\n"
               "# (root's or yours, no link, no one else could write it); with " RECORD_ENFORCE "=1\n"
               "# each of its values wins, else only what is not set already. The record stays\n"
               "# open, read-only and close-on-exec, for the life of the process: nccl-init\n"
               "# verify reads /proc/PID/fd and fdinfo to tell that the hook ran in this\n"
               "# interpreter (a descriptor inherited through an exec has no O_CLOEXEC).\n"
               "# Same code for every profile.\n");
    buf_printf(b, "def _nccl_init(path, size_max=%d, lines_max=%d, line_max=%d, eloop=%d):\n",
               RECORD_SIZE_MAX, RECORD_LINES_MAX, RECORD_LINE_MAX, ELOOP);
    buf_str(b,
        "    import os, stat  # loaded already: site imports os, and os imports stat\n"
        "    me = os.geteuid()\n"
        "    def writable(st, what):  # owned by root or by us; writable by others?\n"
        "        if st.st_uid not in (0, me):\n"
        "            raise ValueError(\"%s is owned by uid %d, neither root nor this \"\n"
        "                             \"process's %d\" % (what, st.st_uid, me))\n"
        "        return st.st_mode & 0o022\n"
        "    def check(fd):  # the record, through either descriptor\n"
        "        st = os.fstat(fd)\n"
        "        m = st.st_mode\n"
        "        if stat.S_ISLNK(m):\n"
        "            why = 'is a symbolic link'\n"
        "        elif stat.S_ISFIFO(m):\n"
        "            why = 'is a FIFO'\n"
        "        elif not stat.S_ISREG(m):\n"
        "            why = 'is not a regular file (type %06o)' % stat.S_IFMT(m)\n"
        "        elif writable(st, path):\n"
        "            why = 'is writable by group or others (mode %04o)' % (m & 0o7777)\n"
        "        elif st.st_size > size_max:\n"
        "            why = 'is %d bytes, more than the %d a record may have' % (st.st_size, size_max)\n"
        "        elif shared and st.st_nlink != 1:\n"
        "            why = 'has %d links, in a directory others may write to' % st.st_nlink\n"
        "        else:\n"
        "            return st\n"
        "        raise ValueError('%s %s' % (path, why))\n"
        "    dirs = path.split('/')\n"
        "    base = dirs.pop()\n"
        "    if dirs[:1] != [''] or not base or [n for n in dirs[1:] if n in ('', '.', '..')]:\n"
        "        raise ValueError(path + ': not a plain absolute path')\n"
        "    try:\n"
        "        # From \"/\", one directory at a time, each opened from the one above\n"
        "        # without following a link, and checked before the next.\n"
        "        d = os.open('/', os.O_PATH | os.O_DIRECTORY)\n"
        "        try:\n"
        "            where = ''\n"
        "            for i, name in enumerate(dirs):\n"
        "                if i:\n"
        "                    where += '/' + name\n"
        "                    try:\n"
        "                        n = os.open(name, os.O_PATH | os.O_NOFOLLOW | os.O_DIRECTORY,\n"
        "                                    dir_fd=d)\n"
        "                    except NotADirectoryError:\n"
        "                        raise ValueError(where + ' is a symbolic link or not a directory')\n"
        "                    os.close(d)\n"
        "                    d = n\n"
        "                st = os.fstat(d)\n"
        "                what = 'directory ' + (where or '/')\n"
        "                w = writable(st, what)\n"
        "                # The record's own directory may be shared (an emptyDir is 0777):\n"
        "                # then the record needs one link. Above it, only a sticky one.\n"
        "                shared = w and i == len(dirs) - 1\n"
        "                if w and not shared and not st.st_mode & stat.S_ISVTX:\n"
        "                    raise ValueError('%s is writable by group or others (mode %04o)'\n"
        "                                     % (what, st.st_mode & 0o7777))\n"
        "            # The record: O_PATH first (it cannot block, even on a FIFO), checked;\n"
        "            # then read from the same directory, and only if the same file.\n"
        "            for _ in range(3):\n"
        "                p = os.open(base, os.O_PATH | os.O_NOFOLLOW, dir_fd=d)\n"
        "                f = None\n"
        "                try:\n"
        "                    a = check(p)\n"
        "                    try:\n"
        "                        f = os.open(base, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK |\n"
        "                                    os.O_NOCTTY | os.O_CLOEXEC, dir_fd=d)\n"
        "                    except OSError as e:\n"
        "                        if isinstance(e, FileNotFoundError) or e.errno == eloop:\n"
        "                            continue  # replaced or removed since: look again\n"
        "                        raise\n"
        "                    b = check(f)\n"
        "                    if (a.st_dev, a.st_ino) == (b.st_dev, b.st_ino):\n"
        "                        data = b''\n"
        "                        while len(data) <= size_max:\n"
        "                            more = os.read(f, size_max + 1 - len(data))\n"
        "                            if not more:\n"
        "                                break\n"
        "                            data += more\n"
        "                        fd, f = f, None\n"
        "                        break\n"
        "                finally:\n"
        "                    os.close(p)\n"
        "                    if f is not None:\n"
        "                        os.close(f)\n"
        "            else:\n"
        "                raise ValueError(path + ' changed while it was opened (3 tries)')\n"
        "        finally:\n"
        "            os.close(d)\n"
        "    except FileNotFoundError:\n"
        "        return None  # no record: nccl-init did not start here\n"
        "    except OSError as e:\n"
        "        raise ValueError('%s: %s' % (path, e.strerror))\n"
        "    try:\n"
        "        # KEY=VALUE lines, as plugin/record.c takes them\n"
        "        if len(data) > size_max:\n"
        "            raise ValueError('has more than the %d bytes a record may have' % size_max)\n"
        "        if not data.endswith(b'\\n'):\n"
        "            raise ValueError('empty' if not data else\n"
        "                             'the last line does not end with a newline')\n"
        "        lines = data[:-1].split(b'\\n')\n"
        "        if len(lines) > lines_max:\n"
        "            raise ValueError('more than %d lines' % lines_max)\n"
        "        ctrl = bytes(range(32)) + b'\\x7f'\n"
        "        rec = {}\n"
        "        for n, line in enumerate(lines, 1):\n"
        "            k, eq, v = line.partition(b'=')\n"
        "            if len(line) > line_max:\n"
        "                why = 'longer than %d bytes' % line_max\n"
        "            elif not (k[:1].isalpha() or k[:1] == b'_'):\n"
        "                why = \"not KEY=VALUE (a key starts with a letter or '_')\"\n"
        "            elif not (eq and k.replace(b'_', b'a').isalnum()):\n"
        "                why = \"not KEY=VALUE (a key is letters, digits and '_', then '=')\"\n"
        "            elif len(v.translate(None, ctrl)) != len(v):\n"
        "                why = 'a control byte (0x%02x) in the value' % [c for c in v\n"
        "                                                               if c in ctrl][0]\n"
        "            elif k in rec:\n"
        "                raise ValueError('the key %s is there more than once' % k[:64].decode())\n"
        "            else:\n"
        "                rec[k] = v\n"
        "                continue\n"
        "            raise ValueError('line %d: %s' % (n, why))\n"
        "        if not rec.get(b'NCCL_INIT_DIGEST'):\n"
        "            raise ValueError('no NCCL_INIT_DIGEST line')\n"
        "        enforce = rec.pop(b'" RECORD_ENFORCE "', None)\n"
        "        if enforce not in (None, b'1'):\n"
        "            raise ValueError('" RECORD_ENFORCE " is not 1')\n"
        "        # Only while the nccl-init run that wrote it runs: its PID, and its\n"
        "        # start time (a PID reused by another process has another one).\n"
        "        pid = rec.pop(b'" RECORD_WRITER_PID "', None)\n"
        "        start = rec.pop(b'" RECORD_WRITER_START "', None)\n"
        "        for k, v in ((b'" RECORD_WRITER_PID "', pid), (b'" RECORD_WRITER_START "', start)):\n"
        "            if v is None:\n"
        "                raise ValueError('no %s line (written by an older nccl-init)' % k.decode())\n"
        "            if not v.isdigit():  # bytes: ASCII digits only\n"
        "                raise ValueError('%s is not a decimal number' % k.decode())\n"
        "        pid = int(pid)\n"
        "        try:\n"
        "            s = os.open('/proc/%d/stat' % pid, os.O_RDONLY | os.O_CLOEXEC)\n"
        "            try:\n"
        "                st = os.read(s, 4096)\n"
        "            finally:\n"
        "                os.close(s)\n"
        "        except FileNotFoundError as e:\n"
        "            if not os.path.exists('/proc/self/stat'):  # no /proc: cannot tell\n"
        "                raise ValueError('cannot check the writer, pid %d: %s' % (pid, e.strerror))\n"
        "            st = None\n"
        "        except OSError as e:\n"
        "            raise ValueError('cannot check the writer, pid %d: %s' % (pid, e.strerror))\n"
        "        if st is not None:\n"
        "            # after the last ')': comm may hold ')' and spaces; starttime\n"
        "            # is field 22, the 20th after it\n"
        "            f = st[st.rfind(b')') + 1:].split()\n"
        "            if b')' not in st or len(f) < 20 or not f[19].isdigit():\n"
        "                raise ValueError('cannot check the writer, pid %d: /proc/%d/stat has no '\n"
        "                                 'start time' % (pid, pid))\n"
        "        if st is None or int(f[19]) != int(start):\n"
        "            raise ValueError('written by nccl-init pid %d, which is no longer running' % pid)\n"
        "    except ValueError as e:\n"
        "        os.close(fd)\n"
        "        raise ValueError('%s: %s' % (path, e))\n"
        "    env, dec = os.environ, os.fsdecode\n"
        "    for k, v in rec.items():\n"
        "        if enforce:\n"
        "            env[dec(k)] = dec(v)\n"
        "        else:\n"
        "            env.setdefault(dec(k), dec(v))\n"
        "    # One descriptor per process: a sub-interpreter runs site again. One that\n"
        "    # the process holds already on this record, read-only and close-on-exec\n"
        "    # (a hook's: one that crossed an exec has no O_CLOEXEC), is kept instead.\n"
        "    try:\n"
        "        for n in os.listdir('/proc/self/fd'):\n"
        "            n = int(n)\n"
        "            try:\n"
        "                o = os.fstat(n)\n"
        "                if n == fd or (o.st_dev, o.st_ino) != (b.st_dev, b.st_ino):\n"
        "                    continue\n"
        "                i = os.open('/proc/self/fdinfo/%d' % n, os.O_RDONLY | os.O_CLOEXEC)\n"
        "                try:\n"
        "                    flags = int(os.read(i, 4096).split(b'flags:')[1].split()[0], 8)\n"
        "                finally:\n"
        "                    os.close(i)\n"
        "            except (OSError, IndexError, ValueError):\n"
        "                continue  # closed meanwhile, or not to be read\n"
        "            if (flags & (os.O_ACCMODE | os.O_PATH) == os.O_RDONLY and\n"
        "                    flags & os.O_CLOEXEC):\n"
        "                os.close(fd)\n"
        "                return n\n"
        "    except OSError:\n"
        "        pass  # no /proc: this one\n"
        "    return fd\n"
        "try:\n"
        "    _nccl_record = _nccl_init(");
    py_literal(b, record ? record : RECORD_ENV);
    buf_str(b, ")\n"
               "except Exception as _nccl_e:  # never more than one line, never an exception\n"
               "    _nccl_record = None\n"
               "    try:\n"
               "        import sys\n"
               "        sys.stderr.write('nccl-init hook: record not used: %s\\n' % (_nccl_e,))\n"
               "    except Exception:\n"
               "        pass\n");
    if (chain)
        buf_str(b,
            "# No sitecustomize of its own here: the one this file shadows runs after\n"
            "# it, the one that site's \"import sitecustomize\" would have found without\n"
            "# it: the next on sys.path after this file's directory (a venv's\n"
            "# site-packages, not the base's), found by the same finder. One that\n"
            "# fails to load or raises is one line on stderr.\n"
            "def _nccl_chain(here):\n"
            "    import os, sys\n"
            "    where = 'after ' + here\n"
            "    try:\n"
            "        # the import system's own, loaded at start-up\n"
            "        from _frozen_importlib_external import PathFinder\n"
            "        from _frozen_importlib import module_from_spec\n"
            "        here = os.path.dirname(os.path.abspath(here))\n"
            "        path = sys.path\n"
            "        for i, p in enumerate(path):\n"
            "            if os.path.abspath(p or '.') == here:\n"
            "                break\n"
            "        else:\n"
            "            return  # not imported from sys.path: none would have run\n"
            "        spec = PathFinder.find_spec('sitecustomize', path[i + 1:])\n"
            "        if spec is None or spec.loader is None or spec.origin is None:\n"
            "            return  # none (or a namespace package, which runs nothing)\n"
            "        where = spec.origin\n"
            "        spec.loader.exec_module(module_from_spec(spec))\n"
            "    except Exception as e:\n"
            "        try:\n"
            "            sys.stderr.write('nccl-init hook: chained sitecustomize %s: %s: %s\\n'\n"
            "                             % (where, type(e).__name__, e))\n"
            "        except Exception:\n"
            "            pass\n"
            "_nccl_chain(__file__)\n"
            "del _nccl_chain\n");
    buf_str(b, "del _nccl_init\n");
}

void sink_skip_warn(const char *sink, const char *key, const char *why)
{
    log_warn("sink %s: %s left out: %s", sink, key, why);
}
