/* Which NCCL variables bypass an env plugin. Pure data (plugin_keys.c). */
#ifndef NCCL_INIT_PLUGIN_KEYS_H
#define NCCL_INIT_PLUGIN_KEYS_H

#include <stdbool.h>

/* Whether NCCL reads key before its env plugin is loaded, with the C
 * library's getenv: then the plugin never answers for it, and only the
 * environment, the Python hook and nccl.conf can carry it. */
bool nccl_read_before_plugin(const char *key);

#endif
