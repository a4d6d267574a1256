/* nccl-probe: which auto.rules file applies, what the rules see, and the
 * suggest command. The rules themselves are nccl-init detect's engine, and
 * the choice is printed by detect's own function (init/hw/, linked in), so
 * that the probe can neither pick nor say otherwise. */
#include "probe.h"
#include "lib/buf.h"
#include "lib/mem.h"

/* ---------------------------------------------------------------- auto.rules */

/* What the rules see: detect's scan under root, for the NVSwitches and NUMA
 * nodes that CUDA does not show, with the GPUs that CUDA (or --gpu) names
 * in place of the driver's list: CUDA's are the ones the server will use.
 * A model keeps what fits detect's field, as detect's own does. */
void probe_node(struct hardware *h, const char *root, char *const *models, int n)
{
    detect_hardware(h, root);
    xfree(h->gpus);
    h->gpus = xcalloc((size_t)n, sizeof *h->gpus);
    for (int i = 0; i < n; i++) {
        struct buf m = BUF_FIXED(h->gpus[i].model);
        buf_str(&m, models[i]);
        h->gpus[i].numa = -1;
    }
    h->ngpus = h->found = (size_t)n;
    h->source = "cuda";
}

/* Where the rules file may be, in order: the installed one (under --root),
 * the repository's from the working directory, and the one beside the
 * binary (build/nccl-probe -> profiles/auto.rules). Empty: no such place. */
static void rules_candidates(struct buf out[3], const char *root)
{
    buf_printf(&out[0], "%s%s", root, DEFAULT_RULES);
    buf_str(&out[1], "profiles/auto.rules");
    char exe[PATH_MAX];
    ssize_t l = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (l <= 0)
        return;
    exe[l] = '\0';
    char *slash = strrchr(exe, '/');
    if (!slash)
        return;
    *slash = '\0';
    buf_printf(&out[2], "%s/../profiles/auto.rules", exe);
}

/* The rules file in effect: --rules, else the first candidate that reads.
 * Sets c->rules to the file read and returns its text; with none readable,
 * c->rules is the installed one, c->reason says why, and the text is NULL. */
static char *read_rules(struct choice *c, const char *given, const char *root)
{
    char *text = NULL;
    if (given) {
        int r = detect_read_rules(given, &text);
        if (r < 0)
            usage_error("--rules %s: %s", given, strerror(-r));
        c->rules = xstrdup(given);
        return text;
    }
    struct buf cand[3] = { { 0 }, { 0 }, { 0 } };
    rules_candidates(cand, root);
    int r = -ENOENT;
    for (int i = 0; i < 3 && !c->rules; i++)
        if (cand[i].len && (r = detect_read_rules(cand[i].data, &text)) == 0)
            c->rules = xstrdup(cand[i].data);
    if (!c->rules) {
        struct buf why = { 0 };
        buf_printf(&why, "no rules file: %s", strerror(-r));
        c->rules = xstrdup(cand[0].data);
        c->reason = why.data;
    }
    for (int i = 0; i < 3; i++)
        buf_free(&cand[i]);
    return text;
}

/* The first rule that holds for h, as nccl-init detect picks it. */
void choose(struct choice *c, const struct hardware *h, const char *given, const char *root)
{
    memset(c, 0, sizeof *c);
    char *text = read_rules(c, given, root);
    if (!text)
        return;
    struct diag d = { 0 }; /* bad lines: warnings on stderr, as detect's */
    detect_apply(c, h, text, &d, DIAG_WARNING);
    xfree(text);
}

/* "profile:    NAME (REASON; FILE:LINE)": detect's own line. */
void print_choice(const struct choice *c)
{
    struct buf b = { 0 };
    detect_print_choice(&b, c, false);
    print_buf(&b);
}

/* The end of topo's and suggest's JSON: what the rules saw besides the
 * GPUs, and detect's members for the choice. */
void json_choice(const struct hardware *h, const struct choice *c)
{
    printf("  \"nvswitches\": %u,\n  \"numa_nodes\": %u,\n", h->nvswitches, h->numa_nodes);
    struct buf b = { 0 };
    detect_print_choice(&b, c, true);
    buf_str(&b, "}\n");
    print_buf(&b);
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
    char **models = xcalloc((size_t)argc, sizeof(char *));
    int ngpus = 0;
    for (int i = 2; i < argc; i++) {
        if (rule_option(&o, argc, argv, &i))
            continue;
        if (strcmp(argv[i], "--gpu") == 0 && i + 1 < argc)
            models[ngpus++] = argv[++i];
        else
            usage_error("suggest: unknown argument '%s'", argv[i]);
    }
    struct hardware h;
    probe_node(&h, o.root, models, ngpus);
    struct choice c;
    choose(&c, &h, o.rules, o.root);
    if (o.json) {
        printf("{\n  \"gpus\": %zu,\n", h.ngpus);
        json_choice(&h, &c);
    } else {
        printf("gpus:       %zu\nnvswitches: %u\nnuma nodes: %u\n", h.ngpus, h.nvswitches,
               h.numa_nodes);
        print_choice(&c);
    }
    return 0;
}
