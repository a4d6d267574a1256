/* NCCL's env plugin interface, declared here from the facts of NCCL's own
 * headers (NVIDIA/nccl; no NCCL header is needed to build the plugin):
 *
 *   ncclResult_t, ncclSuccess = 0         src/nccl.h.in (v2.28.9-1)
 *   ncclEnv_v1_t                          src/include/plugin/env/env_v1.h (v2.28.9-1)
 *   ncclEnv_v2_t                          src/include/plugin/env/env_v2.h (v2.30.7-1)
 *   ncclDebugLogLevel, ncclDebugLogSubSys,
 *   ncclDebugLogger_t                     src/include/nccl_common.h (v2.30.7-1)
 *
 * NCCL 2.28 and 2.29 look up the symbol ncclEnvPlugin_v1; 2.30 looks up
 * ncclEnvPlugin_v2 first, then ncclEnvPlugin_v1 (src/plugin/env.cc,
 * src/plugin/env/env_v2.cc). */
#ifndef NCCL_INIT_PLUGIN_NCCL_ENV_H
#define NCCL_INIT_PLUGIN_NCCL_ENV_H

#include <stdint.h>

/* Only the success value: the plugin never returns anything else (in 2.28.9
 * a failed init fails ncclEnvPluginInit, and with it ncclGetUniqueId). */
typedef enum { ncclSuccess = 0 } ncclResult_t;

typedef enum {
    NCCL_LOG_NONE = 0,
    NCCL_LOG_VERSION = 1,
    NCCL_LOG_WARN = 2,
    NCCL_LOG_INFO = 3,
    NCCL_LOG_ABORT = 4,
    NCCL_LOG_TRACE = 5
} ncclDebugLogLevel;

/* The two subsystems the plugin logs under. */
#define NCCL_INIT 0x1UL
#define NCCL_ENV 0x80UL

typedef void (*ncclDebugLogger_t)(ncclDebugLogLevel level, unsigned long flags, const char *file,
                                  int line, const char *fmt, ...);

typedef struct {
    const char *name;
    ncclResult_t (*init)(uint8_t ncclMajor, uint8_t ncclMinor, uint8_t ncclPatch,
                         const char *suffix);
    ncclResult_t (*finalize)(void);
    /* The returned value must stay valid until finalize, or the next getEnv
     * of the same name. */
    const char *(*getEnv)(const char *name);
} ncclEnv_v1_t;

typedef struct {
    const char *name;
    ncclResult_t (*init)(uint8_t ncclMajor, uint8_t ncclMinor, uint8_t ncclPatch,
                         const char *suffix, ncclDebugLogger_t logFunction);
    ncclResult_t (*finalize)(void);
    const char *(*getEnv)(const char *name);
} ncclEnv_v2_t;

#endif
