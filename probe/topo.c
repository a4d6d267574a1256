/* nccl-probe: nccl-probe topo: devices, P2P, NCCL version and the suggested profile. */
#include "probe.h"
#include "lib/mem.h"

/* ---------------------------------------------------------------- topo */

int cmd_topo(int argc, char **argv)
{
    struct rule_opts o = { NULL, "", false };
    for (int i = 2; i < argc; i++)
        if (!rule_option(&o, argc, argv, &i))
            usage_error("topo: unknown argument '%s'", argv[i]);
    if (o.rules && access(o.rules, R_OK) != 0) /* a usage error, GPU or not */
        usage_error("topo: --rules %s: %s", o.rules, strerror(errno));
    int ndev = devices_or_exit();

    char **models = xcalloc((size_t)ndev, sizeof(char *));
    char(*bus)[32] = xcalloc((size_t)ndev, sizeof *bus);
    int *peer = xcalloc((size_t)ndev * (size_t)ndev, sizeof(int));
    int *rank = xcalloc((size_t)ndev * (size_t)ndev, sizeof(int));
    for (int i = 0; i < ndev; i++) {
        struct cudaDeviceProp p;
        CUDA(cudaGetDeviceProperties(&p, i));
        models[i] = xstrdup(p.name);
        CUDA(cudaDeviceGetPCIBusId(bus[i], sizeof bus[i], i));
        for (int j = 0; j < ndev; j++) {
            if (i == j)
                continue;
            CUDA(cudaDeviceCanAccessPeer(&peer[i * ndev + j], i, j));
            rank[i * ndev + j] = -1;
            if (peer[i * ndev + j])
                CUDA(cudaDeviceGetP2PAttribute(&rank[i * ndev + j], cudaDevP2PAttrPerformanceRank,
                                               i, j));
        }
    }
    char ver[32];
    int vcode;
    nccl_version(ver, sizeof ver, &vcode);
    int rt = 0, drv = 0;
    CUDA(cudaRuntimeGetVersion(&rt));
    CUDA(cudaDriverGetVersion(&drv));
    struct hardware h;
    probe_node(&h, o.root, models, ndev);
    struct choice c;
    choose(&c, &h, o.rules, o.root);

    if (o.json) {
        printf("{\n  \"gpus\": %d,\n  \"devices\": [", ndev);
        for (int i = 0; i < ndev; i++) {
            printf("%s{\"index\": %d, \"name\": ", i ? ", " : "", i);
            json_str(models[i]);
            printf(", \"bus\": ");
            json_str(bus[i]);
            putchar('}');
        }
        printf("],\n  \"p2p_access\": [");
        for (int i = 0; i < ndev; i++) {
            printf("%s[", i ? ", " : "");
            for (int j = 0; j < ndev; j++)
                printf("%s%s", j ? ", " : "", i == j ? "null" : peer[i * ndev + j] ? "true" : "false");
            putchar(']');
        }
        printf("],\n  \"p2p_performance_rank\": [");
        for (int i = 0; i < ndev; i++) {
            printf("%s[", i ? ", " : "");
            for (int j = 0; j < ndev; j++) {
                if (i == j || rank[i * ndev + j] < 0)
                    printf("%snull", j ? ", " : "");
                else
                    printf("%s%d", j ? ", " : "", rank[i * ndev + j]);
            }
            putchar(']');
        }
        printf("],\n  \"nccl_version\": \"%s\",\n  \"nccl_version_code\": %d,\n"
               "  \"cuda_runtime\": %d,\n  \"cuda_driver\": %d,\n",
               ver, vcode, rt, drv);
        json_choice(&h, &c);
        return 0;
    }
    printf("nccl:       %s\ncuda:       runtime %d.%d, driver %d.%d\n", ver, rt / 1000,
           rt % 1000 / 10, drv / 1000, drv % 1000 / 10);
    printf("gpus:       %d\n", ndev);
    for (int i = 0; i < ndev; i++)
        printf("  %-2d %-16s  %s\n", i, bus[i], models[i]);
    printf("p2p:        peer access and performance rank (lower is better); '.' no access\n");
    printf("     ");
    for (int j = 0; j < ndev; j++)
        printf(" %4d", j);
    putchar('\n');
    for (int i = 0; i < ndev; i++) {
        printf("  %-2d ", i);
        for (int j = 0; j < ndev; j++) {
            if (i == j)
                printf(" %4s", "-");
            else if (!peer[i * ndev + j])
                printf(" %4s", ".");
            else
                printf(" %4d", rank[i * ndev + j]);
        }
        putchar('\n');
    }
    printf("nvswitches: %u\nnuma nodes: %u\n", h.nvswitches, h.numa_nodes);
    print_choice(&c);
    return 0;
}
