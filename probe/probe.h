/* nccl-probe's shared pieces: exit codes, error handling, small helpers,
 * and the auto.rules choice that topo and suggest share (nccl-init's own
 * engine and printing, init/hw/). The log, its die() and EXIT_USAGE are
 * nccl-init's too (init/lib/log.h), under the probe's name. */
#ifndef NCCL_PROBE_H
#define NCCL_PROBE_H

#include <cuda_runtime_api.h>
#include <nccl.h>

#include "hw/detect.h"
#include "lib/buf.h"
#include "lib/log.h"
#include "lib/mem.h"
#include "lib/paths.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>


/* EXIT_USAGE (2) is log.h's. */
#define EXIT_CHECK 1
#define EXIT_NO_GPU 3
#define EXIT_RUNTIME 4

/* The installed rules, as nccl-init detect reads them without --profile-dir. */
#define DEFAULT_RULES PROFILE_DIR_DEFAULT "/auto.rules"

extern const char *cmd;
extern const char usage_text[];

#define CUDA(call)                                                                              \
    do {                                                                                        \
        cudaError_t e_ = (call);                                                                \
        if (e_ != cudaSuccess)                                                                  \
            die(EXIT_RUNTIME, "%s: %s: %s (%s)", cmd, #call, cudaGetErrorString(e_),            \
                cudaGetErrorName(e_));                                                          \
    } while (0)

#define NCCL(call)                                                                              \
    do {                                                                                        \
        ncclResult_t r_ = (call);                                                               \
        if (r_ != ncclSuccess) {                                                                \
            const char *last_ = ncclGetLastError(NULL);                                         \
            die(EXIT_RUNTIME, "%s: %s: %s%s%s", cmd, #call, ncclGetErrorString(r_),             \
                last_ && *last_ ? ": " : "", last_ ? last_ : "");                               \
        }                                                                                       \
    } while (0)

struct rule_opts {
    const char *rules, *root;
    bool json;
};

void choose(struct choice *c, const struct hardware *h, const char *given, const char *root);
int cmd_allreduce(int argc, char **argv);
int cmd_params(int argc, char **argv);
int cmd_suggest(int argc, char **argv);
int cmd_topo(int argc, char **argv);
int devices_or_exit(void);
void json_choice(const struct hardware *h, const struct choice *c);
void print_buf(struct buf *b);
void print_json_string(const char *s);
void nccl_version(char *out, size_t size, int *code);
bool parse_bytes(const char *s, size_t *out);
bool parse_count(const char *s, int *out);
void print_choice(const struct choice *c);
void probe_node(struct hardware *h, const char *root, char *const *models, int n);
bool rule_option(struct rule_opts *o, int argc, char **argv, int *i);
char *slurp(const char *path);
void usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
bool whole_int(const char *s, long long *v);
void *xcalloc(size_t n, size_t size);

#endif
