/* nccl-init: dispatch only. */
#include "cli.h"
#include "commands.h"
#include "lib/log.h"
#include "pid1/relro.h"
#include "pid1/signals.h"

#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    /* Before anything that can take time: see signals_take_over. */
    struct inherited_signals sig;
    signals_take_over(&sig);
    int err = relro_seal();
    if (err < 0) {
        log_error("cannot make the relocated data read-only: %s", strerror(-err));
        return 1;
    }

    struct options o;
    cli_parse(argc, argv, &o);
    if (o.verb != VERB_RUN)
        signals_restore(&sig);

    switch (o.verb) {
    case VERB_HELP:
        cli_usage();
        return 0;
    case VERB_VERSION:
        cli_version();
        return 0;
    case VERB_CHECK:
        return cmd_check(&o);
    case VERB_RENDER:
        return cmd_render(&o);
    case VERB_RUN:
        return cmd_run(&o, &sig);
    case VERB_VERIFY:
        return cmd_verify(&o);
    case VERB_DETECT:
        return cmd_detect(&o);
    case VERB_REMOVE:
        return cmd_remove(&o);
    case VERB_INSTALL:
        return cmd_install(&o);
    }
    return EXIT_USAGE;
}
