/* nccl-init-tools: the verbs that inspect a running system, verify and
 * detect. nccl-init execs it for them, so that the PID 1 does not carry
 * code it never runs (and stays within its 64 KiB). */
#include "cli.h"
#include "detect.h"
#include "log.h"
#include "util.h"
#include "verify.h"

#include <unistd.h>

static int cmd_verify(const struct options *o)
{
    struct verify_options v = { o->root, o->json, o->all, o->pids, o->npids };
    return verify(&v);
}

static int cmd_detect(const struct options *o)
{
    struct hardware h = { 0 };
    struct choice c;
    char *dir = cli_profile_dir(o);
    detect_choose(&c, &h, dir, o->root);
    if (!c.rules || !h.source)
        detect_hardware(&h, o->root); /* report the hardware even without rules */
    struct buf b = { 0 };
    detect_print(&b, &h, &c, o->json);
    write_all(STDOUT_FILENO, b.data, b.len);
    return 0;
}

int main(int argc, char **argv)
{
    struct options o;
    cli_parse(argc, argv, &o);
    switch (o.verb) {
    case VERB_VERIFY:
        return cmd_verify(&o);
    case VERB_DETECT:
        return cmd_detect(&o);
    case VERB_HELP:
        cli_usage();
        return 0;
    case VERB_VERSION:
        cli_version();
        return 0;
    default:
        die(EXIT_USAGE, "nccl-init-tools does verify and detect; the rest is nccl-init's");
    }
}
