/* NCCL 2.28.9's parameter table. Names are those libnccl 2.28.9 reads
 * (from its .rodata, checked against src/misc/param.cc and NCCL_PARAM uses);
 * value rules follow how the library parses each variable. Integers go
 * through strtoll(s, NULL, 0) with no end check, so "16M" reads as 16 and
 * "010" as 8: every integer must be plain decimal. */
#include "nccl_table.h"

#include <limits.h>
#include <string.h>

#define RANGE(lo, hi, why) { V_INT, F_RANGE, 0, lo, hi, NULL, why }

const struct value_rule value_rules[] = {
    [R_STRING] = { V_STRING, 0, 0, 0, 0, NULL, NULL },
    [R_INT] = { V_INT, 0, 0, 0, 0, NULL, NULL },
    [R_BYTES] = RANGE(1, LLONG_MAX, "NCCL uses its default instead"),
    [R_NTHREADS] = { V_INT, F_RANGE, 32, 64, 512, NULL,
                     "NCCL silently replaces it with 512 or 64" },
    [R_LL128_NTHREADS] = { V_INT, F_RANGE, 32, 160, 640, NULL,
                           "NCCL silently substitutes its own value" },
    [R_CHANNELS] = RANGE(1, 64, "NCCL clamps it to 1..64"),
    [R_MIN_CHANNELS] = RANGE(0, 64, "NCCL clamps it to 0..64"),
    [R_BOOL] = RANGE(0, 1, "NCCL treats anything but 1 as 0"),
    [R_0_2] = RANGE(0, 2, "NCCL misreads it"),
    [R_IB_TIMEOUT] = RANGE(0, 31, "the verbs layer rejects it"),
    [R_IB_RETRY] = RANGE(0, 7, "the verbs layer rejects it"),
    [R_IB_SL] = RANGE(0, 15, "the verbs layer rejects it"),
    [R_IB_TC] = RANGE(0, 255, "the verbs layer rejects it"),
    [R_IB_QPS] = RANGE(1, 128, "NCCL rejects it"),
    [R_GID] = RANGE(-1, 255, "NCCL fails to find the GID"),
    [R_CUMEM] = RANGE(-2, 1, "NCCL misreads it"),
    [R_PROTO] = { V_LIST, F_NEGATE | F_FUNCS, 0, 0, 0, "LL,LL128,Simple",
                  "communicator init fails with ncclInvalidUsage" },
    [R_ALGO] = { V_LIST, F_NEGATE | F_FUNCS, 0, 0, 0,
                 "Tree,Ring,CollNetDirect,CollNetChain,NVLS,NVLSTree,PAT",
                 "communicator init fails with ncclInvalidUsage" },
    [R_LEVEL] = { V_LEVEL, 0, 0, 0, 0, "LOC,NVL,NVB,C2C,PIX,PXB,P2C,PXN,PHB,SYS",
                  "NCCL ignores it without a word" },
    [R_DEBUG] = { V_ENUM, 0, 0, 0, 0, "VERSION,WARN,INFO,ABORT,TRACE",
                  "NCCL logs nothing, without a word" },
    [R_SUBSYS] = { V_LIST, F_NEGATE, 0, 0, 0,
                   "INIT,COLL,P2P,SHM,NET,GRAPH,TUNING,ENV,ALLOC,CALL,PROXY,NVLS,BOOTSTRAP,REG,"
                   "PROFILE,RAS,ALL",
                   "NCCL ignores the unknown name without a word" },
};

const char nccl_collectives[] = "Broadcast,Reduce,AllGather,ReduceScatter,AllReduce";

const struct noop_rule noop_rules[] = {
    { "NCCL_NTHREADS", "Simple", 512,
      "LL already runs its maximum of 512 threads and Simple, the other protocol that reads it, "
      "is excluded" },
    { "NCCL_LL128_NTHREADS", "LL128", LLONG_MIN, "only LL128 reads it" },
    { "NCCL_LL_BUFFSIZE", "LL", LLONG_MIN, "only LL reads it" },
    { "NCCL_LL128_BUFFSIZE", "LL128", LLONG_MIN, "only LL128 reads it" },
};
const size_t noop_rules_count = sizeof noop_rules / sizeof noop_rules[0];

/* NCCL 2.28.9's names, sorted, as one string rather than a table of
 * pointers (a quarter of the size): each entry is its rule id plus one (so
 * never NUL), the name without "NCCL_", and a NUL. */
#define RULE(r) RULE_(r)
#define RULE_(r) RULE_##r
#define RULE_R_STRING "\001"
#define RULE_R_INT "\002"
#define RULE_R_BYTES "\003"
#define RULE_R_NTHREADS "\004"
#define RULE_R_LL128_NTHREADS "\005"
#define RULE_R_CHANNELS "\006"
#define RULE_R_MIN_CHANNELS "\007"
#define RULE_R_BOOL "\010"
#define RULE_R_0_2 "\011"
#define RULE_R_IB_TIMEOUT "\012"
#define RULE_R_IB_RETRY "\013"
#define RULE_R_IB_SL "\014"
#define RULE_R_IB_TC "\015"
#define RULE_R_IB_QPS "\016"
#define RULE_R_GID "\017"
#define RULE_R_CUMEM "\020"
#define RULE_R_PROTO "\021"
#define RULE_R_ALGO "\022"
#define RULE_R_LEVEL "\023"
#define RULE_R_DEBUG "\024"
#define RULE_R_SUBSYS "\025"

const char nccl_names[] =
    RULE(R_ALGO) "ALGO\0"
    RULE(R_INT) "ALLOC_P2P_NET_LL_BUFFERS\0"
    RULE(R_BYTES) "BUFFSIZE\0"
    RULE(R_INT) "CGA_CLUSTER_SIZE\0"
    RULE(R_INT) "CHECK_POINTERS\0"
    RULE(R_INT) "CHUNK_SIZE\0"
    RULE(R_INT) "COLLNET_ENABLE\0"
    RULE(R_INT) "COLLNET_NODE_THRESHOLD\0"
    RULE(R_INT) "COMM_BLOCKING\0"
    RULE(R_STRING) "COMM_ID\0"
    RULE(R_INT) "COMM_SHRINK_SHARE_RESOURCES\0"
    RULE(R_INT) "COMM_SPLIT_SHARE_RESOURCES\0"
    RULE(R_STRING) "CONF_FILE\0"
    RULE(R_INT) "CONNECT_ROUND_MAX_PEERS\0"
    RULE(R_INT) "CREATE_THREAD_CONTEXT\0"
    RULE(R_INT) "CROSS_NIC\0"
    RULE(R_STRING) "CTA_POLICY\0"
    RULE(R_CUMEM) "CUMEM_ENABLE\0"
    RULE(R_INT) "CUMEM_HOST_ENABLE\0"
    RULE(R_DEBUG) "DEBUG\0"
    RULE(R_STRING) "DEBUG_FILE\0"
    RULE(R_SUBSYS) "DEBUG_SUBSYS\0"
    RULE(R_STRING) "DEBUG_TIMESTAMP_FORMAT\0"
    RULE(R_STRING) "DEBUG_TIMESTAMP_LEVELS\0"
    RULE(R_INT) "DMABUF_ENABLE\0"
    RULE(R_STRING) "ENV_PLUGIN\0"
    RULE(R_INT) "GDRCOPY_ENABLE\0"
    RULE(R_INT) "GDRCOPY_FIFO_ENABLE\0"
    RULE(R_INT) "GDRCOPY_FLUSH_ENABLE\0"
    RULE(R_INT) "GDRCOPY_SYNC_ENABLE\0"
    RULE(R_INT) "GDR_FLUSH_DISABLE\0"
    RULE(R_STRING) "GIN_COUNTER_POOL_SIZE\0"
    RULE(R_STRING) "GIN_ENABLE\0"
    RULE(R_STRING) "GIN_ERROR_QUERY_SEC\0"
    RULE(R_STRING) "GIN_GDAKI_NIC_HANDLER\0"
    RULE(R_STRING) "GIN_GDAKI_QP_DEPTH\0"
    RULE(R_STRING) "GIN_NCONTEXTS\0"
    RULE(R_STRING) "GIN_PROXY_QUEUE_SIZE\0"
    RULE(R_STRING) "GIN_SIGNAL_POOL_SIZE\0"
    RULE(R_STRING) "GIN_TYPE\0"
    RULE(R_STRING) "GRAPH_DUMP_FILE\0"
    RULE(R_INT) "GRAPH_DUMP_FILE_RANK\0"
    RULE(R_STRING) "GRAPH_FILE\0"
    RULE(R_INT) "GRAPH_HELPER_DISABLE\0"
    RULE(R_INT) "GRAPH_MIXING_SUPPORT\0"
    RULE(R_INT) "GRAPH_REGISTER\0"
    RULE(R_INT) "GROUP_CUDA_STREAM\0"
    RULE(R_STRING) "HOSTID\0"
    RULE(R_BOOL) "IB_ADAPTIVE_ROUTING\0"
    RULE(R_STRING) "IB_ADDR_FAMILY\0"
    RULE(R_STRING) "IB_ADDR_RANGE\0"
    RULE(R_INT) "IB_AR_THRESHOLD\0"
    RULE(R_INT) "IB_DATA_DIRECT\0"
    RULE(R_BOOL) "IB_DISABLE\0"
    RULE(R_INT) "IB_ECE_ENABLE\0"
    RULE(R_INT) "IB_FIFO_TC\0"
    RULE(R_GID) "IB_GID_INDEX\0"
    RULE(R_STRING) "IB_HCA\0"
    RULE(R_INT) "IB_MERGE_NICS\0"
    RULE(R_INT) "IB_MERGE_VFS\0"
    RULE(R_INT) "IB_MQP_RETRY_ALL\0"
    RULE(R_INT) "IB_MQP_RETRY_CNT\0"
    RULE(R_INT) "IB_MQP_RETRY_SLEEP_MSEC\0"
    RULE(R_0_2) "IB_PCI_RELAXED_ORDERING\0"
    RULE(R_INT) "IB_PKEY\0"
    RULE(R_IB_QPS) "IB_QPS_PER_CONNECTION\0"
    RULE(R_IB_RETRY) "IB_RETRY_CNT\0"
    RULE(R_INT) "IB_RETURN_ASYNC_EVENTS\0"
    RULE(R_INT) "IB_ROCE_VERSION_NUM\0"
    RULE(R_STRING) "IB_ROUTABLE_FLID_GID_INDEX\0"
    RULE(R_IB_SL) "IB_SL\0"
    RULE(R_BOOL) "IB_SPLIT_DATA_ON_QPS\0"
    RULE(R_IB_TC) "IB_TC\0"
    RULE(R_IB_TIMEOUT) "IB_TIMEOUT\0"
    RULE(R_INT) "IB_USE_INLINE\0"
    RULE(R_INT) "IB_WARN_RAIL_LOCAL\0"
    RULE(R_BOOL) "IGNORE_CPU_AFFINITY\0"
    RULE(R_INT) "IGNORE_DISABLED_P2P\0"
    RULE(R_INT) "L1_SHARED_MEMORY_CARVEOUT\0"
    RULE(R_STRING) "LAUNCH_MODE\0"
    RULE(R_INT) "LAUNCH_ORDER_IMPLICIT\0"
    RULE(R_INT) "LAUNCH_RACE_FATAL\0"
    RULE(R_INT) "LEGACY_CUDA_REGISTER\0"
    RULE(R_BYTES) "LL128_BUFFSIZE\0"
    RULE(R_INT) "LL128_C2C\0"
    RULE(R_LL128_NTHREADS) "LL128_NTHREADS\0"
    RULE(R_BYTES) "LL_BUFFSIZE\0"
    RULE(R_INT) "LOCAL_REGISTER\0"
    RULE(R_CHANNELS) "MAX_CTAS\0"
    RULE(R_CHANNELS) "MAX_NCHANNELS\0"
    RULE(R_CHANNELS) "MAX_NRINGS\0"
    RULE(R_CHANNELS) "MAX_P2P_NCHANNELS\0"
    RULE(R_INT) "MEM_SYNC_DOMAIN\0"
    RULE(R_CHANNELS) "MIN_CTAS\0"
    RULE(R_MIN_CHANNELS) "MIN_NCHANNELS\0"
    RULE(R_MIN_CHANNELS) "MIN_NRINGS\0"
    RULE(R_CHANNELS) "MIN_P2P_NCHANNELS\0"
    RULE(R_STRING) "MNNVL_CLIQUE_ID\0"
    RULE(R_INT) "MNNVL_ENABLE\0"
    RULE(R_STRING) "MNNVL_RAIL_PER_HOST\0"
    RULE(R_INT) "MNNVL_SCATTER_NETS_ENABLE\0"
    RULE(R_STRING) "MNNVL_UUID\0"
    RULE(R_INT) "NCHANNELS_PER_NET_PEER\0"
    RULE(R_STRING) "NET\0"
    RULE(R_STRING) "NETDEVS_POLICY\0"
    RULE(R_INT) "NET_DISABLE_INTRA\0"
    RULE(R_INT) "NET_FORCE_FLUSH\0"
    RULE(R_STRING) "NET_FORCE_MERGE\0"
    RULE(R_INT) "NET_GDR_C2C\0"
    RULE(R_LEVEL) "NET_GDR_LEVEL\0"
    RULE(R_INT) "NET_GDR_READ\0"
    RULE(R_STRING) "NET_MERGE_LEVEL\0"
    RULE(R_STRING) "NET_OPTIONAL_RECV_COMPLETION\0"
    RULE(R_INT) "NET_OVERHEAD\0"
    RULE(R_STRING) "NET_PLUGIN\0"
    RULE(R_STRING) "NET_PLUGIN_REF_COUNT\0"
    RULE(R_INT) "NET_SHARED_BUFFERS\0"
    RULE(R_INT) "NET_SHARED_COMMS\0"
    RULE(R_INT) "NSOCKS_PERTHREAD\0"
    RULE(R_NTHREADS) "NTHREADS\0"
    RULE(R_INT) "NVB_DISABLE\0"
    RULE(R_INT) "NVB_PRECONNECT\0"
    RULE(R_INT) "NVLINK_UTIL_CENTRIC_SCHED_ENABLE\0"
    RULE(R_INT) "NVLSTREE_MAX_CHUNKSIZE\0"
    RULE(R_INT) "NVLS_CHUNKSIZE\0"
    RULE(R_0_2) "NVLS_ENABLE\0"
    RULE(R_INT) "NVLS_NCHANNELS\0"
    RULE(R_INT) "NVTX_DISABLE\0"
    RULE(R_INT) "OOB_NET_ENABLE\0"
    RULE(R_STRING) "OOB_NET_IFNAME\0"
    RULE(R_INT) "P2P_DIRECT_DISABLE\0"
    RULE(R_BOOL) "P2P_DISABLE\0"
    RULE(R_LEVEL) "P2P_LEVEL\0"
    RULE(R_INT) "P2P_LL_THRESHOLD\0"
    RULE(R_INT) "P2P_NET_CHUNKSIZE\0"
    RULE(R_INT) "P2P_NVL_CHUNKSIZE\0"
    RULE(R_INT) "P2P_PCI_CHUNKSIZE\0"
    RULE(R_INT) "P2P_PXN_LEVEL\0"
    RULE(R_INT) "P2P_READ_ENABLE\0"
    RULE(R_INT) "P2P_SCHEDULE_GROUP_SIZE\0"
    RULE(R_INT) "P2P_USE_CUDA_MEMCPY\0"
    RULE(R_INT) "PAT_ENABLE\0"
    RULE(R_STRING) "PROFILER_PLUGIN\0"
    RULE(R_INT) "PROGRESS_APPENDOP_FREQ\0"
    RULE(R_PROTO) "PROTO\0"
    RULE(R_INT) "PROXY_APPEND_BATCH_SIZE\0"
    RULE(R_STRING) "PROXY_CPUSET\0"
    RULE(R_INT) "PROXY_DUMP_SIGNAL\0"
    RULE(R_INT) "PXN_C2C\0"
    RULE(R_INT) "PXN_DISABLE\0"
    RULE(R_STRING) "RAS_ADDR\0"
    RULE(R_INT) "RAS_ENABLE\0"
    RULE(R_INT) "RAS_TIMEOUT_FACTOR\0"
    RULE(R_STRING) "REPORT_CONNECT_PROGRESS\0"
    RULE(R_INT) "RUNTIME_CONNECT\0"
    RULE(R_INT) "SET_CPU_STACK_SIZE\0"
    RULE(R_INT) "SET_STACK_SIZE\0"
    RULE(R_INT) "SET_THREAD_NAME\0"
    RULE(R_BOOL) "SHM_DISABLE\0"
    RULE(R_INT) "SHM_LOCALITY\0"
    RULE(R_INT) "SHM_MEMCPY_MODE\0"
    RULE(R_INT) "SHM_USE_CUDA_MEMCPY\0"
    RULE(R_INT) "SINGLE_PROC_MEM_REG_ENABLE\0"
    RULE(R_STRING) "SOCKET_FAMILY\0"
    RULE(R_STRING) "SOCKET_IFNAME\0"
    RULE(R_INT) "SOCKET_INLINE\0"
    RULE(R_INT) "SOCKET_MIN_TASKSIZE\0"
    RULE(R_INT) "SOCKET_NTHREADS\0"
    RULE(R_INT) "SOCKET_RCVBUF\0"
    RULE(R_INT) "SOCKET_RETRY_CNT\0"
    RULE(R_INT) "SOCKET_RETRY_SLEEP_MSEC\0"
    RULE(R_INT) "SOCKET_SNDBUF\0"
    RULE(R_INT) "SYM_CTAS\0"
    RULE(R_STRING) "SYM_KERNEL\0"
    RULE(R_STRING) "THREAD_THRESHOLDS\0"
    RULE(R_STRING) "TOPO_DUMP_FILE\0"
    RULE(R_INT) "TOPO_DUMP_FILE_RANK\0"
    RULE(R_STRING) "TOPO_FILE\0"
    RULE(R_STRING) "TUNER_PLUGIN\0"
    RULE(R_INT) "UID_STAGGER_RATE\0"
    RULE(R_INT) "UID_STAGGER_THRESHOLD\0"
    RULE(R_INT) "UNPACK_DOUBLE_NCHANNELS\0"
    RULE(R_INT) "WARN_ENABLE_DEBUG_INFO\0"
    RULE(R_INT) "WIN_ENABLE\0"
    RULE(R_INT) "WIN_STRIDE\0"
    RULE(R_INT) "WORK_ARGS_BYTES\0"
    RULE(R_INT) "WORK_FIFO_BYTES\0";

int nccl_param_rule(const char *name)
{
    if (strncmp(name, "NCCL_", 5) != 0)
        return -1;
    for (const char *p = nccl_names; *p; p += strlen(p) + 1)
        if (strcmp(p + 1, name + 5) == 0)
            return p[0] - 1;
    return -1;
}
