/* The verbs. Each returns the process exit code. */
#ifndef NCCL_INIT_COMMANDS_H
#define NCCL_INIT_COMMANDS_H

#include "cli.h"
#include "pid1/signals.h"

int cmd_check(const struct options *o);
int cmd_render(const struct options *o);
int cmd_run(const struct options *o, const struct inherited_signals *sig);
int cmd_verify(const struct options *o);
int cmd_detect(const struct options *o);
int cmd_remove(const struct options *o);
int cmd_install(const struct options *o);

#endif
