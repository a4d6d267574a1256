/* nccl-probe: nccl-probe allreduce: latency and bus bandwidth per size. */
#include "probe.h"

/* ---------------------------------------------------------------- allreduce */

struct allreduce_opts {
    size_t min_bytes, max_bytes;
    int iters, warmup;
    bool json;
};

/* One communicator per visible device, in this process, with its stream
 * and its buffers of max_count floats; host holds one buffer's worth. */
struct ranks {
    int ndev;
    size_t max_count;
    ncclComm_t *comms;
    cudaStream_t *streams;
    float **send, **recv, *host;
};

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static void allreduce_options(struct allreduce_opts *o, int argc, char **argv)
{
    *o = (struct allreduce_opts){ 8, (size_t)64 << 20, 20, 5, false };
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--json") == 0) {
            o->json = true;
            continue;
        }
        if (i + 1 >= argc)
            usage_error("allreduce: unknown argument '%s', or it needs a value", a);
        const char *v = argv[++i];
        if (strcmp(a, "--min-bytes") == 0 ? !parse_bytes(v, &o->min_bytes)
            : strcmp(a, "--max-bytes") == 0 ? !parse_bytes(v, &o->max_bytes)
            : strcmp(a, "--iters") == 0   ? !parse_count(v, &o->iters)
            : strcmp(a, "--warmup") == 0  ? !parse_count(v, &o->warmup)
                                          : (usage_error("allreduce: unknown argument '%s'", a), 1))
            usage_error("allreduce: %s: bad value '%s'", a, v);
    }
    if (o->min_bytes < sizeof(float))
        o->min_bytes = sizeof(float);
    if (o->max_bytes < o->min_bytes)
        usage_error("allreduce: --max-bytes %zu is below --min-bytes %zu", o->max_bytes,
                    o->min_bytes);
    if (o->iters < 1)
        usage_error("allreduce: --iters must be at least 1");
}

/* The communicators, streams and buffers; device d's send buffer holds
 * d + 1 everywhere, so that the sum is known. */
static void ranks_open(struct ranks *r, int ndev, size_t max_bytes)
{
    r->ndev = ndev;
    r->max_count = max_bytes / sizeof(float);
    r->comms = xcalloc((size_t)ndev, sizeof *r->comms);
    r->streams = xcalloc((size_t)ndev, sizeof *r->streams);
    r->send = xcalloc((size_t)ndev, sizeof *r->send);
    r->recv = xcalloc((size_t)ndev, sizeof *r->recv);
    r->host = malloc(r->max_count * sizeof(float));
    if (!r->host)
        die(EXIT_RUNTIME, "%s: out of memory (%zu bytes)", cmd, max_bytes);
    NCCL(ncclCommInitAll(r->comms, ndev, NULL));
    for (int d = 0; d < ndev; d++) {
        CUDA(cudaSetDevice(d));
        CUDA(cudaStreamCreateWithFlags(&r->streams[d], cudaStreamNonBlocking));
        CUDA(cudaMalloc((void **)&r->send[d], r->max_count * sizeof(float)));
        CUDA(cudaMalloc((void **)&r->recv[d], r->max_count * sizeof(float)));
        for (size_t k = 0; k < r->max_count; k++)
            r->host[k] = (float)(d + 1);
        CUDA(cudaMemcpy(r->send[d], r->host, r->max_count * sizeof(float), cudaMemcpyHostToDevice));
    }
}

static void ranks_close(struct ranks *r)
{
    for (int d = 0; d < r->ndev; d++) {
        CUDA(cudaSetDevice(d));
        CUDA(cudaFree(r->send[d]));
        CUDA(cudaFree(r->recv[d]));
        CUDA(cudaStreamDestroy(r->streams[d]));
        NCCL(ncclCommDestroy(r->comms[d]));
    }
    free(r->host);
}

static void run_allreduce(const struct ranks *r, size_t count, int times)
{
    for (int t = 0; t < times; t++) {
        NCCL(ncclGroupStart());
        for (int d = 0; d < r->ndev; d++)
            NCCL(ncclAllReduce(r->send[d], r->recv[d], count, ncclFloat, ncclSum, r->comms[d],
                               r->streams[d]));
        NCCL(ncclGroupEnd());
    }
    for (int d = 0; d < r->ndev; d++) {
        CUDA(cudaSetDevice(d));
        CUDA(cudaStreamSynchronize(r->streams[d]));
    }
}

/* The elements of the result, on every device, that are not the sum. */
static long long wrong_values(const struct ranks *r, size_t count)
{
    const float expect = (float)r->ndev * (float)(r->ndev + 1) / 2; /* exact in float */
    long long wrong = 0;
    for (int d = 0; d < r->ndev; d++) {
        CUDA(cudaSetDevice(d));
        CUDA(cudaMemcpy(r->host, r->recv[d], count * sizeof(float), cudaMemcpyDeviceToHost));
        for (size_t k = 0; k < count; k++)
            wrong += r->host[k] != expect;
    }
    return wrong;
}

static void print_header(const struct allreduce_opts *o, int ndev, const char *ver,
                         const char *prof)
{
    if (o->json) {
        printf("{\n  \"nccl_version\": \"%s\",\n  \"ranks\": %d,\n  \"profile\": ", ver, ndev);
        if (prof)
            print_json_string(prof);
        else
            printf("null");
        printf(",\n  \"iters\": %d,\n  \"warmup\": %d,\n  \"results\": [", o->iters, o->warmup);
        return;
    }
    printf("# nccl-probe allreduce: nccl %s, %d rank%s in one process, iters %d, warmup %d, "
           "profile %s\n#\n",
           ver, ndev, ndev == 1 ? "" : "s", o->iters, o->warmup,
           prof ? prof : "(not under nccl-init)");
    printf("#                                                              out-of-place\n");
    printf("# %10s  %12s  %8s  %6s  %6s  %8s  %6s  %6s  %6s\n", "size", "count", "type", "redop",
           "root", "time", "algbw", "busbw", "#wrong");
    printf("# %10s  %12s  %8s  %6s  %6s  %8s  %6s  %6s  %6s\n", "(B)", "(elements)", "", "", "",
           "(us)", "(GB/s)", "(GB/s)", "");
}

/* One size: warm-up, the timed iterations, the check of the result, and
 * its row. Returns the wrong values; *busbw the bus bandwidth. */
static long long measure(const struct ranks *r, const struct allreduce_opts *o, size_t bytes,
                         bool first, double *busbw)
{
    size_t count = bytes / sizeof(float), used = count * sizeof(float);
    run_allreduce(r, count, o->warmup);
    double t0 = now_us();
    run_allreduce(r, count, o->iters);
    double us = (now_us() - t0) / o->iters;
    long long wrong = wrong_values(r, count);
    double algbw = (double)used / us / 1e3; /* bytes/us = MB/s; /1e3 = GB/s */
    *busbw = algbw * 2.0 * (r->ndev - 1) / r->ndev;
    if (o->json)
        printf("%s\n    {\"bytes\": %zu, \"count\": %zu, \"type\": \"float\", \"redop\": \"sum\", "
               "\"time_us\": %.2f, \"algbw_gbs\": %.3f, \"busbw_gbs\": %.3f, \"wrong\": %lld}",
               first ? "" : ",", used, count, us, algbw, *busbw, wrong);
    else
        printf("  %10zu  %12zu  %8s  %6s  %6d  %8.2f  %6.2f  %6.2f  %6lld\n", used, count, "float",
               "sum", -1, us, algbw, *busbw, wrong);
    fflush(stdout);
    return wrong;
}

int cmd_allreduce(int argc, char **argv)
{
    struct allreduce_opts o;
    allreduce_options(&o, argc, argv);
    struct ranks r;
    ranks_open(&r, devices_or_exit(), o.max_bytes);
    char ver[32];
    nccl_version(ver, sizeof ver, NULL);
    print_header(&o, r.ndev, ver, getenv("NCCL_INIT_PROFILE"));
    long long wrong = 0;
    double bus_sum = 0;
    int sizes = 0;
    for (size_t bytes = o.min_bytes; bytes <= o.max_bytes; bytes *= 2) {
        double busbw;
        wrong += measure(&r, &o, bytes, sizes == 0, &busbw);
        bus_sum += busbw;
        sizes++;
        if (bytes > SIZE_MAX / 2)
            break;
    }
    if (o.json)
        printf("\n  ],\n  \"wrong\": %lld,\n  \"avg_busbw_gbs\": %.3f\n}\n", wrong,
               sizes ? bus_sum / sizes : 0.0);
    else
        printf("# out of bounds values : %lld %s\n# avg bus bandwidth    : %.3f\n#\n", wrong,
               wrong ? "FAILED" : "OK", sizes ? bus_sum / sizes : 0.0);
    ranks_close(&r);
    return wrong ? EXIT_CHECK : 0;
}
