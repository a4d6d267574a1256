#include "cli.h"

#include "lib/log.h"
#include "pid1/signals.h"
#include "sinks/sinks.h"
#include "lib/fileio.h"
#include "lib/mem.h"
#include "lib/paths.h"
#include "lib/text.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef NCCL_INIT_VERSION
#define NCCL_INIT_VERSION "0.1.0"
#endif

static const char *const verbs[] = {
    [VERB_CHECK] = "check", [VERB_RENDER] = "render", [VERB_VERIFY] = "verify",
    [VERB_DETECT] = "detect", [VERB_REMOVE] = "remove", [VERB_INSTALL] = "install",
    [VERB_HELP] = "help",
    [VERB_VERSION] = "version",
};

enum {
    O_PROFILE, O_PROFILE_DIR, O_ROOT, O_NCCL_LIB, O_NCCL_VERSION, O_FORMAT, O_ENFORCE, O_CAP_DROP, O_CAP_ADD,
    O_NO_NEW_PRIVS, O_SINKS, O_STRICT, O_PYTHON, O_SIGNAL_CHILD, O_SIGNAL_GROUP, O_REWRITE, O_GRACE,
    O_CLEANUP, O_KILL_EXIT_CODE, O_JSON, O_ALL, O_PID, O_VERBOSE, O_QUIET, O_HELP, O_VERSION,
};

#define RUN (1 << VERB_RUN)
#define CHECK (1 << VERB_CHECK)
#define RENDER (1 << VERB_RENDER)
#define VERIFY (1 << VERB_VERIFY)
#define DETECT (1 << VERB_DETECT)
#define REMOVE (1 << VERB_REMOVE)
#define INSTALL (1 << VERB_INSTALL)
#define ANY 0xffff

/* Which verbs take each option: an option given to another verb is a usage
 * error rather than silently ignored. */
static const struct optdef {
    const char *name;
    char shortname;
    unsigned char id, takes_value;
    unsigned short verbs; /* 1 << enum verb */
} optdefs[] = {
    { "profile", 'p', O_PROFILE, 1, RUN | RENDER },
    { "profile-dir", 0, O_PROFILE_DIR, 1, RUN | CHECK | RENDER | DETECT },
    { "root", 0, O_ROOT, 1, RUN | CHECK | RENDER | VERIFY | DETECT | REMOVE | INSTALL },
    { "nccl-lib", 0, O_NCCL_LIB, 1, RUN | CHECK | RENDER },
    { "nccl-version", 0, O_NCCL_VERSION, 1, RUN | CHECK | RENDER },
    { "format", 0, O_FORMAT, 1, RENDER },
    { "enforce", 0, O_ENFORCE, 0, RUN | RENDER },
    { "cap-drop", 0, O_CAP_DROP, 1, RUN },
    { "cap-add", 0, O_CAP_ADD, 1, RUN },
    { "no-new-privs", 0, O_NO_NEW_PRIVS, 0, RUN },
    { "sinks", 0, O_SINKS, 1, RUN },
    { "strict", 0, O_STRICT, 0, RUN },
    { "python", 0, O_PYTHON, 1, RUN | INSTALL },
    { "signal-child", 0, O_SIGNAL_CHILD, 0, RUN }, /* the default; kept for old command lines */
    { "signal-group", 'g', O_SIGNAL_GROUP, 0, RUN },
    { "rewrite", 0, O_REWRITE, 1, RUN },
    { "grace", 0, O_GRACE, 1, RUN },
    { "cleanup", 0, O_CLEANUP, 1, RUN },
    { "kill-exit-code", 0, O_KILL_EXIT_CODE, 1, RUN },
    { "json", 0, O_JSON, 0, CHECK | VERIFY | DETECT },
    { "all", 0, O_ALL, 0, RENDER | VERIFY },
    { "pid", 0, O_PID, 1, VERIFY },
    { "verbose", 'v', O_VERBOSE, 0, ANY },
    { "quiet", 'q', O_QUIET, 0, ANY },
    { "help", 'h', O_HELP, 0, ANY },
    { "version", 0, O_VERSION, 0, ANY },
};

/* Room for one more element in a list of n: the capacity doubles, so a list
 * is built at linear cost. It is the smallest power of two >= n, which n
 * alone says: the lists need no capacity field. */
static void *room(void *v, size_t n, size_t size)
{
    return n & (n - 1) ? v : xrealloc(v, (n ? 2 * n : 1) * size);
}

static void push(const char ***v, size_t *n, const char *s)
{
    *v = room(*v, *n, sizeof **v);
    (*v)[(*n)++] = s;
}

/* No real layering comes near it: more is a generated list gone wrong,
 * refused before anything is loaded, started or written. */
#define MAX_PROFILES 64

/* NCCL_INIT_PROFILE holds a comma list, as it does in the child's
 * environment: "a,b" layers b over a. Empty elements are skipped. A list
 * of any length is split at linear cost (push), then judged by its count:
 * the variable is at most 128 KiB (MAX_ARG_STRLEN). */
static void profiles_from_env(struct options *o, const char *s)
{
    for (;;) {
        const char *c = strchr(s, ',');
        size_t n = c ? (size_t)(c - s) : strlen(s);
        if (n)
            push(&o->profiles, &o->nprofiles, xstrndup(s, n));
        if (!c)
            return;
        s = c + 1;
    }
}

/* --rewrite FROM:TO; TO 0 drops FROM. */
static void parse_rewrite(struct options *o, const char *arg)
{
    const char *colon = strchr(arg, ':');
    char *from = colon ? xstrndup(arg, (size_t)(colon - arg)) : NULL;
    int f = from ? signal_parse(from) : -1, t = colon ? signal_parse(colon + 1) : -1;
    xfree(from);
    if (f <= 0 || t < 0 || f == SIGKILL || f == SIGSTOP || f == SIGCHLD)
        die(EXIT_USAGE, "--rewrite %s: expected FROM:TO, signal names or numbers (TO 0 drops; "
                        "KILL, STOP and CHLD cannot be rewritten)", arg);
    o->stop.rewrite[f] = (signed char)t;
}

/* "8", "0.5", ".25", "2." seconds -> milliseconds, at most 86400 s; from
 * says where the value came from ("--grace ", "NCCL_INIT_GRACE="). At least
 * one digit; a value above 0 that would be 0 ms is refused rather than
 * rounded, as 0 would make the grace 0 or switch the cleanup stage off. */
static unsigned parse_seconds(const char *arg, const char *from)
{
    unsigned long long ms = 0;
    bool digits = false, nonzero = false;
    const char *s = arg;
    for (; *s >= '0' && *s <= '9' && ms < 100000000; s++, digits = true)
        ms = ms * 10 + (unsigned)(*s - '0');
    ms *= 1000;
    if (*s == '.')
        for (unsigned scale = 100; *++s >= '0' && *s <= '9'; scale /= 10, digits = true) {
            ms += (unsigned)(*s - '0') * scale;
            nonzero = nonzero || *s != '0';
        }
    if (*s || !digits || ms > 86400000ULL)
        die(EXIT_USAGE, "%s%s: expected seconds, up to 86400", from, arg);
    if (ms == 0 && nonzero)
        die(EXIT_USAGE, "%s%s: under 1 ms, which would be 0; give 0, or at least 0.001", from, arg);
    return (unsigned)ms;
}

static void apply(struct options *o, const struct optdef *d, const char *arg, const char *as)
{
    if (!(d->verbs & (1u << o->verb)))
        die(EXIT_USAGE, "option '%s' does not apply to %s", as,
            o->verb == VERB_RUN ? "run mode" : verbs[o->verb]);
    switch (d->id) {
    case O_PROFILE: push(&o->profiles, &o->nprofiles, arg); break;
    case O_PROFILE_DIR: o->profile_dir = arg; break;
    case O_ROOT: o->root = arg; break;
    case O_NCCL_LIB: o->nccl_lib = arg; break;
    case O_NCCL_VERSION: o->nccl_version = arg; break;
    case O_FORMAT:
        if (strcmp(arg, "env") && strcmp(arg, "json") && strcmp(arg, "etc-environment") &&
            strcmp(arg, "python") && strcmp(arg, "nccl-conf"))
            die(EXIT_USAGE,
                "--format %s: expected env, json, etc-environment, python or nccl-conf", arg);
        o->format = arg;
        break;
    case O_ENFORCE: o->enforce = true; break;
    case O_CAP_DROP: push(&o->cap_drop, &o->ncap_drop, arg); break;
    case O_CAP_ADD: push(&o->cap_add, &o->ncap_add, arg); break;
    case O_NO_NEW_PRIVS: o->no_new_privs = true; break;
    case O_SINKS: {
        const char *bad;
        size_t n;
        if (sinks_parse(arg, &o->sinks, &bad, &n) < 0)
            die(EXIT_USAGE, "--sinks: unknown sink '%.*s' (expected etc-environment, python, "
                            "nccl-conf, record, all or none)", (int)n, bad);
        break;
    }
    case O_STRICT: o->strict = true; break;
    case O_PYTHON: push(&o->python, &o->npython, arg); break;
    case O_SIGNAL_CHILD: o->stop.signal_group = false; break;
    case O_SIGNAL_GROUP: o->stop.signal_group = true; break;
    case O_JSON: o->json = true; break;
    case O_ALL: o->all = true; break;
    case O_PID: {
        long long n;
        if (!parse_c_integer(arg, &n) || n <= 0 || strspn(arg, "0123456789") != strlen(arg))
            die(EXIT_USAGE, "--pid %s: expected a process id", arg);
        o->pids = room(o->pids, o->npids, sizeof *o->pids);
        o->pids[o->npids++] = (pid_t)n;
        break;
    }
    case O_REWRITE: parse_rewrite(o, arg); break;
    case O_GRACE:
        o->stop.grace_ms = parse_seconds(arg, "--grace ");
        o->grace_given = true;
        break;
    case O_CLEANUP:
        o->stop.cleanup_ms = parse_seconds(arg, "--cleanup ");
        o->cleanup_from = "--cleanup ";
        o->cleanup_text = arg;
        break;
    case O_KILL_EXIT_CODE: {
        long long n;
        if (!parse_c_integer(arg, &n) || strspn(arg, "0123456789") != strlen(arg) || n > 255)
            die(EXIT_USAGE, "--kill-exit-code %s: expected 0..255", arg);
        o->stop.kill_exit_code = (int)n;
        break;
    }
    case O_VERBOSE: if (log_level < LOG_DEBUG) log_level++; break;
    case O_QUIET: if (log_level > LOG_ERROR) log_level--; break;
    case O_HELP: o->verb = VERB_HELP; break;
    case O_VERSION: o->verb = VERB_VERSION; break;
    }
}

static const struct optdef *find_long(const char *name, size_t n)
{
    for (size_t i = 0; i < ARRAY_SIZE(optdefs); i++)
        if (strlen(optdefs[i].name) == n && strncmp(optdefs[i].name, name, n) == 0)
            return &optdefs[i];
    return NULL;
}

static const struct optdef *find_short(char c)
{
    for (size_t i = 0; i < ARRAY_SIZE(optdefs); i++)
        if (optdefs[i].shortname == c)
            return &optdefs[i];
    return NULL;
}

/* The verb, when it is exactly the first argument: anything else,
 * including a command called "check" after an option or after "--", is
 * run. Returns the index of the first argument after it. */
static int parse_verb(int argc, char **argv, struct options *o)
{
    if (argc < 2)
        return 1;
    for (int v = VERB_CHECK; v <= VERB_VERSION; v++)
        if (strcmp(argv[1], verbs[v]) == 0) {
            o->verb = v;
            return 2;
        }
    /* A first argument within two edits of a verb is a typo, not a
     * command: run mode would write the system files before finding out
     * that "chekc" does not exist. A command of such a name goes after --. */
    if (argv[1][0] != '-')
        for (int v = VERB_CHECK; v <= VERB_VERSION; v++)
            if (edit_distance(argv[1], verbs[v]) <= 2)
                die(EXIT_USAGE, "'%s' is not a verb: did you mean '%s'? (a command of that name "
                                "goes after --: nccl-init -- %s)", argv[1], verbs[v], argv[1]);
    return 1;
}

/* An image's ENTRYPOINT ends in "--", so a pod's args cannot carry
 * options: the log level, and for run mode the stop's times, can come from
 * the environment. The log level is read first, so that -v and -q move
 * from it. */
static void parse_log_environment(void)
{
    const char *lvl = getenv("NCCL_INIT_LOG");
    if (lvl && *lvl) {
        int l = log_level_parse(lvl);
        if (l < 0)
            die(EXIT_USAGE, "NCCL_INIT_LOG=%s: expected error, warn, info or debug", lvl);
        log_level = l;
    }
}

/* The stop's times, read after the options (an option wins, and its
 * variable is then not read) and by run mode alone: a verb run by docker
 * exec shares the container's environment and has no stop, so a bad value
 * there must not break it. */
static void parse_stop_environment(struct options *o)
{
    const char *grace = getenv("NCCL_INIT_GRACE");
    if (grace && *grace && !o->grace_given)
        o->stop.grace_ms = parse_seconds(grace, "NCCL_INIT_GRACE=");
    const char *cleanup = getenv("NCCL_INIT_CLEANUP");
    if (cleanup && *cleanup && !o->cleanup_from) {
        o->stop.cleanup_ms = parse_seconds(cleanup, "NCCL_INIT_CLEANUP=");
        o->cleanup_from = "NCCL_INIT_CLEANUP=";
        o->cleanup_text = cleanup;
    }
}

/* "--name", "--name=value" or "--name value" at argv[*i]; *i moves past
 * a value taken from the next argument. */
static void parse_long(struct options *o, int argc, char **argv, int *i)
{
    const char *a = argv[*i], *name = a + 2, *eq = strchr(name, '=');
    const struct optdef *d = find_long(name, eq ? (size_t)(eq - name) : strlen(name));
    if (!d)
        die(EXIT_USAGE, "unknown option '%s' (see --help)", a);
    const char *arg = NULL;
    if (d->takes_value) {
        arg = eq ? eq + 1 : (*i + 1 < argc ? argv[++*i] : NULL);
        if (!arg)
            die(EXIT_USAGE, "option '--%s' needs a value", d->name);
    } else if (eq) {
        die(EXIT_USAGE, "option '--%s' takes no value", d->name);
    }
    apply(o, d, arg, a);
}

/* "-qv", "-pNAME" or "-p NAME" at argv[*i]; *i moves past a value taken
 * from the next argument. */
static void parse_short(struct options *o, int argc, char **argv, int *i)
{
    for (const char *c = argv[*i] + 1; *c; c++) {
        const struct optdef *d = find_short(*c);
        if (!d)
            die(EXIT_USAGE, "unknown option '-%c' (see --help)", *c);
        char as[3] = { '-', *c, '\0' };
        if (!d->takes_value) {
            apply(o, d, NULL, as);
            continue;
        }
        const char *arg = c[1] ? c + 1 : (*i + 1 < argc ? argv[++*i] : NULL);
        if (!arg)
            die(EXIT_USAGE, "option '-%c' needs a value", *c);
        apply(o, d, arg, as);
        return;
    }
}

/* The options from argv[i] on, and the operands into o->operands
 * (NULL-terminated, as execve wants its argv). */
static void parse_arguments(struct options *o, int argc, char **argv, int i)
{
    const char **operands = NULL;
    size_t nops = 0;
    for (; i < argc; i++) {
        char *a = argv[i];
        if (strcmp(a, "--") == 0) {
            i++;
            break;
        }
        if (a[0] != '-' || a[1] == '\0') {
            /* Run mode stops at the command, so that its options stay its own. */
            if (o->verb == VERB_RUN)
                break;
            push(&operands, &nops, a);
        } else if (a[1] == '-') {
            parse_long(o, argc, argv, &i);
        } else {
            parse_short(o, argc, argv, &i);
        }
    }
    for (; i < argc; i++)
        push(&operands, &nops, argv[i]);
    push(&operands, &nops, NULL);
    o->operands = (char **)operands;
    o->noperands = nops - 1;
}

/* What the verb needs once everything is read: its profiles (-p applies
 * to run and render only; the environment's list is read when no -p was
 * given) and its operands. */
static void check_complete(struct options *o)
{
    const char *from = "-p/--profile";
    if (o->nprofiles == 0 && (o->verb == VERB_RUN || o->verb == VERB_RENDER)) {
        const char *env = getenv("NCCL_INIT_PROFILE");
        profiles_from_env(o, env && *env ? env : "auto");
        from = "NCCL_INIT_PROFILE";
    }
    if (o->nprofiles > MAX_PROFILES)
        die(EXIT_USAGE, "%s: %zu profiles; the limit is %d", from, o->nprofiles, MAX_PROFILES);
    if (o->verb == VERB_RUN && o->noperands == 0)
        die(EXIT_USAGE, "no command given (usage: nccl-init [OPTIONS] [--] COMMAND [ARGS...])");
    if (o->verb == VERB_CHECK && o->noperands == 0)
        die(EXIT_USAGE, "check: no profile given (usage: nccl-init check FILE|NAME...)");
    if (o->verb >= VERB_RENDER && o->noperands) /* render, verify, detect, remove, install */
        die(EXIT_USAGE, "%s: unexpected argument '%s'", verbs[o->verb], o->operands[0]);
    if (o->verb == VERB_RENDER && o->all && o->format && strcmp(o->format, "env") &&
        strcmp(o->format, "json"))
        die(EXIT_USAGE, "--all: only --format env and json print the environment; the other "
                        "formats are what a sink writes");
}

/* The cleanup stage must come before the deadline, or not at all: a window
 * as long as the grace would SIGTERM the tree together with the main child,
 * which is what -g is for. Checked once both values are known, wherever
 * each came from. */
static void check_cleanup(const struct options *o)
{
    const struct stop_policy *p = &o->stop;
    if (p->cleanup_ms > 0 && (unsigned long)p->cleanup_ms >= p->grace_ms)
        die(EXIT_USAGE, "%s%s: the cleanup window must be shorter than the grace of %u ms, or 0 "
            "for no cleanup stage", o->cleanup_from, o->cleanup_text, p->grace_ms);
}

void cli_parse(int argc, char **argv, struct options *o)
{
    memset(o, 0, sizeof *o);
    o->sinks = SINK_ALL;
    stop_policy_init(&o->stop);
    int i = parse_verb(argc, argv, o);
    parse_log_environment();
    parse_arguments(o, argc, argv, i);
    if (o->verb == VERB_RUN)
        parse_stop_environment(o);
    if (o->verb != VERB_HELP && o->verb != VERB_VERSION)
        check_complete(o);
    if (o->verb == VERB_RUN)
        check_cleanup(o);
}

char *cli_profile_dir(const struct options *o)
{
    if (o->profile_dir)
        return xstrdup(o->profile_dir);
    return o->root ? path_join(o->root, PROFILE_DIR_DEFAULT) : xstrdup(PROFILE_DIR_DEFAULT);
}

void cli_usage(void)
{
    static const char usage[] =
        "usage: nccl-init [OPTIONS] [--] COMMAND [ARGS...]\n"
        "       nccl-init check|render|verify|detect|remove|install|help|version [OPTIONS]\n"
        "run:    -p NAME|PATH|auto (repeatable; default $NCCL_INIT_PROFILE, else auto)\n"
        "        --profile-dir DIR (" PROFILE_DIR_DEFAULT ")  --root DIR  --enforce\n"
        "        --sinks etc-environment,python,nccl-conf,record|all|none  --strict\n"
        "        --python PY  --grace SECONDS (8; or NCCL_INIT_GRACE)  -g|--signal-group\n"
        "        --cleanup SECONDS (2 or a quarter of the grace; or NCCL_INIT_CLEANUP)\n"
        "        --rewrite FROM:TO\n"
        "        --kill-exit-code N  --cap-drop CAPS  --cap-add CAPS  --no-new-privs\n"
        "        --nccl-lib LIBNCCL  --nccl-version X.Y.Z (the release whose rules apply;\n"
        "        default every known one)  -v  -q (or NCCL_INIT_LOG=error|warn|info|debug)\n"
        "check:  [--nccl-lib LIBNCCL | --nccl-version X.Y.Z] [--json] FILE|NAME...\n"
        "render: [-p PROFILE]... [--enforce] [--format env|json|etc-environment|python|nccl-conf]\n"
        "        [--all] (the whole environment, not only the resolved set)\n"
        "verify: [--json] [--all] [--pid PID]...\n"
        "detect: [--json]\n"
        "remove: [--root DIR]\n"
        "install: [--root DIR] [--python PY]... (the Python hook and the env plugin's link)\n"
        "Exit: the command's status, 128+N when signal N killed it, 127 not found,\n"
        "126 not executable, 2 bad usage or profile (nothing started). See nccl-init(1).\n";
    write_all(STDOUT_FILENO, usage, sizeof usage - 1);
}

void cli_version(void)
{
    static const char v[] = "nccl-init " NCCL_INIT_VERSION "\n";
    write_all(STDOUT_FILENO, v, sizeof v - 1);
}
