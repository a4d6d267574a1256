/* nccl-probe: auto.rules: the same choice as nccl-init detect, and the suggest command. */
#include "probe.h"

/* ---------------------------------------------------------------- auto.rules */


static unsigned long sysfs_hex(const char *root, const char *dev, const char *name)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/sys/bus/pci/devices/%s/%s", root, dev, name);
    char *t = slurp(path);
    unsigned long v = (unsigned long)-1;
    if (t) {
        char *end;
        errno = 0;
        unsigned long x = strtoul(t, &end, 0);
        if (!errno && end != t)
            v = x;
        free(t);
    }
    return v;
}

void scan_sysfs(struct node *n, const char *root)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/sys/bus/pci/devices", root);
    DIR *d = opendir(path);
    struct dirent *e;
    while (d && (e = readdir(d))) {
        if (e->d_name[0] == '.' || sysfs_hex(root, e->d_name, "vendor") != 0x10de)
            continue;
        unsigned long cls = sysfs_hex(root, e->d_name, "class");
        if (cls != (unsigned long)-1 && (cls >> 8) == 0x0680)
            n->nvswitches++;
    }
    if (d)
        closedir(d);
    snprintf(path, sizeof path, "%s/sys/devices/system/node", root);
    d = opendir(path);
    while (d && (e = readdir(d)))
        if (strncmp(e->d_name, "node", 4) == 0 && isdigit((unsigned char)e->d_name[4]))
            n->numa_nodes++;
    if (d)
        closedir(d);
}

/* detect's integer syntax: a C literal (8, 0x8, 010) at the start of a
 * non-empty argument; what follows it is ignored, as detect ignores it. */
static bool rule_int(const char *s, long long *v)
{
    errno = 0;
    *v = strtoll(s, NULL, 0);
    return *s && !errno;
}

/* A whole integer, nothing after it. */
bool whole_int(const char *s, long long *v)
{
    char *end;
    errno = 0;
    *v = strtoll(s, &end, 0);
    return *s && end != s && !errno && !*end;
}

/* One condition: 1 holds, 0 does not, -1 not understood. */
static int condition(const struct node *n, const char *c)
{
    if (strcmp(c, "*") == 0)
        return 1;
    size_t k = strcspn(c, "=<>~");
    if (!c[k])
        return -1;
    char op[3] = { c[k], 0, 0 };
    const char *arg = c + k + 1;
    if (*arg == '=' && (op[0] == '<' || op[0] == '>'))
        op[1] = *arg++;
    if (op[0] == '~') {
        if (k != 5 || strncmp(c, "model", 5) != 0)
            return -1;
        /* every visible GPU's model contains arg, any case; none: false */
        if (n->ngpus == 0)
            return 0;
        size_t al = strlen(arg);
        for (int i = 0; i < n->ngpus; i++) {
            bool found = false;
            for (const char *m = n->models[i]; *m && !found; m++)
                found = strncasecmp(m, arg, al) == 0;
            if (!found)
                return 0;
        }
        return 1;
    }
    unsigned long long have;
    long long want;
    if (k == 4 && strncmp(c, "gpus", 4) == 0)
        have = (unsigned long long)n->ngpus;
    else if (k == 10 && strncmp(c, "nvswitches", 10) == 0)
        have = n->nvswitches;
    else if (k == 4 && strncmp(c, "numa", 4) == 0)
        have = n->numa_nodes;
    else
        return -1;
    if (!rule_int(arg, &want))
        return -1;
    unsigned long long w = (unsigned long long)want; /* compared as detect does */
    if (strcmp(op, "=") == 0)
        return have == w;
    if (strcmp(op, ">=") == 0)
        return have >= w;
    if (strcmp(op, "<=") == 0)
        return have <= w;
    if (strcmp(op, ">") == 0)
        return have > w;
    if (strcmp(op, "<") == 0)
        return have < w;
    return -1;
}


/* The rules file in effect: --rules, the installed one (under --root), the
 * repository's from the working directory, or the one beside the binary
 * (build/nccl-probe -> profiles/auto.rules). NULL text: none readable. */
static char *read_rules(const char *given, const char *root, char *path, size_t size)
{
    if (given) {
        snprintf(path, size, "%s", given);
        char *t = slurp(path);
        if (!t)
            usage_error("--rules %s: %s", given, strerror(errno));
        return t;
    }
    char candidates[3][PATH_MAX];
    snprintf(candidates[0], PATH_MAX, "%s%s", root, DEFAULT_RULES);
    snprintf(candidates[1], PATH_MAX, "profiles/auto.rules");
    candidates[2][0] = '\0';
    char exe[PATH_MAX];
    ssize_t l = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (l > 0) {
        exe[l] = '\0';
        char *slash = strrchr(exe, '/');
        if (slash) {
            *slash = '\0';
            snprintf(candidates[2], PATH_MAX, "%.*s/../profiles/auto.rules", PATH_MAX - 32, exe);
        }
    }
    for (int i = 0; i < 3; i++) {
        if (!candidates[i][0])
            continue;
        char *t = slurp(candidates[i]);
        if (t) {
            size_t cl = strnlen(candidates[i], size - 1);
            memcpy(path, candidates[i], cl);
            path[cl] = '\0';
            return t;
        }
    }
    snprintf(path, size, "%s", candidates[0]);
    return NULL;
}

/* The first line whose conditions all hold, as nccl-init detect reads it. */
void choose(struct choice *c, const struct node *n, const char *given, const char *root)
{
    memset(c, 0, sizeof *c);
    char *text = read_rules(given, root, c->rules, sizeof c->rules);
    if (!text) {
        snprintf(c->profile, sizeof c->profile, "none");
        snprintf(c->reason, sizeof c->reason, "no rules file: %s", strerror(errno));
        return;
    }
    unsigned line = 0;
    for (char *s = text, *next; s && *s; s = next) {
        next = strchr(s, '\n');
        if (next)
            *next++ = '\0';
        line++;
        if (s[0] == '#' || !*s)
            continue;
        char *arrow = strstr(s, "->");
        if (!arrow) {
            fprintf(stderr, "nccl-probe: %s:%u: expected CONDITIONS -> PROFILE: REASON\n",
                    c->rules, line);
            continue;
        }
        *arrow = '\0';
        int holds = 1;
        for (char *tok = strtok(s, " \t"); tok; tok = strtok(NULL, " \t")) {
            int r = condition(n, tok);
            if (r < 0) {
                fprintf(stderr, "nccl-probe: %s:%u: unknown condition '%s'\n", c->rules, line, tok);
                holds = 0;
                break;
            }
            holds &= r;
        }
        if (!holds)
            continue;
        char *prof = arrow + 2 + strspn(arrow + 2, " \t");
        size_t pl = strcspn(prof, ": \t");
        char *why = prof + pl + strspn(prof + pl, ": \t");
        snprintf(c->profile, sizeof c->profile, "%.*s", (int)pl, prof);
        snprintf(c->reason, sizeof c->reason, "%s", why);
        c->line = line;
        break;
    }
    if (!c->line) {
        snprintf(c->profile, sizeof c->profile, "none");
        snprintf(c->reason, sizeof c->reason, "no rule matched");
    }
    free(text);
}

/* "profile:    NAME (REASON; FILE:LINE)", the line nccl-init detect prints. */
void print_choice(const struct choice *c)
{
    if (c->line)
        printf("profile:    %s (%s; %s:%u)\n", c->profile, c->reason, c->rules, c->line);
    else
        printf("profile:    none (%s; %s)\n", c->reason, c->rules);
}

void json_choice(const struct node *n, const struct choice *c)
{
    printf("  \"nvswitches\": %u,\n  \"numa_nodes\": %u,\n  \"profile\": ", n->nvswitches,
           n->numa_nodes);
    json_str(c->profile);
    printf(",\n  \"reason\": ");
    json_str(c->reason);
    printf(",\n  \"rules\": ");
    json_str(c->rules);
    printf(",\n  \"rule_line\": %u\n}\n", c->line);
}


/* --rules, --root, --json; false: not one of them. */
bool rule_option(struct rule_opts *o, int argc, char **argv, int *i)
{
    const char *a = argv[*i];
    if (strcmp(a, "--json") == 0) {
        o->json = true;
        return true;
    }
    if (strcmp(a, "--rules") != 0 && strcmp(a, "--root") != 0)
        return false;
    if (*i + 1 >= argc)
        usage_error("%s needs a value", a);
    if (strcmp(a, "--rules") == 0)
        o->rules = argv[++*i];
    else
        o->root = argv[++*i];
    return true;
}

/* ---------------------------------------------------------------- suggest */

int cmd_suggest(int argc, char **argv)
{
    struct rule_opts o = { NULL, "", false };
    struct node n = { 0, xcalloc((size_t)argc, sizeof(char *)), 0, 0 };
    for (int i = 2; i < argc; i++) {
        if (rule_option(&o, argc, argv, &i))
            continue;
        if (strcmp(argv[i], "--gpu") == 0 && i + 1 < argc)
            n.models[n.ngpus++] = argv[++i];
        else
            usage_error("suggest: unknown argument '%s'", argv[i]);
    }
    scan_sysfs(&n, o.root);
    struct choice c;
    choose(&c, &n, o.rules, o.root);
    if (o.json) {
        printf("{\n  \"gpus\": %d,\n", n.ngpus);
        json_choice(&n, &c);
    } else {
        printf("gpus:       %d\nnvswitches: %u\nnuma nodes: %u\n", n.ngpus, n.nvswitches,
               n.numa_nodes);
        print_choice(&c);
    }
    return 0;
}
