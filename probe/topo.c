/* nccl-probe: nccl-probe topo: devices, P2P, NCCL version and the suggested profile. */
#include "probe.h"
#include "lib/mem.h"

/* ---------------------------------------------------------------- topo */

/* What CUDA and NCCL say about the visible devices. */
struct topo {
    int ndev;
    char **models;
    char (*bus)[32];
    int *peer; /* ndev x ndev: cudaDeviceCanAccessPeer */
    int *rank; /* ndev x ndev: the P2P performance rank, -1 without access */
    char ver[32];
    int vcode, rt, drv; /* NCCL's version code, CUDA runtime and driver */
};

static void read_topo(struct topo *t, int ndev)
{
    t->ndev = ndev;
    t->models = xcalloc((size_t)ndev, sizeof(char *));
    t->bus = xcalloc((size_t)ndev, sizeof *t->bus);
    t->peer = xcalloc((size_t)ndev * (size_t)ndev, sizeof(int));
    t->rank = xcalloc((size_t)ndev * (size_t)ndev, sizeof(int));
    for (int i = 0; i < ndev; i++) {
        struct cudaDeviceProp p;
        CUDA(cudaGetDeviceProperties(&p, i));
        t->models[i] = xstrdup(p.name);
        CUDA(cudaDeviceGetPCIBusId(t->bus[i], sizeof t->bus[i], i));
        for (int j = 0; j < ndev; j++) {
            if (i == j)
                continue;
            int *peer = &t->peer[i * ndev + j], *rank = &t->rank[i * ndev + j];
            CUDA(cudaDeviceCanAccessPeer(peer, i, j));
            *rank = -1;
            if (*peer)
                CUDA(cudaDeviceGetP2PAttribute(rank, cudaDevP2PAttrPerformanceRank, i, j));
        }
    }
    nccl_version(t->ver, sizeof t->ver, &t->vcode);
    CUDA(cudaRuntimeGetVersion(&t->rt));
    CUDA(cudaDriverGetVersion(&t->drv));
}

static void print_topo_json(const struct topo *t, const struct hardware *h, const struct choice *c)
{
    int n = t->ndev;
    printf("{\n  \"gpus\": %d,\n  \"devices\": [", n);
    for (int i = 0; i < n; i++) {
        printf("%s{\"index\": %d, \"name\": ", i ? ", " : "", i);
        print_json_string(t->models[i]);
        printf(", \"bus\": ");
        print_json_string(t->bus[i]);
        putchar('}');
    }
    printf("],\n  \"p2p_access\": [");
    for (int i = 0; i < n; i++) {
        printf("%s[", i ? ", " : "");
        for (int j = 0; j < n; j++)
            printf("%s%s", j ? ", " : "", i == j ? "null" : t->peer[i * n + j] ? "true" : "false");
        putchar(']');
    }
    printf("],\n  \"p2p_performance_rank\": [");
    for (int i = 0; i < n; i++) {
        printf("%s[", i ? ", " : "");
        for (int j = 0; j < n; j++) {
            if (i == j || t->rank[i * n + j] < 0)
                printf("%snull", j ? ", " : "");
            else
                printf("%s%d", j ? ", " : "", t->rank[i * n + j]);
        }
        putchar(']');
    }
    printf("],\n  \"nccl_version\": \"%s\",\n  \"nccl_version_code\": %d,\n"
           "  \"cuda_runtime\": %d,\n  \"cuda_driver\": %d,\n",
           t->ver, t->vcode, t->rt, t->drv);
    json_choice(h, c);
}

static void print_topo_text(const struct topo *t, const struct hardware *h, const struct choice *c)
{
    int n = t->ndev;
    printf("nccl:       %s\ncuda:       runtime %d.%d, driver %d.%d\n", t->ver, t->rt / 1000,
           t->rt % 1000 / 10, t->drv / 1000, t->drv % 1000 / 10);
    printf("gpus:       %d\n", n);
    for (int i = 0; i < n; i++)
        printf("  %-2d %-16s  %s\n", i, t->bus[i], t->models[i]);
    printf("p2p:        peer access and performance rank (lower is better); '.' no access\n");
    printf("     ");
    for (int j = 0; j < n; j++)
        printf(" %4d", j);
    putchar('\n');
    for (int i = 0; i < n; i++) {
        printf("  %-2d ", i);
        for (int j = 0; j < n; j++) {
            if (i == j)
                printf(" %4s", "-");
            else if (!t->peer[i * n + j])
                printf(" %4s", ".");
            else
                printf(" %4d", t->rank[i * n + j]);
        }
        putchar('\n');
    }
    printf("nvswitches: %u\nnuma nodes: %u\n", h->nvswitches, h->numa_nodes);
    print_choice(c);
}

int cmd_topo(int argc, char **argv)
{
    struct rule_opts o = { NULL, "", false };
    for (int i = 2; i < argc; i++)
        if (!rule_option(&o, argc, argv, &i))
            usage_error("topo: unknown argument '%s'", argv[i]);
    if (o.rules && access(o.rules, R_OK) != 0) /* a usage error, GPU or not */
        usage_error("topo: --rules %s: %s", o.rules, strerror(errno));
    struct topo t;
    read_topo(&t, devices_or_exit());
    struct hardware h;
    probe_node(&h, o.root, t.models, t.ndev);
    struct choice c;
    choose(&c, &h, o.rules, o.root);
    if (o.json)
        print_topo_json(&t, &h, &c);
    else
        print_topo_text(&t, &h, &c);
    return 0;
}
