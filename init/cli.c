#include "cli.h"

#include "log.h"
#include "util.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef NCCL_INIT_VERSION
#define NCCL_INIT_VERSION "0.1.0"
#endif

#define DEFAULT_PROFILE_DIR "/etc/nccl-init/profiles"

static const char *const verbs[] = {
    [VERB_CHECK] = "check", [VERB_RENDER] = "render", [VERB_VERIFY] = "verify",
    [VERB_DETECT] = "detect", [VERB_HELP] = "help",   [VERB_VERSION] = "version",
};

enum {
    O_PROFILE_DIR = 256, O_ROOT, O_NCCL_LIB, O_FORMAT, O_ENFORCE, O_CAP_DROP, O_CAP_ADD,
    O_NO_NEW_PRIVS, O_HELP, O_VERSION,
};

/* Which verbs take each option; an option given to another verb is a
 * usage error rather than silently ignored. */
#define FOR_RUN (1 << VERB_RUN)
#define FOR_CHECK (1 << VERB_CHECK)
#define FOR_RENDER (1 << VERB_RENDER)

static const struct option longopts[] = {
    { "profile", required_argument, NULL, 'p' },
    { "profile-dir", required_argument, NULL, O_PROFILE_DIR },
    { "root", required_argument, NULL, O_ROOT },
    { "nccl-lib", required_argument, NULL, O_NCCL_LIB },
    { "format", required_argument, NULL, O_FORMAT },
    { "enforce", no_argument, NULL, O_ENFORCE },
    { "cap-drop", required_argument, NULL, O_CAP_DROP },
    { "cap-add", required_argument, NULL, O_CAP_ADD },
    { "no-new-privs", no_argument, NULL, O_NO_NEW_PRIVS },
    { "verbose", no_argument, NULL, 'v' },
    { "quiet", no_argument, NULL, 'q' },
    { "help", no_argument, NULL, O_HELP },
    { "version", no_argument, NULL, O_VERSION },
    { NULL, 0, NULL, 0 },
};

static int allowed(int opt)
{
    switch (opt) {
    case 'p': case O_ENFORCE: return FOR_RUN | FOR_RENDER;
    case O_PROFILE_DIR: case O_ROOT: case O_NCCL_LIB: return FOR_RUN | FOR_CHECK | FOR_RENDER;
    case O_FORMAT: return FOR_RENDER;
    case O_CAP_DROP: case O_CAP_ADD: case O_NO_NEW_PRIVS: return FOR_RUN;
    default: return ~0;
    }
}

static void push(const char ***v, size_t *n, const char *s)
{
    *v = xrealloc(*v, (*n + 1) * sizeof **v);
    (*v)[(*n)++] = s;
}

/* NCCL_INIT_PROFILE holds a comma list, as NCCL_INIT_PROFILE in the
 * child's environment does: "a,b" layers b over a. */
static void profiles_from_env(struct options *o, const char *s)
{
    char *copy = xstrdup(s);
    for (char *tok = strtok(copy, ","); tok; tok = strtok(NULL, ","))
        push(&o->profiles, &o->nprofiles, tok);
}

void cli_parse(int argc, char **argv, struct options *o)
{
    memset(o, 0, sizeof *o);
    int first = 1;
    /* A verb only when it is exactly the first argument: anything else,
     * including a command that happens to be called "check" after an
     * option or after "--", is run. */
    if (argc > 1)
        for (int v = VERB_CHECK; v <= VERB_VERSION; v++)
            if (strcmp(argv[1], verbs[v]) == 0) {
                o->verb = v;
                first = 2;
            }
    const char *lvl = getenv("NCCL_INIT_LOG");
    if (lvl && *lvl) {
        int l = log_level_parse(lvl);
        if (l < 0)
            die(EXIT_USAGE, "NCCL_INIT_LOG=%s: expected error, warn, info or debug", lvl);
        log_level = l;
    }
    argv += first - 1;
    argc -= first - 1;
    optind = 1;
    opterr = 0;
    int c;
    /* '+': stop at the command, so that its own options stay its own. */
    while ((c = getopt_long(argc, argv, o->verb == VERB_RUN ? "+:p:vq" : ":p:vq", longopts,
                            NULL)) != -1) {
        if (c == '?')
            die(EXIT_USAGE, "unknown option '%s' (see --help)", argv[optind - 1]);
        if (c == ':')
            die(EXIT_USAGE, "option '%s' needs a value", argv[optind - 1]);
        if (!(allowed(c) & (1 << o->verb)))
            die(EXIT_USAGE, "option '%s' does not apply to %s", argv[optind - 1],
                o->verb == VERB_RUN ? "run mode" : verbs[o->verb]);
        switch (c) {
        case 'p': push(&o->profiles, &o->nprofiles, optarg); break;
        case O_PROFILE_DIR: o->profile_dir = optarg; break;
        case O_ROOT: o->root = optarg; break;
        case O_NCCL_LIB: o->nccl_lib = optarg; break;
        case O_FORMAT:
            if (strcmp(optarg, "env") && strcmp(optarg, "json"))
                die(EXIT_USAGE, "--format %s: expected env or json", optarg);
            o->format = optarg;
            break;
        case O_ENFORCE: o->enforce = true; break;
        case O_CAP_DROP: push(&o->cap_drop, &o->ncap_drop, optarg); break;
        case O_CAP_ADD: push(&o->cap_add, &o->ncap_add, optarg); break;
        case O_NO_NEW_PRIVS: o->no_new_privs = true; break;
        case 'v': if (log_level < LOG_DEBUG) log_level++; break;
        case 'q': if (log_level > LOG_ERROR) log_level--; break;
        case O_HELP: o->verb = VERB_HELP; break;
        case O_VERSION: o->verb = VERB_VERSION; break;
        }
    }
    o->operands = argv + optind;
    o->noperands = (size_t)(argc - optind);
    if (o->nprofiles == 0 && (o->verb == VERB_RUN || o->verb == VERB_RENDER)) {
        const char *env = getenv("NCCL_INIT_PROFILE");
        if (env && *env)
            profiles_from_env(o, env);
    }
    if (o->verb == VERB_RUN && o->noperands == 0)
        die(EXIT_USAGE, "no command given (usage: nccl-init [OPTIONS] [--] COMMAND [ARGS...])");
    if (o->verb == VERB_CHECK && o->noperands == 0)
        die(EXIT_USAGE, "check: no profile given (usage: nccl-init check FILE|NAME...)");
    if (o->verb == VERB_RENDER && o->noperands)
        die(EXIT_USAGE, "render: unexpected argument '%s'", o->operands[0]);
}

char *cli_profile_dir(const struct options *o)
{
    if (o->profile_dir)
        return xstrdup(o->profile_dir);
    return o->root ? path_join(o->root, DEFAULT_PROFILE_DIR) : xstrdup(DEFAULT_PROFILE_DIR);
}

void cli_usage(void)
{
    fputs("usage: nccl-init [OPTIONS] [--] COMMAND [ARGS...]\n"
          "       nccl-init check [--nccl-lib PATH] FILE|NAME...\n"
          "       nccl-init render [-p PROFILE]... [--enforce] [--format env|json]\n"
          "       nccl-init help | version\n"
          "\n"
          "Runs COMMAND with a validated NCCL profile as its canonical environment,\n"
          "forwarding signals and reaping zombies, and exits with its status.\n"
          "\n"
          "  -p, --profile NAME|PATH  profile to apply; repeatable, later ones win\n"
          "                           (default: $NCCL_INIT_PROFILE, a comma list)\n"
          "      --profile-dir DIR    where NAME.env is looked up\n"
          "                           (default: <root>" DEFAULT_PROFILE_DIR ")\n"
          "      --root DIR           prefix for the files nccl-init derives paths for\n"
          "      --enforce            profile values win over the environment\n"
          "      --nccl-lib PATH      take known NCCL_* names from this libnccl.so\n"
          "      --cap-drop LIST      drop capabilities (docker names, ALL) from the child\n"
          "      --cap-add LIST       keep or add capabilities for the child\n"
          "      --no-new-privs       set no_new_privs for the child\n"
          "  -v, --verbose / -q, --quiet   log more / less (or NCCL_INIT_LOG)\n"
          "      --help, --version\n"
          "\n"
          "Exit: COMMAND's status, 128+N if signal N killed it, 127 not found,\n"
          "126 not executable, 2 usage or invalid profile (nothing started).\n",
          stdout);
}

void cli_version(void) { puts("nccl-init " NCCL_INIT_VERSION); }
