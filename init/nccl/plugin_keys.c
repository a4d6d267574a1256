/* NCCL 2.28.9 (and 2.30.7, the same code) reads every parameter through
 * ncclGetEnv(), which asks the env plugin, except these:
 *   NCCL_CONF_FILE: initEnvFunc() in src/misc/param.cc, with getenv,
 *     before any plugin is looked for;
 *   NCCL_ENV_PLUGIN: ncclEnvPluginLoad() in src/plugin/env.cc, with getenv,
 *     to find the plugin;
 *   NCCL_DEBUG and the rest of ncclDebugInit() in src/debug.cc: it uses
 *     getenv until ncclEnvPluginInitialized(), and it first runs at NCCL's
 *     first log line, which plugin loading itself prints. */
#include "nccl/plugin_keys.h"

#include <string.h>

static const char *const before_plugin[] = {
    "NCCL_CONF_FILE",
    "NCCL_DEBUG",
    "NCCL_DEBUG_FILE",
    "NCCL_DEBUG_SUBSYS",
    "NCCL_DEBUG_TIMESTAMP_FORMAT",
    "NCCL_DEBUG_TIMESTAMP_LEVELS",
    "NCCL_ENV_PLUGIN",
    "NCCL_WARN_ENABLE_DEBUG_INFO",
};

bool nccl_read_before_plugin(const char *key)
{
    for (size_t i = 0; i < sizeof before_plugin / sizeof before_plugin[0]; i++)
        if (strcmp(before_plugin[i], key) == 0)
            return true;
    return false;
}
