/* plugin-getenv PLUGIN KEY_IN MISSING N: the cost of one getEnv call of the
 * env plugin. dlopens PLUGIN, takes ncclEnvPlugin_v1, calls its init as
 * NCCL 2.28.9 would, then times N calls of getEnv(KEY_IN) (a key of the
 * record, not in the environment), of getEnv(MISSING) (in neither), and of
 * the C library's getenv of each (NCCL's default plugin is getenv alone), in
 * 7 interleaved repetitions; prints per call, the median:
 *
 *   LABEL NS_PER_CALL RESULT
 *
 * then the first ask of a name, which writes the name's line into the
 * plugin's witness (doc/env-plugin.md, "The witness"): 7 repetitions of
 * FIRST names never asked before, each asked once, the median of the
 * repetitions' means, as "first-ask NS_PER_CALL -" (FIRST is 200: 1400
 * names in all, within the witness's 2048 entries).
 *
 * scripts/bench-plugin.sh runs it and prints the ratios. Exit 1 when the
 * plugin cannot be loaded, or KEY_IN is not served.
 *
 * Build: gcc -O2 -o plugin-getenv plugin-getenv.c -ldl
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct {
    const char *name;
    int (*init)(uint8_t, uint8_t, uint8_t, const char *);
    int (*finalize)(void);
    const char *(*getEnv)(const char *);
} env_v1;

#define REPS 7

static const env_v1 *plugin;
static volatile uintptr_t sink;

static int64_t now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

static double run(int which, const char *key, long n)
{
    int64_t t0 = now();
    if (which == 0)
        for (long i = 0; i < n; i++)
            sink += (uintptr_t)plugin->getEnv(key);
    else
        for (long i = 0; i < n; i++)
            sink += (uintptr_t)getenv(key);
    return (double)(now() - t0) / (double)n;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    if (argc != 5) {
        fprintf(stderr, "usage: plugin-getenv PLUGIN KEY_IN MISSING N\n");
        return 2;
    }
    void *lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (!lib || !(plugin = dlsym(lib, "ncclEnvPlugin_v1"))) {
        fprintf(stderr, "plugin-getenv: %s\n", dlerror());
        return 1;
    }
    plugin->init(2, 28, 9, "");
    const char *in = argv[2], *missing = argv[3];
    long n = atol(argv[4]);
    const char *v = plugin->getEnv(in);
    if (!v || getenv(in)) {
        fprintf(stderr, "plugin-getenv: %s: not served from the record\n", in);
        return 1;
    }
    static const char *labels[4] = { "getEnv(in-record)", "getEnv(missing)", "getenv(in-record)",
                                     "getenv(missing)" };
    double t[4][REPS];
    for (int r = 0; r < REPS; r++)
        for (int k = 0; k < 4; k++) {
            int c = (k + r) % 4; /* the order rotates per repetition */
            t[c][r] = run(c < 2 ? 0 : 1, c % 2 ? missing : in, n);
        }
    for (int k = 0; k < 4; k++) {
        qsort(t[k], REPS, sizeof t[k][0], cmp);
        const char *res = k == 0 ? v : NULL;
        printf("%s %.2f %s\n", labels[k], t[k][REPS / 2], res ? res : "NULL");
    }
    /* The first asks: names made before the clock starts. */
    enum { FIRST = 200 };
    static char names[REPS][FIRST][32];
    double f[REPS];
    for (int r = 0; r < REPS; r++)
        for (int i = 0; i < FIRST; i++)
            snprintf(names[r][i], sizeof names[r][i], "NCCL_BENCH_FIRST_%d_%d", r, i);
    for (int r = 0; r < REPS; r++) {
        int64_t t0 = now();
        for (int i = 0; i < FIRST; i++)
            sink += (uintptr_t)plugin->getEnv(names[r][i]);
        f[r] = (double)(now() - t0) / FIRST;
    }
    qsort(f, REPS, sizeof f[0], cmp);
    printf("first-ask %.2f -\n", f[REPS / 2]);
    plugin->finalize();
    return 0;
}
