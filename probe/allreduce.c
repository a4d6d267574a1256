/* nccl-probe: nccl-probe allreduce: latency and bus bandwidth per size. */
#include "probe.h"

/* ---------------------------------------------------------------- allreduce */

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static void run_allreduce(ncclComm_t *comms, cudaStream_t *streams, float **send, float **recv,
                          int ndev, size_t count, int times)
{
    for (int t = 0; t < times; t++) {
        NCCL(ncclGroupStart());
        for (int d = 0; d < ndev; d++)
            NCCL(ncclAllReduce(send[d], recv[d], count, ncclFloat, ncclSum, comms[d], streams[d]));
        NCCL(ncclGroupEnd());
    }
    for (int d = 0; d < ndev; d++) {
        CUDA(cudaSetDevice(d));
        CUDA(cudaStreamSynchronize(streams[d]));
    }
}

int cmd_allreduce(int argc, char **argv)
{
    size_t min_bytes = 8, max_bytes = (size_t)64 << 20;
    int iters = 20, warmup = 5;
    bool json = false;
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--json") == 0) {
            json = true;
            continue;
        }
        if (i + 1 >= argc)
            usage_error("allreduce: unknown argument '%s', or it needs a value", a);
        const char *v = argv[++i];
        if (strcmp(a, "--min-bytes") == 0 ? !parse_bytes(v, &min_bytes)
            : strcmp(a, "--max-bytes") == 0 ? !parse_bytes(v, &max_bytes)
            : strcmp(a, "--iters") == 0   ? !parse_count(v, &iters)
            : strcmp(a, "--warmup") == 0  ? !parse_count(v, &warmup)
                                          : (usage_error("allreduce: unknown argument '%s'", a), 1))
            usage_error("allreduce: %s: bad value '%s'", a, v);
    }
    if (min_bytes < sizeof(float))
        min_bytes = sizeof(float);
    if (max_bytes < min_bytes)
        usage_error("allreduce: --max-bytes %zu is below --min-bytes %zu", max_bytes, min_bytes);
    if (iters < 1)
        usage_error("allreduce: --iters must be at least 1");
    int ndev = devices_or_exit();

    size_t max_count = max_bytes / sizeof(float);
    ncclComm_t *comms = xcalloc((size_t)ndev, sizeof *comms);
    cudaStream_t *streams = xcalloc((size_t)ndev, sizeof *streams);
    float **send = xcalloc((size_t)ndev, sizeof *send), **recv = xcalloc((size_t)ndev, sizeof *recv);
    float *host = malloc(max_count * sizeof(float));
    if (!host)
        die(EXIT_RUNTIME, "out of memory (%zu bytes)", max_bytes);
    NCCL(ncclCommInitAll(comms, ndev, NULL));
    for (int d = 0; d < ndev; d++) {
        CUDA(cudaSetDevice(d));
        CUDA(cudaStreamCreateWithFlags(&streams[d], cudaStreamNonBlocking));
        CUDA(cudaMalloc((void **)&send[d], max_count * sizeof(float)));
        CUDA(cudaMalloc((void **)&recv[d], max_count * sizeof(float)));
        for (size_t k = 0; k < max_count; k++)
            host[k] = (float)(d + 1);
        CUDA(cudaMemcpy(send[d], host, max_count * sizeof(float), cudaMemcpyHostToDevice));
    }
    const float expect = (float)ndev * (float)(ndev + 1) / 2; /* exact in float */
    char ver[32];
    nccl_version(ver, sizeof ver, NULL);
    const char *prof = getenv("NCCL_INIT_PROFILE");

    if (json) {
        printf("{\n  \"nccl_version\": \"%s\",\n  \"ranks\": %d,\n  \"profile\": ", ver, ndev);
        if (prof)
            json_str(prof);
        else
            printf("null");
        printf(",\n  \"iters\": %d,\n  \"warmup\": %d,\n  \"results\": [", iters, warmup);
    } else {
        printf("# nccl-probe allreduce: nccl %s, %d rank%s in one process, iters %d, warmup %d, "
               "profile %s\n#\n",
               ver, ndev, ndev == 1 ? "" : "s", iters, warmup, prof ? prof : "(not under nccl-init)");
        printf("#                                                              out-of-place\n");
        printf("# %10s  %12s  %8s  %6s  %6s  %8s  %6s  %6s  %6s\n", "size", "count", "type", "redop",
               "root", "time", "algbw", "busbw", "#wrong");
        printf("# %10s  %12s  %8s  %6s  %6s  %8s  %6s  %6s  %6s\n", "(B)", "(elements)", "", "", "",
               "(us)", "(GB/s)", "(GB/s)", "");
    }
    long long wrong_total = 0;
    double bus_sum = 0;
    int sizes = 0;
    for (size_t bytes = min_bytes; bytes <= max_bytes; bytes *= 2) {
        size_t count = bytes / sizeof(float);
        size_t used = count * sizeof(float);
        run_allreduce(comms, streams, send, recv, ndev, count, warmup);
        double t0 = now_us();
        run_allreduce(comms, streams, send, recv, ndev, count, iters);
        double us = (now_us() - t0) / iters;
        long long wrong = 0;
        for (int d = 0; d < ndev; d++) {
            CUDA(cudaSetDevice(d));
            CUDA(cudaMemcpy(host, recv[d], used, cudaMemcpyDeviceToHost));
            for (size_t k = 0; k < count; k++)
                wrong += host[k] != expect;
        }
        wrong_total += wrong;
        double algbw = (double)used / us / 1e3; /* bytes/us = MB/s; /1e3 = GB/s */
        double busbw = algbw * 2.0 * (ndev - 1) / ndev;
        bus_sum += busbw;
        if (json)
            printf("%s\n    {\"bytes\": %zu, \"count\": %zu, \"type\": \"float\", \"redop\": \"sum\", "
                   "\"time_us\": %.2f, \"algbw_gbs\": %.3f, \"busbw_gbs\": %.3f, \"wrong\": %lld}",
                   sizes ? "," : "", used, count, us, algbw, busbw, wrong);
        else
            printf("  %10zu  %12zu  %8s  %6s  %6d  %8.2f  %6.2f  %6.2f  %6lld\n", used, count, "float",
                   "sum", -1, us, algbw, busbw, wrong);
        fflush(stdout);
        sizes++;
        if (bytes > SIZE_MAX / 2)
            break;
    }
    if (json)
        printf("\n  ],\n  \"wrong\": %lld,\n  \"avg_busbw_gbs\": %.3f\n}\n", wrong_total,
               sizes ? bus_sum / sizes : 0.0);
    else
        printf("# out of bounds values : %lld %s\n# avg bus bandwidth    : %.3f\n#\n", wrong_total,
               wrong_total ? "FAILED" : "OK", sizes ? bus_sum / sizes : 0.0);
    for (int d = 0; d < ndev; d++) {
        CUDA(cudaSetDevice(d));
        CUDA(cudaFree(send[d]));
        CUDA(cudaFree(recv[d]));
        CUDA(cudaStreamDestroy(streams[d]));
        NCCL(ncclCommDestroy(comms[d]));
    }
    xfree(host);
    return wrong_total ? EXIT_CHECK : 0;
}
