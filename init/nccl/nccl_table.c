/* NCCL 2.28.9's parameters and how it reads them.
 *
 * Names: every NCCL_* variable libnccl 2.28.9 reads, as listed in
 * init/nccl/nccl_params.tsv (scripts/nccl-params.py over the source tag
 * v2.28.9-1: the NCCL_PARAM declarations and the direct ncclGetEnv/getenv
 * reads); tests/unit/nccl/test_validate.c checks that this table has exactly
 * those names and types every NCCL_PARAM as an integer.
 *
 * Rules: each says where in the source it comes from (file and function).
 * Integers first go through NCCL's parser, then into the C type NCCL keeps
 * them in, then through the checks of the code that uses them:
 *
 *   ncclLoadParam (src/misc/param.cc): strtoll(s, NULL, 0) into an int64,
 *   no end check; an empty value is "unset"; ERANGE gives the default with
 *   "Invalid value ... using default"; otherwise INFO "set by environment".
 *   The few direct reads (ncclGetLevel's strtol, envConfigOverride's
 *   strtol for NCCL_COLLNET_ENABLE) ignore errno instead (F_STRTOL). */
#include "nccl/nccl_table.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#define NONE 1, 0 /* no special values (lo > hi) */

/* kind V_INT: C type, accepted range, what NCCL does below and above it,
 * flags, multiple-of, the values used instead (O_AS), accepted specials. */
#define INT(ct, lo, hi, below, above, fl, st, asl, ash, spl, sph, txt)                             \
    { V_INT, ct, below, above, fl, st, asl, ash, lo, hi, spl, sph, 0, txt }
#define STRING(fl, txt) { V_STRING, 0, 0, 0, fl, 0, 0, 0, 0, 0, NONE, 0, txt }

/* The rules' token lists (comma-separated) and the texts that say what NCCL
 * does with a bad value; some rules share one. */
static const char proto_tokens[] = "LL,LL128,Simple";
static const char algo_tokens[] = "Tree,Ring,CollNetDirect,CollNetChain,NVLS,NVLSTree,PAT";
static const char level_tokens[] = "LOC,NVL,NVB,C2C,PIX,PXB,P2C,PXN,PHB,SYS";
static const char debug_tokens[] = "VERSION,WARN,INFO,ABORT,TRACE";
static const char subsys_tokens[] =
    "INIT,COLL,P2P,SHM,NET,GRAPH,TUNING,ENV,ALLOC,CALL,PROXY,NVLS,BOOTSTRAP,REG,PROFILE,RAS,ALL";
static const char ts_levels_tokens[] = "ALL,VERSION,WARN,INFO,ABORT,TRACE";
static const char family_tokens[] = "AF_INET,AF_INET6";
static const char launch_mode_tokens[] = "GROUP,PARALLEL";
static const char unread_text[] =
    "NCCL " NCCL_TABLE_VERSION " declares it but never reads it: it has no effect";
static const char size_i32_text[] =
    "NCCL takes it as a size or count: zero or less breaks the transfers";
static const char switch_one_text[] = "only 1 turns it on: NCCL reads every other value as 0 (off)";
static const char switch_text[] = "NCCL reads any nonzero value as 1 (on)";
static const char switch_auto1_text[] = "NCCL reads any value but -1 (auto) and 0 as 1 (on)";
static const char switch_default2_text[] =
    "NCCL reads any value but -2 (its default) and 0 as 1 (on)";
static const char p2p_disable_text[] = "only 1 disables P2P: NCCL reads every other value as 0";
static const char collnet_enable_text[] = "NCCL sets any value but 0 and 1 to 0 (off)";
static const char buffsize_text[] = "NCCL takes it as the buffer size: only -2 selects the default";
static const char max_p2p_nchannels_text[] = "NCCL would run P2P on no channel";
static const char split_share_text[] = "NCCL sets any value but 0 and 1 to 0";
static const char cumem_text[] =
    "NCCL reads any positive value as 1 (on) and a negative one but -2 (auto) as 0 (off)";
static const char nvls_enable_text[] = "NCCL reads any value but 0 (off) and 2 (auto) as 1 (on)";
static const char mnnvl_enable_text[] = "NCCL reads any value but 0 (off) and 1 (on) as 2 (auto)";
static const char cross_nic_text[] = "NCCL only gives 0, 1 and 2 a meaning";
static const char pxn_disable_text[] =
    "NCCL tests it as ==1, !=1, ==0 and as a boolean: other values half-disable PXN";
static const char ignore_disabled_p2p_text[] = "NCCL reads any value but 0 and 2 as 1";
static const char net_gdr_read_text[] =
    "NCCL reads any negative value as auto and any positive one as 1 (on)";
static const char ib_timeout_text[] = "the verbs layer rejects it and the connection fails";
static const char ib_sl_text[] = "InfiniBand has 16 service levels: the verbs layer rejects it";
static const char ib_gid_text[] = "there is no such GID: the query fails";
static const char ib_qps_text[] = "NCCL needs at least 1 and has room for 128 QPs per connection";
static const char ib_roce_text[] = "RoCE has versions 1 and 2 only: no GID matches";
static const char ib_relaxed_ordering_text[] = "NCCL reads any value but 1 and 2 as 0 (off)";
static const char ib_data_direct_text[] =
    "NCCL tests it as > 0, == 2 and as a boolean in different places";
static const char shm_memcpy_mode_text[] = "NCCL only looks at its two lowest bits";
static const char shm_locality_text[] = "NCCL warns and uses 2 (receiver side)";
static const char mem_sync_domain_text[] =
    "CUDA has no such memory sync domain: the kernel launch fails";
static const char socket_nthreads_text[] = "NCCL would start a negative number of threads";
static const char socket_nsocks_text[] = "NCCL would open no socket";
static const char work_fifo_text[] = "NCCL would keep no work FIFO";
static const char gin_pool_text[] = "NCCL warns and uses 65536";
static const char gin_type_text[] =
    "NCCL knows -1 (auto), 2 (proxy) and 3 (GDAKI): GIN gets no transport";
static const char gin_ncontexts_text[] = "NCCL would create no GIN context";
static const char gin_queue_text[] =
    "NCCL takes it as an unsigned size: only -1 selects the default";
static const char win_stride_text[] = "NCCL takes it as a huge unsigned stride";
static const char signal_text[] = "not a signal number: signal() fails and no handler is installed";
static const char nvlstree_chunk_text[] = "NCCL would cap NVLS tree chunks at zero or less";
static const char carveout_text[] =
    "CUDA takes -1 or a percentage: setting the kernel attribute fails";
static const char proto_text[] = "communicator init fails with ncclInvalidUsage";
static const char level_text[] = "NCCL ignores it without a word";
static const char debug_text[] = "NCCL logs nothing, without a word";
static const char subsys_text[] = "NCCL's mask is then 0: it prints nothing, not even warnings";
static const char ts_levels_text[] = "NCCL then timestamps no line (unset: warnings)";
static const char ts_format_text[] = "NCCL then puts no timestamp on any line";
static const char net_text[] = "no network is called \"\": communicator init fails";
static const char net_plugin_text[] =
    "NCCL loads no external net plugin, as with \"none\" (unset: it tries libnccl-net.so)";
static const char hostid_text[] = "every host gets the same host hash";
static const char comm_id_text[] = "not an address: ncclGetUniqueId fails";
static const char ifname_text[] =
    "NCCL ignores a value shorter than 2 bytes and picks an interface itself";
static const char family_text[] = "NCCL ignores it and takes the first address family it finds";
static const char ib_family_text[] = "NCCL uses AF_INET without a word";
static const char launch_mode_text[] = "NCCL uses PARALLEL without a word";
static const char topo_file_text[] = "NCCL opens no topology file, not even its default one";
static const char graph_file_text[] = "NCCL cannot open a file named \"\": communicator init fails";
static const char path_write_text[] = "NCCL cannot open a file named \"\" and dumps nothing";
static const char sym_kernel_text[] = "NCCL enables no symmetric kernel";
static const char ras_addr_text[] = "not an address: the RAS client socket is not set up";
static const char subsys_new_tokens[] = "INIT,COLL,P2P,SHM,NET,GRAPH,TUNING,ENV,ALLOC,ALLOC_HOST,"
                                        "CALL,PROXY,NVLS,BOOTSTRAP,REG,PROFILE,RAS,DESTROY,ALL";
static const char cta_policy_tokens[] = "DEFAULT,EFFICIENCY,ZERO";
static const char bool_tokens[] = "1,T,TRUE,0,F,FALSE";
static const char ib_hca_text[] = "an empty port is port 0, which no device has: NCCL finds no "
                                  "InfiniBand device there";
static const char cta_policy_text[] = "NCCL ignores it (an INFO line only)";
static const char no_cache_text[] = "NCCL ignores a name it does not know, without a word";
static const char bool_text[] = "NCCL ignores it without a word: its default (off) applies";

const struct value_rule value_rules[R_COUNT] = {
    /* Free text NCCL takes as written. */
    [R_STRING] = STRING(0, 0),
    /* Free text whose empty value NCCL treats as unset: it tests strlen() > 0
     * (initEnvFunc, envIbAddrRange, bootstrap.cc netGetDevice), builds the
     * default plugin name for it (plugin/plugin_open.cc openPluginLib), opens
     * no file (debug.cc ncclDebugInit), or finds nothing in it (tuning.cc
     * ncclTopoTuneModel's sscanf, topo.cc getNetDevsPolicyOnce). */
    [R_STRING_EMPTY_SAME] = STRING(0, 0),
    /* NCCL_PARAM declared, ncclParam...() never called (init.cc): no effect. */
    [R_UNREAD] = { V_UNREAD, 0, 0, 0, 0, 0, 0, 0, 0, 0, NONE, 0,
                   unread_text },

    /* Integers NCCL uses as they are, in the type they end up in. */
    [R_I64] = INT(C_I64, LLONG_MIN, LLONG_MAX, O_NONE, O_NONE, 0, 0, 0, 0, 1, 0, 0),
    [R_I32] = INT(C_I32, INT_MIN, INT_MAX, O_NONE, O_NONE, 0, 0, 0, 0, 1, 0, 0),
    /* gin_host_gdaki.cc ncclGinGdakiCreateContext: uint32_t qp_sq_size */
    [R_U32] = INT(C_U32, 0, UINT_MAX, O_NONE, O_NONE, 0, 0, 0, 0, 1, 0, 0),
    /* net_ib.cc ncclIbRtrQp: qpAttr.pkey_index is a uint16_t */
    [R_U16] = INT(C_U16, 0, 65535, O_NONE, O_NONE, 0, 0, 0, 0, 1, 0, 0),
    /* Sizes and counts kept in an int and used as such: init.cc
     * computeBuffSizes (p2pChunkSize), nvls.cc ncclNvlsSetup (nvlsChunkSize),
     * init.cc ncclP2pSchedule (groupSize). */
    [R_SIZE_I32] = INT(C_I32, 1, INT_MAX, O_UNDEF, O_NONE, 0, 0, 0, 0, 1, 0,
                       size_i32_text),

    /* Switches tested with == 1 (init.cc initGdrCopy, commAlloc,
     * initTransportsRank, ncclCommInitRankFunc; shm.cc shmCanConnect;
     * paths.cc ncclTopoCheckNet; bootstrap.cc bootstrapInit; debug.cc
     * ncclSetThreadName): any other value is off. */
    [R_SWITCH_ONE] = INT(C_I64, 0, 1, O_AS, O_AS, 0, 0, 0, 0, 1, 0,
                         switch_one_text),
    /* Switches tested as a boolean or != 0 (net_ib.cc, topo.cc, transport/net.cc,
     * paths.cc, register/, enqueue.cc...): any nonzero value is on. */
    [R_SWITCH] = INT(C_I64, 0, 1, O_AS, O_AS, F_HIGH_WARN, 0, 1, 1, 1, 0,
                     switch_text),
    /* The same, kept in an int first (proxy.cc setProxyThreadContext,
     * p2p.cc initCeOperation). */
    [R_SWITCH_I32] = INT(C_I32, 0, 1, O_AS, O_AS, F_HIGH_WARN, 0, 1, 1, 1, 0,
                         switch_text),
    /* -1 is "auto", anything else is kept in an int and used as a boolean
     * (cudawrap.cc ncclCuMemHostEnable). */
    [R_SWITCH_AUTO1] = INT(C_I32, 0, 1, O_AS, O_AS, F_HIGH_WARN, 0, 1, 1, -1, -1,
                           switch_auto1_text),
    /* -2 is NCCL's default, anything else is kept in an int and used as a
     * boolean (net_ib.cc ncclIbInitDevices ar, net.cc sendSetup/recvSetup
     * conn.shared, p2p.cc p2pGetInfo read). */
    [R_SWITCH_DEFAULT2] = INT(C_I32, 0, 1, O_AS, O_AS, F_HIGH_WARN, 0, 1, 1, -2, -2,
                              switch_default2_text),
    /* paths.cc ncclGetLevel: int disable = strtol(str, 0, 0); only 1
     * disables P2P. */
    [R_P2P_DISABLE] = INT(C_I32, 0, 1, O_AS, O_AS, F_STRTOL, 0, 0, 0, 1, 0,
                          p2p_disable_text),
    /* init.cc envConfigOverride: (int)strtol(...), then anything but 0/1 is
     * "not a valid value 0/1, set it to 0". */
    [R_COLLNET_ENABLE] = INT(C_I32, 0, 1, O_AS, O_AS, F_STRTOL, 0, 0, 0, 1, 0,
                             collnet_enable_text),
    /* debug.cc ncclDebugInit: strtoll with errno checked, kept in a bool. */
    [R_WARN_DEBUG_INFO] = INT(C_I64, 0, 1, O_AS, O_AS, F_HIGH_WARN, 0, 1, 1, 1, 0,
                              switch_text),

    /* init.cc computeBuffSizes: comm->buffSizes[p] = env != -2 ? env : default,
     * an int; only -2 selects the default, every other value is the size. */
    [R_BUFFSIZE] = INT(C_I32, 1, INT_MAX, O_UNDEF, O_NONE, 0, 0, 0, 0, -2, -2,
                       buffsize_text),
    /* tuning.cc getNthreads (int): <= 0 is the default; not a multiple of 32
     * or above the maximum gives the maximum; below the minimum the minimum. */
    [R_NTHREADS] = INT(C_I32, 64, 512, O_CLAMP, O_CLAMP, F_STEP_HIGH | F_NONPOS_DEF, 32, 0, 0,
                       -2, -2, 0),
    [R_LL128_NTHREADS] = INT(C_I32, 160, 640, O_CLAMP, O_CLAMP, F_STEP_HIGH | F_NONPOS_DEF, 32,
                             0, 0, -2, -2, 0),
    /* connect.cc ncclMinNchannels (int): above MAXCHANNELS 64 is 64, below 0 is 0. */
    [R_MIN_NCHANNELS] = INT(C_I32, 0, 64, O_CLAMP, O_CLAMP, 0, 0, 0, 0, -2, -2, 0),
    /* connect.cc ncclMaxNchannels (int): above 64 is 64, below 1 is 1. */
    [R_MAX_NCHANNELS] = INT(C_I32, 1, 64, O_CLAMP, O_CLAMP, 0, 0, 0, 0, -2, -2, 0),
    /* init.cc envConfigOverride: <= 0 "is too low, leaving it set at" the
     * config's value; above MAXCHANNELS "cap it to" 64. */
    [R_CTAS] = INT(C_I32, 1, 64, O_DEFAULT, O_CLAMP, 0, 0, 0, 0, 1, 0, 0),
    /* paths.cc ncclTopoComputeP2pChannels: std::max(p2pnChannels, (int)env),
     * then at most the channels there are (64 at most). */
    [R_MIN_P2P_NCHANNELS] = INT(C_I32, 1, 64, O_DEFAULT, O_CLAMP, 0, 0, 0, 0, 1, 0, 0),
    /* paths.cc ncclTopoComputeP2pChannels: std::min(nChannels, (int)env). */
    [R_MAX_P2P_NCHANNELS] = INT(C_I32, 1, 64, O_UNDEF, O_CLAMP, 0, 0, 0, 0, 1, 0,
                                max_p2p_nchannels_text),
    /* init.cc envConfigOverride: outside NCCL_CTA_POLICY_DEFAULT (0)..
     * NCCL_CTA_POLICY_ZERO (2) "is not a valid value, set it to 0". */
    [R_CTA_POLICY] = INT(C_I32, 0, 2, O_AS, O_AS, 0, 0, 0, 0, 1, 0, 0),
    /* init.cc envConfigOverride: only 0 and 1 override the config. */
    [R_BLOCKING] = INT(C_I32, 0, 1, O_DEFAULT, O_DEFAULT, 0, 0, 0, 0, 1, 0, 0),
    /* init.cc envConfigOverride: 0..NCCL_MAX_CGA_CLUSTER_SIZE (8) is used,
     * above is limited to 8, below 0 ignored. */
    [R_CGA_CLUSTER] = INT(C_I32, 0, 8, O_DEFAULT, O_CLAMP, 0, 0, 0, 0, 1, 0, 0),
    /* init.cc envConfigOverride: <= 0 leaves the config's (or NCCL's
     * automatic) value (NCCHANNELS_PER_NET_PEER, NVLS_NCHANNELS). */
    [R_CONFIG_POSITIVE] = INT(C_I32, 1, INT_MAX, O_DEFAULT, O_NONE, 0, 0, 0, 0, 1, 0, 0),
    /* init.cc envConfigOverride: anything but 0/1 "is not valid, leaving it
     * set at" the config's value. */
    [R_CONFIG_01] = INT(C_I32, 0, 1, O_DEFAULT, O_DEFAULT, 0, 0, 0, 0, 1, 0, 0),
    /* init.cc envConfigOverride: splitShare other than 0/1 "set it to 0". */
    [R_SPLIT_SHARE] = INT(C_I32, 0, 1, O_AS, O_AS, 0, 0, 0, 0, 1, 0,
                          split_share_text),
    /* cudawrap.cc ncclCuMemEnable (int): >= 0 is used as a boolean, -2 is
     * auto, any other negative value is off. */
    [R_CUMEM] = INT(C_I32, 0, 1, O_AS, O_AS, F_HIGH_WARN, 0, 0, 1, -2, -2,
                    cumem_text),
    /* nvls.cc ncclNvlsInit: 0 off, 2 auto, any other value forces NVLS on. */
    [R_NVLS_ENABLE] = INT(C_I64, 0, 2, O_AS, O_AS, 0, 0, 1, 1, 1, 0,
                          nvls_enable_text),
    /* init.cc initTransportsRank: 0 off, 1 on, any other value is auto. */
    [R_MNNVL_ENABLE] = INT(C_I64, 0, 2, O_AS, O_AS, 0, 0, 2, 2, 1, 0,
                           mnnvl_enable_text),
    /* tuning.cc ncclPatEnable: 2 is auto, any other value is returned as is. */
    [R_PAT_ENABLE] = INT(C_I32, 0, 2, O_AS, O_AS, 0, 0, 1, 1, 1, 0,
                         nvls_enable_text),
    /* search.cc ncclTopoCompute and ncclTopoGetNetDev compare it with 0, 1, 2. */
    [R_CROSS_NIC] = INT(C_I64, 0, 2, O_UNDEF, O_UNDEF, 0, 0, 0, 0, 1, 0,
                        cross_nic_text),
    /* paths.cc ncclPxnDisable (int), tested with == 1 (search.cc), != 1
     * (paths.cc), == 0 (init.cc) and as a boolean (enqueue.cc). */
    [R_PXN_DISABLE] = INT(C_I32, 0, 1, O_UNDEF, O_UNDEF, 0, 0, 0, 0, 1, 0,
                          pxn_disable_text),
    /* search.cc ncclTopoGetNetDev: int pxnLevel, 0..2. */
    [R_P2P_PXN_LEVEL] = INT(C_I32, 0, 2, O_UNDEF, O_UNDEF, 0, 0, 0, 0, 1, 0,
                            cross_nic_text),
    /* paths.cc ncclTopoCheckP2p: 2 skips the NVML check, any other nonzero
     * value ignores a disabled P2P (like 1). */
    [R_IGNORE_DISABLED_P2P] = INT(C_I64, 0, 2, O_AS, O_AS, 0, 0, 1, 1, 1, 0,
                                  ignore_disabled_p2p_text),
    /* paths.cc ncclTopoCheckGdr: 0 off, a negative value auto, positive on. */
    [R_NET_GDR_READ] = INT(C_I32, 0, 1, O_AS, O_AS, F_HIGH_WARN, 0, -2, 1, -2, -1,
                           net_gdr_read_text),

    /* net_ib.cc ncclIbRtrQp/ncclIbRtsQp: the verbs attributes are 8-bit, and
     * the hardware takes a 5-bit ACK timeout, a 3-bit retry count, a 4-bit
     * service level; -1 leaves SL/TC to NCCL (ncclIbConnect). */
    [R_IB_TIMEOUT] = INT(C_U8, 0, 31, O_NONE, O_FAIL, 0, 0, 0, 0, 1, 0,
                         ib_timeout_text),
    [R_IB_RETRY] = INT(C_U8, 0, 7, O_NONE, O_FAIL, 0, 0, 0, 0, 1, 0,
                       ib_timeout_text),
    [R_IB_SL] = INT(C_U8, 0, 15, O_NONE, O_FAIL, 0, 0, 0, 0, -1, -1,
                    ib_sl_text),
    [R_IB_TC] = INT(C_U8, 0, 255, O_NONE, O_NONE, 0, 0, 0, 0, -1, -1, 0),
    /* net_ib.cc ncclIbGetGidIndex (int): >= 0 is the index, a negative
     * value selects it automatically (-1). */
    [R_IB_GID] = INT(C_I32, -1, 255, O_CLAMP, O_FAIL, 0, 0, 0, 0, 1, 0,
                     ib_gid_text),
    /* net_ib.cc ncclIbConnect/ncclIbAccept: nqps = env * ndevs into a table of
     * NCCL_IB_MAX_QPS (128) entries, with no check. */
    [R_IB_QPS] = INT(C_I64, 1, 128, O_FAIL, O_FAIL, 0, 0, 0, 0, 1, 0,
                     ib_qps_text),
    /* net_ib.cc ncclIbGetGidIndex: compared with a GID's RoCE version. */
    [R_IB_ROCE] = INT(C_I32, 1, 2, O_UNDEF, O_UNDEF, 0, 0, 0, 0, 1, 0,
                      ib_roce_text),
    /* net_ib.cc ncclIbRelaxedOrderingCapable: 1 or 2 try it, anything else is off. */
    [R_IB_RELAXED_ORDERING] = INT(C_I32, 0, 2, O_AS, O_AS, 0, 0, 0, 0, 1, 0,
                                  ib_relaxed_ordering_text),
    /* net_ib.cc ncclIbInitDevices: > 0 and == 2; gin_host_gdaki.cc: a boolean. */
    [R_IB_DATA_DIRECT] = INT(C_I64, 0, 2, O_UNDEF, O_UNDEF, 0, 0, 0, 0, 1, 0,
                             ib_data_direct_text),
    /* shm.cc initCeOperation: bit 1 sender side, bit 2 receiver side. */
    [R_SHM_MEMCPY_MODE] = INT(C_I64, 0, 3, O_UNDEF, O_UNDEF, 0, 0, 0, 0, 1, 0,
                              shm_memcpy_mode_text),
    /* shm.cc initCeOperation: anything but 1 or 2 "Ignoring SHM locality": 2. */
    [R_SHM_LOCALITY] = INT(C_I32, 1, 2, O_AS, O_AS, 0, 0, 2, 2, 1, 0,
                           shm_locality_text),
    /* enqueue.cc ncclLaunchKernel: (CUlaunchMemSyncDomain): 0 default, 1 remote. */
    [R_MEM_SYNC_DOMAIN] = INT(C_I32, 0, 1, O_FAIL, O_FAIL, 0, 0, 0, 0, 1, 0,
                              mem_sync_domain_text),
    /* net_socket.cc ncclNetSocketGetNsockNthread (int): -2 auto; above
     * MAX_THREADS (16) "setting to 16"; sockets: threads x sockets is at most
     * MAX_SOCKETS (64), more is cut down. */
    [R_SOCKET_NTHREADS] = INT(C_I32, 0, 16, O_UNDEF, O_CLAMP, 0, 0, 0, 0, -2, -2,
                              socket_nthreads_text),
    [R_SOCKET_NSOCKS] = INT(C_I32, 1, 64, O_UNDEF, O_CLAMP, 0, 0, 0, 0, -2, -2,
                            socket_nsocks_text),
    /* socket.cc socketSetFlags (int): > 0 is set with setsockopt, -1 or any
     * other value keeps the system's size. */
    [R_SOCKET_BUF] = INT(C_I32, 1, INT_MAX, O_DEFAULT, O_NONE, 0, 0, 0, 0, -1, -1, 0),
    /* init.cc devCommSetup (uint32_t): not a power of 2 "is being ignored",
     * more than 1 GiB is cut to 1 GiB. */
    [R_WORK_FIFO] = INT(C_U32, 1, 1 << 30, O_UNDEF, O_CLAMP, F_POW2, 0, 0, 0, 1, 0,
                        work_fifo_text),
    /* gin_host.cc ncclGinConnectOnce (int): outside 0..1 GiB-1 "has invalid
     * value": 65536. */
    [R_GIN_POOL] = INT(C_I32, 0, (1 << 30) - 1, O_AS, O_AS, 0, 0, 65536, 65536, 1, 0,
                       gin_pool_text),
    /* plugin/net.cc initPluginLibsOnceFunc: -1 auto, 2 proxy, 3 GDAKI. */
    [R_GIN_TYPE] = INT(C_I64, 2, 3, O_UNDEF, O_UNDEF, 0, 0, 0, 0, -1, -1,
                       gin_type_text),
    /* gin_host.cc ncclGinConnectOnce: std::min<int>(NCCL_GIN_MAX_CONTEXTS 4, env). */
    [R_GIN_NCONTEXTS] = INT(C_I32, 1, 4, O_UNDEF, O_CLAMP, 0, 0, 0, 0, 1, 0,
                            gin_ncontexts_text),
    /* gin_host_proxy.cc ncclGinProxyCreateContext: uint64_t; -1 is the
     * default; more than the plugin's maximum is capped. */
    [R_GIN_QUEUE] = INT(C_I64, 1, LLONG_MAX, O_UNDEF, O_NONE, 0, 0, 0, 0, -1, -1,
                        gin_queue_text),
    /* init.cc fillInfo: -2 hashes the rack serial, -1 keeps NVML's, anything
     * else is the clique id, an unsigned int. */
    [R_MNNVL_CLIQUE] = INT(C_U32, 0, UINT_MAX, O_NONE, O_NONE, 0, 0, 0, 0, -2, -1, 0),
    /* dev_runtime.cc ncclDevrInitOnce: size_t bigSize; -1 and 0 are auto. */
    [R_WIN_STRIDE] = INT(C_I64, 1, LLONG_MAX, O_UNDEF, O_NONE, 0, 0, 0, 0, -1, 0,
                         win_stride_text),
    /* proxy.cc ncclProxyProgress: -1 none, else signal(sig, ...). */
    [R_SIGNAL] = INT(C_I32, 1, 64, O_UNDEF, O_UNDEF, 0, 0, 0, 0, -1, -1,
                     signal_text),
    /* enqueue.cc calcCollChunking: (int), -2 auto, else a chunk size cap. */
    [R_NVLSTREE_CHUNK] = INT(C_I32, 1, INT_MAX, O_UNDEF, O_NONE, 0, 0, 0, 0, -2, -2,
                             nvlstree_chunk_text),
    /* enqueue.cc ncclInitKernelsForDevice: int, nonzero is passed to CUDA
     * as a shared-memory carveout percentage (-1: CUDA's default). */
    [R_CARVEOUT] = INT(C_I32, 0, 100, O_FAIL, O_FAIL, 0, 0, 0, 0, -1, -1,
                       carveout_text),

    /* tuning.cc ncclTopoTuneModel -> parseList: ';' segments, "func:" prefixes
     * on all but the first, ',' tokens, a leading '^', strcasecmp; strtok
     * skips empty tokens; an unknown token or prefix, or a later segment
     * without a prefix, is ncclInvalidUsage. */
    [R_PROTO] = { V_LIST, 0, 0, 0, F_FUNCS, 0, 0, 0, 0, 0, NONE, proto_tokens,
                  proto_text },
    [R_ALGO] = { V_LIST, 0, 0, 0, F_FUNCS, 0, 0, 0, 0, 0, NONE,
                 algo_tokens,
                 proto_text },
    /* paths.cc ncclGetLevel: strcmp against topoPathTypeStr[0..PATH_SYS]
     * (topo.cc), else, when it starts with a digit, (int)strtol as the old
     * numbering 0 LOC 1 PIX 2 PXB 3 PHB 4+ SYS; anything else is ignored. */
    [R_LEVEL] = { V_LEVEL, 0, 0, 0, F_CASE, 0, 0, 0, 0, 0, NONE,
                  level_tokens, level_text },
    /* debug.cc ncclDebugInit: strcasecmp; anything else logs nothing. */
    [R_DEBUG] = { V_ENUM, 0, 0, 0, 0, 0, 0, 0, 0, 0, NONE, debug_tokens,
                  debug_text },
    /* debug.cc ncclDebugInit: strtok list, unknown names skipped; the mask
     * starts at 0 (or all with '^'), so an empty value masks every line. */
    [R_SUBSYS] = { V_MASK, 0, 0, 0, F_EMPTY_ERR, 0, 0, 0, 0, 0, NONE,
                   subsys_tokens,
                   subsys_text },
    [R_TS_LEVELS] = { V_MASK, 0, 0, 0, F_EMPTY_ERR, 0, 0, 0, 0, 0, NONE,
                      ts_levels_tokens,
                      ts_levels_text },
    /* debug.cc ncclDebugInit: an empty format leaves every line without one. */
    [R_TS_FORMAT] = STRING(F_EMPTY_ERR, ts_format_text),
    /* init.cc envConfigOverride: an empty name matches no network plugin. */
    [R_NET] = STRING(F_EMPTY_ERR, net_text),
    /* plugin/net.cc initPluginLibsOnceFunc: empty is "none", unset tries
     * libnccl-net.so. */
    [R_NET_PLUGIN] = STRING(F_EMPTY_ERR,
                            net_plugin_text),
    /* misc/utils.cc getHostHashOnce: the value replaces the host name. */
    [R_HOSTID] = STRING(F_EMPTY_ERR, hostid_text),
    /* bootstrap.cc bootstrapNetInit, bootstrapGetUniqueId: ncclSocketGetAddrFromString. */
    [R_COMM_ID] = STRING(F_EMPTY_ERR, comm_id_text),
    /* socket.cc ncclFindInterfaces: only strlen(env) > 1 is used. */
    [R_IFNAME] = STRING(F_MIN2, ifname_text),
    /* socket.cc envSocketFamily: strcmp, anything else is not forced. */
    [R_FAMILY] = { V_ENUM, 0, 0, 0, F_CASE, 0, 0, 0, 0, 0, NONE, family_tokens,
                   family_text },
    /* net_ib.cc envIbAddrFamily: strcmp, anything else is AF_INET. */
    [R_IB_FAMILY] = { V_ENUM, 0, 0, 0, F_CASE, 0, 0, 0, 0, 0, NONE, family_tokens,
                      ib_family_text },
    /* init.cc initTransportsRank: strcasecmp "GROUP", anything else PARALLEL. */
    [R_LAUNCH_MODE] = { V_ENUM, 0, 0, 0, 0, 0, 0, 0, 0, 0, NONE, launch_mode_tokens,
                        launch_mode_text },
    /* topo.cc ncclTopoGetSystem: xml.cc ncclTopoGetXmlFromFile cannot open "",
     * and the default virtualTopology.xml is not read either. */
    [R_TOPO_FILE] = STRING(F_EMPTY_ERR, topo_file_text),
    /* search.cc ncclTopoCompute: xml.cc ncclTopoGetXmlGraphFromFile fails
     * with ncclSystemError. */
    [R_GRAPH_FILE] = STRING(F_EMPTY_ERR, graph_file_text),
    /* init.cc initTransportsRank, search.cc ncclTopoDumpGraphs: xml.cc
     * ncclTopoDumpXmlToFile cannot open "" and dumps nothing (a warning). */
    [R_PATH_WRITE] = STRING(0, path_write_text),
    /* sym_kernels.cc kernelMask_user: a name that matches no kernel enables none. */
    [R_SYM_KERNEL] = STRING(F_EMPTY_ERR, sym_kernel_text),
    /* ras/client_support.cc rasClientInitSocket: ncclSocketGetAddrFromString. */
    [R_RAS_ADDR] = STRING(F_EMPTY_ERR, ras_addr_text),

    /* misc/utils.cc parseStringList (v2.28.9-1:src/misc/utils.cc:136-166):
     * the port is atoi() of what follows ':', so an empty one is port 0. */
    [R_IB_HCA] = { V_HCA, 0, 0, 0, 0, 0, 0, 0, 0, 0, NONE, 0, ib_hca_text },

    /* The later releases' rules; releases.h's generated table says which
     * release uses each, from which release, and where in NCCL's source. */
    /* 2.30.7 parseStringList: "hca:port:rail:plane", an empty port is any port. */
    [R_IB_HCA_ANYPORT] = { V_HCA, 0, 0, 0, F_ANYPORT, 0, 0, 0, 0, 0, NONE, 0, 0 },
    /* 2.29.2 init.cc getEnvCtaPolicyOnce: a leading digit alone (0, 1, 2;
     * 3-9 INFO and unset), else strtok '|' tokens, strcasecmp, unknown
     * ones ignored with an INFO line. */
    [R_CTA_POLICY_ENUM] = { V_POLICY, 0, 0, 0, 0, 0, 0, 0, 0, 0, NONE, cta_policy_tokens,
                            cta_policy_text },
    /* 2.29.2 paths.cc ncclTopoCheckGdr: ncclGetLevel as before, but a P2C
     * path is no longer relabelled C2C. */
    [R_GDR_LEVEL_P2C] = { V_LEVEL, 0, 0, 0, F_CASE | F_P2C, 0, 0, 0, 0, 0, NONE, level_tokens,
                          level_text },
    /* 2.29.7 misc/param.cc ncclGetEnvNoCacheOnce: strtok ',' tokens, strcmp
     * "ALL" or a name; 2.30.3 param.cc: the same, tokens trimmed. */
    [R_NO_CACHE] = { V_NAMES, 0, 0, 0, F_CASE, 0, 0, 0, 0, 0, NONE, "ALL", no_cache_text },
    [R_NO_CACHE_TRIM] = { V_NAMES, 0, 0, 0, F_CASE | F_TRIM, 0, 0, 0, 0, 0, NONE, "ALL",
                          no_cache_text },
    /* 2.30.7 registry enum (param/parser_enum.h): trimmed, strcasecmp. */
    [R_DEBUG_TRIM] = { V_ENUM, 0, 0, 0, F_TRIM, 0, 0, 0, 0, 0, NONE, debug_tokens, debug_text },
    /* 2.30.7 registry bitset (param/parser_bitset.h): '^', trimmed
     * case-insensitive tokens, one unknown rejects the value; DESTROY
     * (2.30.3) and ALLOC_HOST (2.30.7) are new. An empty value is a mask of
     * 0, as in 2.28.9. */
    [R_SUBSYS_BITSET] = { V_MASK, 0, 0, 0, F_EMPTY_ERR | F_TRIM | F_WHOLE, 0, 0, 0, 0, 0, NONE,
                          subsys_new_tokens, subsys_text },
    [R_TS_LEVELS_BITSET] = { V_MASK, 0, 0, 0, F_EMPTY_ERR | F_TRIM | F_WHOLE, 0, 0, 0, 0, 0,
                             NONE, ts_levels_tokens, ts_levels_text },
    /* 2.30 registry bool (param/parser_default.h): no trimming. */
    [R_BOOL] = { V_BOOL, 0, 0, 0, 0, 0, 0, 0, 0, 0, NONE, bool_tokens, bool_text },
};

const char nccl_collectives[] = "Broadcast,Reduce,AllGather,ReduceScatter,AllReduce";

/* Combinations with NCCL_PROTO (tuning.cc ncclTopoTuneModel; p2p.cc and
 * net.cc allocate every protocol's buffer on every connection). */
const struct noop_rule noop_rules[] = {
    { 512, "NCCL_NTHREADS", "Simple",
      "it sets the Simple and LL thread counts; LL already runs its maximum of 512 and Simple "
      "is excluded" },
    { LLONG_MIN, "NCCL_LL128_NTHREADS", "LL128", "only LL128 reads it" },
    { LLONG_MIN, "NCCL_LL_BUFFSIZE", "LL",
      "no collective uses the LL buffer, which NCCL still allocates at that size on every "
      "connection" },
    { LLONG_MIN, "NCCL_LL128_BUFFSIZE", "LL128",
      "no collective uses the LL128 buffer, which NCCL still allocates at that size on every "
      "connection" },
};
const size_t noop_rules_count = sizeof noop_rules / sizeof noop_rules[0];

/* Every name NCCL 2.28.9 reads, in strcmp order (nccl_param_find's
 * bsearch depends on it; scripts/nccl-params.py sorts the list and a unit
 * test checks), with its rule. Where NCCL reads each is in
 * init/nccl/nccl_params.tsv. */
const struct nccl_param nccl_params[] = {
    { "NCCL_ALGO", R_ALGO },
    { "NCCL_ALLOC_P2P_NET_LL_BUFFERS", R_SWITCH_ONE },
    { "NCCL_BUFFSIZE", R_BUFFSIZE },
    { "NCCL_CGA_CLUSTER_SIZE", R_CGA_CLUSTER },
    { "NCCL_CHECK_POINTERS", R_SWITCH_ONE },
    { "NCCL_CHUNK_SIZE", R_I64 },
    { "NCCL_COLLNET_ENABLE", R_COLLNET_ENABLE },
    { "NCCL_COLLNET_NODE_THRESHOLD", R_I32 },
    { "NCCL_COMM_BLOCKING", R_BLOCKING },
    { "NCCL_COMM_ID", R_COMM_ID },
    { "NCCL_COMM_SHRINK_SHARE_RESOURCES", R_SWITCH_I32 },
    { "NCCL_COMM_SPLIT_SHARE_RESOURCES", R_SPLIT_SHARE },
    { "NCCL_CONF_FILE", R_STRING_EMPTY_SAME },
    { "NCCL_CONNECT_ROUND_MAX_PEERS", R_I32 },
    { "NCCL_CREATE_THREAD_CONTEXT", R_SWITCH_I32 },
    { "NCCL_CROSS_NIC", R_CROSS_NIC },
    { "NCCL_CTA_POLICY", R_CTA_POLICY },
    { "NCCL_CUMEM_ENABLE", R_CUMEM },
    { "NCCL_CUMEM_HOST_ENABLE", R_SWITCH_AUTO1 },
    { "NCCL_DEBUG", R_DEBUG },
    { "NCCL_DEBUG_FILE", R_STRING_EMPTY_SAME },
    { "NCCL_DEBUG_SUBSYS", R_SUBSYS },
    { "NCCL_DEBUG_TIMESTAMP_FORMAT", R_TS_FORMAT },
    { "NCCL_DEBUG_TIMESTAMP_LEVELS", R_TS_LEVELS },
    { "NCCL_DMABUF_ENABLE", R_SWITCH },
    { "NCCL_ENV_PLUGIN", R_STRING_EMPTY_SAME },
    { "NCCL_GDRCOPY_ENABLE", R_SWITCH_ONE },
    { "NCCL_GDRCOPY_FIFO_ENABLE", R_SWITCH_ONE },
    { "NCCL_GDRCOPY_FLUSH_ENABLE", R_SWITCH },
    { "NCCL_GDRCOPY_SYNC_ENABLE", R_SWITCH },
    { "NCCL_GDR_FLUSH_DISABLE", R_SWITCH },
    { "NCCL_GIN_COUNTER_POOL_SIZE", R_GIN_POOL },
    { "NCCL_GIN_ENABLE", R_SWITCH },
    { "NCCL_GIN_ERROR_QUERY_SEC", R_I64 },
    { "NCCL_GIN_GDAKI_NIC_HANDLER", R_I32 },
    { "NCCL_GIN_GDAKI_QP_DEPTH", R_U32 },
    { "NCCL_GIN_NCONTEXTS", R_GIN_NCONTEXTS },
    { "NCCL_GIN_PROXY_QUEUE_SIZE", R_GIN_QUEUE },
    { "NCCL_GIN_SIGNAL_POOL_SIZE", R_GIN_POOL },
    { "NCCL_GIN_TYPE", R_GIN_TYPE },
    { "NCCL_GRAPH_DUMP_FILE", R_PATH_WRITE },
    { "NCCL_GRAPH_DUMP_FILE_RANK", R_I64 },
    { "NCCL_GRAPH_FILE", R_GRAPH_FILE },
    { "NCCL_GRAPH_HELPER_DISABLE", R_UNREAD },
    { "NCCL_GRAPH_MIXING_SUPPORT", R_SWITCH },
    { "NCCL_GRAPH_REGISTER", R_SWITCH },
    { "NCCL_GROUP_CUDA_STREAM", R_UNREAD },
    { "NCCL_HOSTID", R_HOSTID },
    { "NCCL_IB_ADAPTIVE_ROUTING", R_SWITCH_DEFAULT2 },
    { "NCCL_IB_ADDR_FAMILY", R_IB_FAMILY },
    { "NCCL_IB_ADDR_RANGE", R_STRING_EMPTY_SAME },
    { "NCCL_IB_AR_THRESHOLD", R_I64 },
    { "NCCL_IB_DATA_DIRECT", R_IB_DATA_DIRECT },
    { "NCCL_IB_DISABLE", R_SWITCH },
    { "NCCL_IB_ECE_ENABLE", R_SWITCH },
    { "NCCL_IB_FIFO_TC", R_IB_TC },
    { "NCCL_IB_GID_INDEX", R_IB_GID },
    { "NCCL_IB_HCA", R_IB_HCA },
    { "NCCL_IB_MERGE_NICS", R_SWITCH },
    { "NCCL_IB_MERGE_VFS", R_SWITCH },
    { "NCCL_IB_MQP_RETRY_ALL", R_SWITCH },
    { "NCCL_IB_MQP_RETRY_CNT", R_I32 },
    { "NCCL_IB_MQP_RETRY_SLEEP_MSEC", R_I32 },
    { "NCCL_IB_PCI_RELAXED_ORDERING", R_IB_RELAXED_ORDERING },
    { "NCCL_IB_PKEY", R_U16 },
    { "NCCL_IB_QPS_PER_CONNECTION", R_IB_QPS },
    { "NCCL_IB_RETRY_CNT", R_IB_RETRY },
    { "NCCL_IB_RETURN_ASYNC_EVENTS", R_SWITCH },
    { "NCCL_IB_ROCE_VERSION_NUM", R_IB_ROCE },
    { "NCCL_IB_ROUTABLE_FLID_GID_INDEX", R_I32 },
    { "NCCL_IB_SL", R_IB_SL },
    { "NCCL_IB_SPLIT_DATA_ON_QPS", R_SWITCH },
    { "NCCL_IB_TC", R_IB_TC },
    { "NCCL_IB_TIMEOUT", R_IB_TIMEOUT },
    { "NCCL_IB_USE_INLINE", R_SWITCH },
    { "NCCL_IB_WARN_RAIL_LOCAL", R_SWITCH },
    { "NCCL_IGNORE_CPU_AFFINITY", R_SWITCH },
    { "NCCL_IGNORE_DISABLED_P2P", R_IGNORE_DISABLED_P2P },
    { "NCCL_L1_SHARED_MEMORY_CARVEOUT", R_CARVEOUT },
    { "NCCL_LAUNCH_MODE", R_LAUNCH_MODE },
    { "NCCL_LAUNCH_ORDER_IMPLICIT", R_SWITCH },
    { "NCCL_LAUNCH_RACE_FATAL", R_SWITCH },
    { "NCCL_LEGACY_CUDA_REGISTER", R_SWITCH },
    { "NCCL_LL128_BUFFSIZE", R_BUFFSIZE },
    { "NCCL_LL128_C2C", R_SWITCH },
    { "NCCL_LL128_NTHREADS", R_LL128_NTHREADS },
    { "NCCL_LL_BUFFSIZE", R_BUFFSIZE },
    { "NCCL_LOCAL_REGISTER", R_SWITCH },
    { "NCCL_MAX_CTAS", R_CTAS },
    { "NCCL_MAX_NCHANNELS", R_MAX_NCHANNELS },
    { "NCCL_MAX_NRINGS", R_MAX_NCHANNELS },
    { "NCCL_MAX_P2P_NCHANNELS", R_MAX_P2P_NCHANNELS },
    { "NCCL_MEM_SYNC_DOMAIN", R_MEM_SYNC_DOMAIN },
    { "NCCL_MIN_CTAS", R_CTAS },
    { "NCCL_MIN_NCHANNELS", R_MIN_NCHANNELS },
    { "NCCL_MIN_NRINGS", R_MIN_NCHANNELS },
    { "NCCL_MIN_P2P_NCHANNELS", R_MIN_P2P_NCHANNELS },
    { "NCCL_MNNVL_CLIQUE_ID", R_MNNVL_CLIQUE },
    { "NCCL_MNNVL_ENABLE", R_MNNVL_ENABLE },
    { "NCCL_MNNVL_RAIL_PER_HOST", R_SWITCH },
    { "NCCL_MNNVL_SCATTER_NETS_ENABLE", R_SWITCH },
    { "NCCL_MNNVL_UUID", R_I64 },
    { "NCCL_NCHANNELS_PER_NET_PEER", R_CONFIG_POSITIVE },
    { "NCCL_NET", R_NET },
    { "NCCL_NETDEVS_POLICY", R_STRING_EMPTY_SAME },
    { "NCCL_NET_DISABLE_INTRA", R_SWITCH_ONE },
    { "NCCL_NET_FORCE_FLUSH", R_SWITCH },
    { "NCCL_NET_FORCE_MERGE", R_STRING },
    { "NCCL_NET_GDR_C2C", R_SWITCH },
    { "NCCL_NET_GDR_LEVEL", R_LEVEL },
    { "NCCL_NET_GDR_READ", R_NET_GDR_READ },
    { "NCCL_NET_MERGE_LEVEL", R_STRING },
    { "NCCL_NET_OPTIONAL_RECV_COMPLETION", R_SWITCH },
    { "NCCL_NET_OVERHEAD", R_I64 },
    { "NCCL_NET_PLUGIN", R_NET_PLUGIN },
    { "NCCL_NET_PLUGIN_REF_COUNT", R_I32 },
    { "NCCL_NET_SHARED_BUFFERS", R_SWITCH_DEFAULT2 },
    { "NCCL_NET_SHARED_COMMS", R_SWITCH },
    { "NCCL_NSOCKS_PERTHREAD", R_SOCKET_NSOCKS },
    { "NCCL_NTHREADS", R_NTHREADS },
    { "NCCL_NVB_DISABLE", R_SWITCH },
    { "NCCL_NVB_PRECONNECT", R_SWITCH },
    { "NCCL_NVLINK_UTIL_CENTRIC_SCHED_ENABLE", R_CONFIG_01 },
    { "NCCL_NVLSTREE_MAX_CHUNKSIZE", R_NVLSTREE_CHUNK },
    { "NCCL_NVLS_CHUNKSIZE", R_SIZE_I32 },
    { "NCCL_NVLS_ENABLE", R_NVLS_ENABLE },
    { "NCCL_NVLS_NCHANNELS", R_CONFIG_POSITIVE },
    { "NCCL_NVTX_DISABLE", R_SWITCH },
    { "NCCL_OOB_NET_ENABLE", R_SWITCH },
    { "NCCL_OOB_NET_IFNAME", R_STRING_EMPTY_SAME },
    { "NCCL_P2P_DIRECT_DISABLE", R_SWITCH },
    { "NCCL_P2P_DISABLE", R_P2P_DISABLE },
    { "NCCL_P2P_LEVEL", R_LEVEL },
    { "NCCL_P2P_LL_THRESHOLD", R_I64 },
    { "NCCL_P2P_NET_CHUNKSIZE", R_SIZE_I32 },
    { "NCCL_P2P_NVL_CHUNKSIZE", R_SIZE_I32 },
    { "NCCL_P2P_PCI_CHUNKSIZE", R_SIZE_I32 },
    { "NCCL_P2P_PXN_LEVEL", R_P2P_PXN_LEVEL },
    { "NCCL_P2P_READ_ENABLE", R_SWITCH_DEFAULT2 },
    { "NCCL_P2P_SCHEDULE_GROUP_SIZE", R_SIZE_I32 },
    { "NCCL_P2P_USE_CUDA_MEMCPY", R_SWITCH_I32 },
    { "NCCL_PAT_ENABLE", R_PAT_ENABLE },
    { "NCCL_PROFILER_PLUGIN", R_STRING_EMPTY_SAME },
    { "NCCL_PROGRESS_APPENDOP_FREQ", R_I64 },
    { "NCCL_PROTO", R_PROTO },
    { "NCCL_PROXY_APPEND_BATCH_SIZE", R_I64 },
    { "NCCL_PROXY_CPUSET", R_STRING },
    { "NCCL_PROXY_DUMP_SIGNAL", R_SIGNAL },
    { "NCCL_PXN_C2C", R_SWITCH },
    { "NCCL_PXN_DISABLE", R_PXN_DISABLE },
    { "NCCL_RAS_ADDR", R_RAS_ADDR },
    { "NCCL_RAS_ENABLE", R_SWITCH_ONE },
    { "NCCL_RAS_TIMEOUT_FACTOR", R_I64 },
    { "NCCL_REPORT_CONNECT_PROGRESS", R_SWITCH },
    { "NCCL_RUNTIME_CONNECT", R_SWITCH },
    { "NCCL_SET_CPU_STACK_SIZE", R_SWITCH },
    { "NCCL_SET_STACK_SIZE", R_SWITCH_ONE },
    { "NCCL_SET_THREAD_NAME", R_SWITCH_ONE },
    { "NCCL_SHM_DISABLE", R_SWITCH_ONE },
    { "NCCL_SHM_LOCALITY", R_SHM_LOCALITY },
    { "NCCL_SHM_MEMCPY_MODE", R_SHM_MEMCPY_MODE },
    { "NCCL_SHM_USE_CUDA_MEMCPY", R_SWITCH },
    { "NCCL_SINGLE_PROC_MEM_REG_ENABLE", R_SWITCH },
    { "NCCL_SOCKET_FAMILY", R_FAMILY },
    { "NCCL_SOCKET_IFNAME", R_IFNAME },
    { "NCCL_SOCKET_INLINE", R_I64 },
    { "NCCL_SOCKET_MIN_TASKSIZE", R_I32 },
    { "NCCL_SOCKET_NTHREADS", R_SOCKET_NTHREADS },
    { "NCCL_SOCKET_RCVBUF", R_SOCKET_BUF },
    { "NCCL_SOCKET_RETRY_CNT", R_I64 },
    { "NCCL_SOCKET_RETRY_SLEEP_MSEC", R_I64 },
    { "NCCL_SOCKET_SNDBUF", R_SOCKET_BUF },
    { "NCCL_SYM_CTAS", R_I32 },
    { "NCCL_SYM_KERNEL", R_SYM_KERNEL },
    { "NCCL_THREAD_THRESHOLDS", R_STRING_EMPTY_SAME },
    { "NCCL_TOPO_DUMP_FILE", R_PATH_WRITE },
    { "NCCL_TOPO_DUMP_FILE_RANK", R_I64 },
    { "NCCL_TOPO_FILE", R_TOPO_FILE },
    { "NCCL_TUNER_PLUGIN", R_STRING_EMPTY_SAME },
    { "NCCL_UID_STAGGER_RATE", R_I64 },
    { "NCCL_UID_STAGGER_THRESHOLD", R_I64 },
    { "NCCL_UNPACK_DOUBLE_NCHANNELS", R_SWITCH },
    { "NCCL_WARN_ENABLE_DEBUG_INFO", R_WARN_DEBUG_INFO },
    { "NCCL_WIN_ENABLE", R_SWITCH },
    { "NCCL_WIN_STRIDE", R_WIN_STRIDE },
    { "NCCL_WORK_ARGS_BYTES", R_I64 },
    { "NCCL_WORK_FIFO_BYTES", R_WORK_FIFO },
};
const size_t nccl_params_count = sizeof nccl_params / sizeof nccl_params[0];

static int cmp_param(const void *key, const void *elem)
{
    return strcmp(key, ((const struct nccl_param *)elem)->name);
}

const struct nccl_param *nccl_param_find(const char *name)
{
    return bsearch(name, nccl_params, nccl_params_count, sizeof nccl_params[0], cmp_param);
}
