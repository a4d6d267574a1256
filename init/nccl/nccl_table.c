/* NCCL 2.28.9's parameters and how it reads them.
 *
 * Names: every NCCL_* variable libnccl 2.28.9 reads, as listed in
 * init/nccl/nccl_params.tsv (scripts/nccl-params.py over the source tag
 * v2.28.9-1: the NCCL_PARAM declarations and the direct ncclGetEnv/getenv
 * reads); tests/unit/test_validate.c checks that this table has exactly
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
#include "lib/mem.h"

#include <limits.h>
#include <string.h>

#define NONE 1, 0 /* no special values (lo > hi) */

/* kind V_INT: C type, accepted range, what NCCL does below and above it,
 * flags, multiple-of, the values used instead (O_AS), accepted specials. */
#define INT(ct, lo, hi, below, above, fl, st, asl, ash, spl, sph, txt)                             \
    { V_INT, ct, below, above, fl, st, asl, ash, lo, hi, spl, sph, 0, txt }
#define STRING(fl, txt) { V_STRING, 0, 0, 0, fl, 0, 0, 0, 0, 0, NONE, 0, txt }

/* The rules' token lists, then their texts (rule_string says why), one
 * NUL-terminated string each in one array, named S_<the rule they were
 * written for> (rules share some). The rules hold their index: a pointer
 * in a table costs a static-pie binary a 24-byte relocation besides the
 * 8-byte pointer, and these were 73. */
#define STRINGS(X) \
    X(S_PROTO_TOKENS, "LL,LL128,Simple") \
    X(S_ALGO_TOKENS, "Tree,Ring,CollNetDirect,CollNetChain,NVLS,NVLSTree,PAT") \
    X(S_LEVEL_TOKENS, "LOC,NVL,NVB,C2C,PIX,PXB,P2C,PXN,PHB,SYS") \
    X(S_DEBUG_TOKENS, "VERSION,WARN,INFO,ABORT,TRACE") \
    X(S_SUBSYS_TOKENS, "INIT,COLL,P2P,SHM,NET,GRAPH,TUNING,ENV,ALLOC,CALL,PROXY,NVLS,BOOTSTRAP," \
      "REG,PROFILE,RAS,ALL") \
    X(S_TS_LEVELS_TOKENS, "ALL,VERSION,WARN,INFO,ABORT,TRACE") \
    X(S_FAMILY_TOKENS, "AF_INET,AF_INET6") \
    X(S_LAUNCH_MODE_TOKENS, "GROUP,PARALLEL") \
    X(S_UNREAD, "NCCL " NCCL_TABLE_VERSION " declares it but never reads it: it has no effect") \
    X(S_SIZE_I32, "NCCL takes it as a size or count: zero or less breaks the transfers") \
    X(S_SWITCH_ONE, "only 1 turns it on: NCCL reads every other value as 0 (off)") \
    X(S_SWITCH, "NCCL reads any nonzero value as 1 (on)") \
    X(S_SWITCH_AUTO1, "NCCL reads any value but -1 (auto) and 0 as 1 (on)") \
    X(S_SWITCH_DEFAULT2, "NCCL reads any value but -2 (its default) and 0 as 1 (on)") \
    X(S_P2P_DISABLE, "only 1 disables P2P: NCCL reads every other value as 0") \
    X(S_COLLNET_ENABLE, "NCCL sets any value but 0 and 1 to 0 (off)") \
    X(S_BUFFSIZE, "NCCL takes it as the buffer size: only -2 selects the default") \
    X(S_MAX_P2P_NCHANNELS, "NCCL would run P2P on no channel") \
    X(S_SPLIT_SHARE, "NCCL sets any value but 0 and 1 to 0") \
    X(S_CUMEM, "NCCL reads any positive value as 1 (on) and a negative one but -2 " \
      "(auto) as 0 (off)") \
    X(S_NVLS_ENABLE, "NCCL reads any value but 0 (off) and 2 (auto) as 1 (on)") \
    X(S_MNNVL_ENABLE, "NCCL reads any value but 0 (off) and 1 (on) as 2 (auto)") \
    X(S_CROSS_NIC, "NCCL only gives 0, 1 and 2 a meaning") \
    X(S_PXN_DISABLE, "NCCL tests it as ==1, !=1, ==0 and as a boolean: other values " \
      "half-disable PXN") \
    X(S_IGNORE_DISABLED_P2P, "NCCL reads any value but 0 and 2 as 1") \
    X(S_NET_GDR_READ, "NCCL reads any negative value as auto and any positive one as 1 (on)") \
    X(S_IB_TIMEOUT, "the verbs layer rejects it and the connection fails") \
    X(S_IB_SL, "InfiniBand has 16 service levels: the verbs layer rejects it") \
    X(S_IB_GID, "there is no such GID: the query fails") \
    X(S_IB_QPS, "NCCL needs at least 1 and has room for 128 QPs per connection") \
    X(S_IB_ROCE, "RoCE has versions 1 and 2 only: no GID matches") \
    X(S_IB_RELAXED_ORDERING, "NCCL reads any value but 1 and 2 as 0 (off)") \
    X(S_IB_DATA_DIRECT, "NCCL tests it as > 0, == 2 and as a boolean in different places") \
    X(S_SHM_MEMCPY_MODE, "NCCL only looks at its two lowest bits") \
    X(S_SHM_LOCALITY, "NCCL warns and uses 2 (receiver side)") \
    X(S_MEM_SYNC_DOMAIN, "CUDA has no such memory sync domain: the kernel launch fails") \
    X(S_SOCKET_NTHREADS, "NCCL would start a negative number of threads") \
    X(S_SOCKET_NSOCKS, "NCCL would open no socket") \
    X(S_WORK_FIFO, "NCCL would keep no work FIFO") \
    X(S_GIN_POOL, "NCCL warns and uses 65536") \
    X(S_GIN_TYPE, "NCCL knows -1 (auto), 2 (proxy) and 3 (GDAKI): GIN gets no transport") \
    X(S_GIN_NCONTEXTS, "NCCL would create no GIN context") \
    X(S_GIN_QUEUE, "NCCL takes it as an unsigned size: only -1 selects the default") \
    X(S_WIN_STRIDE, "NCCL takes it as a huge unsigned stride") \
    X(S_SIGNAL, "not a signal number: signal() fails and no handler is installed") \
    X(S_NVLSTREE_CHUNK, "NCCL would cap NVLS tree chunks at zero or less") \
    X(S_CARVEOUT, "CUDA takes -1 or a percentage: setting the kernel attribute fails") \
    X(S_PROTO, "communicator init fails with ncclInvalidUsage") \
    X(S_LEVEL, "NCCL ignores it without a word") \
    X(S_DEBUG, "NCCL logs nothing, without a word") \
    X(S_SUBSYS, "NCCL's mask is then 0: it prints nothing, not even warnings") \
    X(S_TS_LEVELS, "NCCL then timestamps no line (unset: warnings)") \
    X(S_TS_FORMAT, "NCCL then puts no timestamp on any line") \
    X(S_NET, "no network is called \"\": communicator init fails") \
    X(S_NET_PLUGIN, "NCCL loads no external net plugin, as with \"none\" (unset: it tries " \
      "libnccl-net.so)") \
    X(S_HOSTID, "every host gets the same host hash") \
    X(S_COMM_ID, "not an address: ncclGetUniqueId fails") \
    X(S_IFNAME, "NCCL ignores a value shorter than 2 bytes and picks an interface " \
      "itself") \
    X(S_FAMILY, "NCCL ignores it and takes the first address family it finds") \
    X(S_IB_FAMILY, "NCCL uses AF_INET without a word") \
    X(S_LAUNCH_MODE, "NCCL uses PARALLEL without a word") \
    X(S_TOPO_FILE, "NCCL opens no topology file, not even its default one") \
    X(S_GRAPH_FILE, "NCCL cannot open a file named \"\": communicator init fails") \
    X(S_PATH_WRITE, "NCCL cannot open a file named \"\" and dumps nothing") \
    X(S_SYM_KERNEL, "NCCL enables no symmetric kernel") \
    X(S_RAS_ADDR, "not an address: the RAS client socket is not set up")

#define S_ID(id, s) id,
#define S_TEXT(id, s) s "\0"
enum { S_NONE, STRINGS(S_ID) S_COUNT };
static const char rule_strings[] = STRINGS(S_TEXT);
_Static_assert(S_COUNT <= 256, "the rules keep a string's index in a byte");

/* The index-th string (1-based), or NULL for 0. Each offset is found once,
 * on demand, and only as far as the index asked for: the token lists come
 * first (STRINGS), so judging a value walks them alone, and a rule's text,
 * wanted only for a finding, walks on from there. Every offset found on
 * the first use cost each start 66 strlen() calls over 5 KB; a walk per
 * call cost some 80 per variable. */
static const char *rule_string(unsigned index)
{
    static unsigned short at[S_COUNT]; /* at[1] = 0 */
    static unsigned known = 1;         /* at[1..known] are found */
    if (!index)
        return 0;
    for (; known < index; known++)
        at[known + 1] = (unsigned short)(at[known] + strlen(rule_strings + at[known]) + 1);
    return rule_strings + at[index];
}

const char *rule_tokens(const struct value_rule *r)
{
    return rule_string(r->tokens);
}

const char *rule_text(const struct value_rule *r)
{
    return rule_string(r->text);
}

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
                   S_UNREAD },

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
                       S_SIZE_I32),

    /* Switches tested with == 1 (init.cc initGdrCopy, commAlloc,
     * initTransportsRank, ncclCommInitRankFunc; shm.cc shmCanConnect;
     * paths.cc ncclTopoCheckNet; bootstrap.cc bootstrapInit; debug.cc
     * ncclSetThreadName): any other value is off. */
    [R_SWITCH_ONE] = INT(C_I64, 0, 1, O_AS, O_AS, 0, 0, 0, 0, 1, 0,
                         S_SWITCH_ONE),
    /* Switches tested as a boolean or != 0 (net_ib.cc, topo.cc, transport/net.cc,
     * paths.cc, register/, enqueue.cc...): any nonzero value is on. */
    [R_SWITCH] = INT(C_I64, 0, 1, O_AS, O_AS, F_HIGH_WARN, 0, 1, 1, 1, 0,
                     S_SWITCH),
    /* The same, kept in an int first (proxy.cc setProxyThreadContext,
     * p2p.cc initCeOperation). */
    [R_SWITCH_I32] = INT(C_I32, 0, 1, O_AS, O_AS, F_HIGH_WARN, 0, 1, 1, 1, 0,
                         S_SWITCH),
    /* -1 is "auto", anything else is kept in an int and used as a boolean
     * (cudawrap.cc ncclCuMemHostEnable). */
    [R_SWITCH_AUTO1] = INT(C_I32, 0, 1, O_AS, O_AS, F_HIGH_WARN, 0, 1, 1, -1, -1,
                           S_SWITCH_AUTO1),
    /* -2 is NCCL's default, anything else is kept in an int and used as a
     * boolean (net_ib.cc ncclIbInitDevices ar, net.cc sendSetup/recvSetup
     * conn.shared, p2p.cc p2pGetInfo read). */
    [R_SWITCH_DEFAULT2] = INT(C_I32, 0, 1, O_AS, O_AS, F_HIGH_WARN, 0, 1, 1, -2, -2,
                              S_SWITCH_DEFAULT2),
    /* paths.cc ncclGetLevel: int disable = strtol(str, 0, 0); only 1
     * disables P2P. */
    [R_P2P_DISABLE] = INT(C_I32, 0, 1, O_AS, O_AS, F_STRTOL, 0, 0, 0, 1, 0,
                          S_P2P_DISABLE),
    /* init.cc envConfigOverride: (int)strtol(...), then anything but 0/1 is
     * "not a valid value 0/1, set it to 0". */
    [R_COLLNET_ENABLE] = INT(C_I32, 0, 1, O_AS, O_AS, F_STRTOL, 0, 0, 0, 1, 0,
                             S_COLLNET_ENABLE),
    /* debug.cc ncclDebugInit: strtoll with errno checked, kept in a bool. */
    [R_WARN_DEBUG_INFO] = INT(C_I64, 0, 1, O_AS, O_AS, F_HIGH_WARN, 0, 1, 1, 1, 0,
                              S_SWITCH),

    /* init.cc computeBuffSizes: comm->buffSizes[p] = env != -2 ? env : default,
     * an int; only -2 selects the default, every other value is the size. */
    [R_BUFFSIZE] = INT(C_I32, 1, INT_MAX, O_UNDEF, O_NONE, 0, 0, 0, 0, -2, -2,
                       S_BUFFSIZE),
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
                                S_MAX_P2P_NCHANNELS),
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
                          S_SPLIT_SHARE),
    /* cudawrap.cc ncclCuMemEnable (int): >= 0 is used as a boolean, -2 is
     * auto, any other negative value is off. */
    [R_CUMEM] = INT(C_I32, 0, 1, O_AS, O_AS, F_HIGH_WARN, 0, 0, 1, -2, -2,
                    S_CUMEM),
    /* nvls.cc ncclNvlsInit: 0 off, 2 auto, any other value forces NVLS on. */
    [R_NVLS_ENABLE] = INT(C_I64, 0, 2, O_AS, O_AS, 0, 0, 1, 1, 1, 0,
                          S_NVLS_ENABLE),
    /* init.cc initTransportsRank: 0 off, 1 on, any other value is auto. */
    [R_MNNVL_ENABLE] = INT(C_I64, 0, 2, O_AS, O_AS, 0, 0, 2, 2, 1, 0,
                           S_MNNVL_ENABLE),
    /* tuning.cc ncclPatEnable: 2 is auto, any other value is returned as is. */
    [R_PAT_ENABLE] = INT(C_I32, 0, 2, O_AS, O_AS, 0, 0, 1, 1, 1, 0,
                         S_NVLS_ENABLE),
    /* search.cc ncclTopoCompute and ncclTopoGetNetDev compare it with 0, 1, 2. */
    [R_CROSS_NIC] = INT(C_I64, 0, 2, O_UNDEF, O_UNDEF, 0, 0, 0, 0, 1, 0,
                        S_CROSS_NIC),
    /* paths.cc ncclPxnDisable (int), tested with == 1 (search.cc), != 1
     * (paths.cc), == 0 (init.cc) and as a boolean (enqueue.cc). */
    [R_PXN_DISABLE] = INT(C_I32, 0, 1, O_UNDEF, O_UNDEF, 0, 0, 0, 0, 1, 0,
                          S_PXN_DISABLE),
    /* search.cc ncclTopoGetNetDev: int pxnLevel, 0..2. */
    [R_P2P_PXN_LEVEL] = INT(C_I32, 0, 2, O_UNDEF, O_UNDEF, 0, 0, 0, 0, 1, 0,
                            S_CROSS_NIC),
    /* paths.cc ncclTopoCheckP2p: 2 skips the NVML check, any other nonzero
     * value ignores a disabled P2P (like 1). */
    [R_IGNORE_DISABLED_P2P] = INT(C_I64, 0, 2, O_AS, O_AS, 0, 0, 1, 1, 1, 0,
                                  S_IGNORE_DISABLED_P2P),
    /* paths.cc ncclTopoCheckGdr: 0 off, a negative value auto, positive on. */
    [R_NET_GDR_READ] = INT(C_I32, 0, 1, O_AS, O_AS, F_HIGH_WARN, 0, -2, 1, -2, -1,
                           S_NET_GDR_READ),

    /* net_ib.cc ncclIbRtrQp/ncclIbRtsQp: the verbs attributes are 8-bit, and
     * the hardware takes a 5-bit ACK timeout, a 3-bit retry count, a 4-bit
     * service level; -1 leaves SL/TC to NCCL (ncclIbConnect). */
    [R_IB_TIMEOUT] = INT(C_U8, 0, 31, O_NONE, O_FAIL, 0, 0, 0, 0, 1, 0,
                         S_IB_TIMEOUT),
    [R_IB_RETRY] = INT(C_U8, 0, 7, O_NONE, O_FAIL, 0, 0, 0, 0, 1, 0,
                       S_IB_TIMEOUT),
    [R_IB_SL] = INT(C_U8, 0, 15, O_NONE, O_FAIL, 0, 0, 0, 0, -1, -1,
                    S_IB_SL),
    [R_IB_TC] = INT(C_U8, 0, 255, O_NONE, O_NONE, 0, 0, 0, 0, -1, -1, 0),
    /* net_ib.cc ncclIbGetGidIndex (int): >= 0 is the index, a negative
     * value selects it automatically (-1). */
    [R_IB_GID] = INT(C_I32, -1, 255, O_CLAMP, O_FAIL, 0, 0, 0, 0, 1, 0,
                     S_IB_GID),
    /* net_ib.cc ncclIbConnect/ncclIbAccept: nqps = env * ndevs into a table of
     * NCCL_IB_MAX_QPS (128) entries, with no check. */
    [R_IB_QPS] = INT(C_I64, 1, 128, O_FAIL, O_FAIL, 0, 0, 0, 0, 1, 0,
                     S_IB_QPS),
    /* net_ib.cc ncclIbGetGidIndex: compared with a GID's RoCE version. */
    [R_IB_ROCE] = INT(C_I32, 1, 2, O_UNDEF, O_UNDEF, 0, 0, 0, 0, 1, 0,
                      S_IB_ROCE),
    /* net_ib.cc ncclIbRelaxedOrderingCapable: 1 or 2 try it, anything else is off. */
    [R_IB_RELAXED_ORDERING] = INT(C_I32, 0, 2, O_AS, O_AS, 0, 0, 0, 0, 1, 0,
                                  S_IB_RELAXED_ORDERING),
    /* net_ib.cc ncclIbInitDevices: > 0 and == 2; gin_host_gdaki.cc: a boolean. */
    [R_IB_DATA_DIRECT] = INT(C_I64, 0, 2, O_UNDEF, O_UNDEF, 0, 0, 0, 0, 1, 0,
                             S_IB_DATA_DIRECT),
    /* shm.cc initCeOperation: bit 1 sender side, bit 2 receiver side. */
    [R_SHM_MEMCPY_MODE] = INT(C_I64, 0, 3, O_UNDEF, O_UNDEF, 0, 0, 0, 0, 1, 0,
                              S_SHM_MEMCPY_MODE),
    /* shm.cc initCeOperation: anything but 1 or 2 "Ignoring SHM locality": 2. */
    [R_SHM_LOCALITY] = INT(C_I32, 1, 2, O_AS, O_AS, 0, 0, 2, 2, 1, 0,
                           S_SHM_LOCALITY),
    /* enqueue.cc ncclLaunchKernel: (CUlaunchMemSyncDomain): 0 default, 1 remote. */
    [R_MEM_SYNC_DOMAIN] = INT(C_I32, 0, 1, O_FAIL, O_FAIL, 0, 0, 0, 0, 1, 0,
                              S_MEM_SYNC_DOMAIN),
    /* net_socket.cc ncclNetSocketGetNsockNthread (int): -2 auto; above
     * MAX_THREADS (16) "setting to 16"; sockets: threads x sockets is at most
     * MAX_SOCKETS (64), more is cut down. */
    [R_SOCKET_NTHREADS] = INT(C_I32, 0, 16, O_UNDEF, O_CLAMP, 0, 0, 0, 0, -2, -2,
                              S_SOCKET_NTHREADS),
    [R_SOCKET_NSOCKS] = INT(C_I32, 1, 64, O_UNDEF, O_CLAMP, 0, 0, 0, 0, -2, -2,
                            S_SOCKET_NSOCKS),
    /* socket.cc socketSetFlags (int): > 0 is set with setsockopt, -1 or any
     * other value keeps the system's size. */
    [R_SOCKET_BUF] = INT(C_I32, 1, INT_MAX, O_DEFAULT, O_NONE, 0, 0, 0, 0, -1, -1, 0),
    /* init.cc devCommSetup (uint32_t): not a power of 2 "is being ignored",
     * more than 1 GiB is cut to 1 GiB. */
    [R_WORK_FIFO] = INT(C_U32, 1, 1 << 30, O_UNDEF, O_CLAMP, F_POW2, 0, 0, 0, 1, 0,
                        S_WORK_FIFO),
    /* gin_host.cc ncclGinConnectOnce (int): outside 0..1 GiB-1 "has invalid
     * value": 65536. */
    [R_GIN_POOL] = INT(C_I32, 0, (1 << 30) - 1, O_AS, O_AS, 0, 0, 65536, 65536, 1, 0,
                       S_GIN_POOL),
    /* plugin/net.cc initPluginLibsOnceFunc: -1 auto, 2 proxy, 3 GDAKI. */
    [R_GIN_TYPE] = INT(C_I64, 2, 3, O_UNDEF, O_UNDEF, 0, 0, 0, 0, -1, -1,
                       S_GIN_TYPE),
    /* gin_host.cc ncclGinConnectOnce: std::min<int>(NCCL_GIN_MAX_CONTEXTS 4, env). */
    [R_GIN_NCONTEXTS] = INT(C_I32, 1, 4, O_UNDEF, O_CLAMP, 0, 0, 0, 0, 1, 0,
                            S_GIN_NCONTEXTS),
    /* gin_host_proxy.cc ncclGinProxyCreateContext: uint64_t; -1 is the
     * default; more than the plugin's maximum is capped. */
    [R_GIN_QUEUE] = INT(C_I64, 1, LLONG_MAX, O_UNDEF, O_NONE, 0, 0, 0, 0, -1, -1,
                        S_GIN_QUEUE),
    /* init.cc fillInfo: -2 hashes the rack serial, -1 keeps NVML's, anything
     * else is the clique id, an unsigned int. */
    [R_MNNVL_CLIQUE] = INT(C_U32, 0, UINT_MAX, O_NONE, O_NONE, 0, 0, 0, 0, -2, -1, 0),
    /* dev_runtime.cc ncclDevrInitOnce: size_t bigSize; -1 and 0 are auto. */
    [R_WIN_STRIDE] = INT(C_I64, 1, LLONG_MAX, O_UNDEF, O_NONE, 0, 0, 0, 0, -1, 0,
                         S_WIN_STRIDE),
    /* proxy.cc ncclProxyProgress: -1 none, else signal(sig, ...). */
    [R_SIGNAL] = INT(C_I32, 1, 64, O_UNDEF, O_UNDEF, 0, 0, 0, 0, -1, -1,
                     S_SIGNAL),
    /* enqueue.cc calcCollChunking: (int), -2 auto, else a chunk size cap. */
    [R_NVLSTREE_CHUNK] = INT(C_I32, 1, INT_MAX, O_UNDEF, O_NONE, 0, 0, 0, 0, -2, -2,
                             S_NVLSTREE_CHUNK),
    /* enqueue.cc ncclInitKernelsForDevice: int, nonzero is passed to CUDA
     * as a shared-memory carveout percentage (-1: CUDA's default). */
    [R_CARVEOUT] = INT(C_I32, 0, 100, O_FAIL, O_FAIL, 0, 0, 0, 0, -1, -1,
                       S_CARVEOUT),

    /* tuning.cc ncclTopoTuneModel -> parseList: ';' segments, "func:" prefixes
     * on all but the first, ',' tokens, a leading '^', strcasecmp; strtok
     * skips empty tokens; an unknown token or prefix, or a later segment
     * without a prefix, is ncclInvalidUsage. */
    [R_PROTO] = { V_LIST, 0, 0, 0, F_FUNCS, 0, 0, 0, 0, 0, NONE, S_PROTO_TOKENS,
                  S_PROTO },
    [R_ALGO] = { V_LIST, 0, 0, 0, F_FUNCS, 0, 0, 0, 0, 0, NONE,
                 S_ALGO_TOKENS,
                 S_PROTO },
    /* paths.cc ncclGetLevel: strcmp against topoPathTypeStr[0..PATH_SYS]
     * (topo.cc), else, when it starts with a digit, (int)strtol as the old
     * numbering 0 LOC 1 PIX 2 PXB 3 PHB 4+ SYS; anything else is ignored. */
    [R_LEVEL] = { V_LEVEL, 0, 0, 0, F_CASE, 0, 0, 0, 0, 0, NONE,
                  S_LEVEL_TOKENS, S_LEVEL },
    /* debug.cc ncclDebugInit: strcasecmp; anything else logs nothing. */
    [R_DEBUG] = { V_ENUM, 0, 0, 0, 0, 0, 0, 0, 0, 0, NONE, S_DEBUG_TOKENS,
                  S_DEBUG },
    /* debug.cc ncclDebugInit: strtok list, unknown names skipped; the mask
     * starts at 0 (or all with '^'), so an empty value masks every line. */
    [R_SUBSYS] = { V_MASK, 0, 0, 0, F_EMPTY_ERR, 0, 0, 0, 0, 0, NONE,
                   S_SUBSYS_TOKENS,
                   S_SUBSYS },
    [R_TS_LEVELS] = { V_MASK, 0, 0, 0, F_EMPTY_ERR, 0, 0, 0, 0, 0, NONE,
                      S_TS_LEVELS_TOKENS,
                      S_TS_LEVELS },
    /* debug.cc ncclDebugInit: an empty format leaves every line without one. */
    [R_TS_FORMAT] = STRING(F_EMPTY_ERR, S_TS_FORMAT),
    /* init.cc envConfigOverride: an empty name matches no network plugin. */
    [R_NET] = STRING(F_EMPTY_ERR, S_NET),
    /* plugin/net.cc initPluginLibsOnceFunc: empty is "none", unset tries
     * libnccl-net.so. */
    [R_NET_PLUGIN] = STRING(F_EMPTY_ERR,
                            S_NET_PLUGIN),
    /* misc/utils.cc getHostHashOnce: the value replaces the host name. */
    [R_HOSTID] = STRING(F_EMPTY_ERR, S_HOSTID),
    /* bootstrap.cc bootstrapNetInit, bootstrapGetUniqueId: ncclSocketGetAddrFromString. */
    [R_COMM_ID] = STRING(F_EMPTY_ERR, S_COMM_ID),
    /* socket.cc ncclFindInterfaces: only strlen(env) > 1 is used. */
    [R_IFNAME] = STRING(F_MIN2, S_IFNAME),
    /* socket.cc envSocketFamily: strcmp, anything else is not forced. */
    [R_FAMILY] = { V_ENUM, 0, 0, 0, F_CASE, 0, 0, 0, 0, 0, NONE, S_FAMILY_TOKENS,
                   S_FAMILY },
    /* net_ib.cc envIbAddrFamily: strcmp, anything else is AF_INET. */
    [R_IB_FAMILY] = { V_ENUM, 0, 0, 0, F_CASE, 0, 0, 0, 0, 0, NONE, S_FAMILY_TOKENS,
                      S_IB_FAMILY },
    /* init.cc initTransportsRank: strcasecmp "GROUP", anything else PARALLEL. */
    [R_LAUNCH_MODE] = { V_ENUM, 0, 0, 0, 0, 0, 0, 0, 0, 0, NONE, S_LAUNCH_MODE_TOKENS,
                        S_LAUNCH_MODE },
    /* topo.cc ncclTopoGetSystem: xml.cc ncclTopoGetXmlFromFile cannot open "",
     * and the default virtualTopology.xml is not read either. */
    [R_TOPO_FILE] = STRING(F_EMPTY_ERR, S_TOPO_FILE),
    /* search.cc ncclTopoCompute: xml.cc ncclTopoGetXmlGraphFromFile fails
     * with ncclSystemError. */
    [R_GRAPH_FILE] = STRING(F_EMPTY_ERR, S_GRAPH_FILE),
    /* init.cc initTransportsRank, search.cc ncclTopoDumpGraphs: xml.cc
     * ncclTopoDumpXmlToFile cannot open "" and dumps nothing (a warning). */
    [R_PATH_WRITE] = STRING(0, S_PATH_WRITE),
    /* sym_kernels.cc kernelMask_user: a name that matches no kernel enables none. */
    [R_SYM_KERNEL] = STRING(F_EMPTY_ERR, S_SYM_KERNEL),
    /* ras/client_support.cc rasClientInitSocket: ncclSocketGetAddrFromString. */
    [R_RAS_ADDR] = STRING(F_EMPTY_ERR, S_RAS_ADDR),
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

/* NCCL 2.28.9's names, sorted, as one string rather than a table of
 * pointers (a quarter of the size): each entry is its rule id plus one (so
 * never NUL), the name without "NCCL_", and a NUL. */
#define N(r, name) RULE_##r name "\0"
#define RULE_R_STRING "\001"
#define RULE_R_STRING_EMPTY_SAME "\002"
#define RULE_R_UNREAD "\003"
#define RULE_R_I64 "\004"
#define RULE_R_I32 "\005"
#define RULE_R_U32 "\006"
#define RULE_R_U16 "\007"
#define RULE_R_SIZE_I32 "\010"
#define RULE_R_SWITCH_ONE "\011"
#define RULE_R_SWITCH "\012"
#define RULE_R_SWITCH_I32 "\013"
#define RULE_R_SWITCH_AUTO1 "\014"
#define RULE_R_SWITCH_DEFAULT2 "\015"
#define RULE_R_P2P_DISABLE "\016"
#define RULE_R_COLLNET_ENABLE "\017"
#define RULE_R_WARN_DEBUG_INFO "\020"
#define RULE_R_BUFFSIZE "\021"
#define RULE_R_NTHREADS "\022"
#define RULE_R_LL128_NTHREADS "\023"
#define RULE_R_MIN_NCHANNELS "\024"
#define RULE_R_MAX_NCHANNELS "\025"
#define RULE_R_CTAS "\026"
#define RULE_R_MIN_P2P_NCHANNELS "\027"
#define RULE_R_MAX_P2P_NCHANNELS "\030"
#define RULE_R_CTA_POLICY "\031"
#define RULE_R_BLOCKING "\032"
#define RULE_R_CGA_CLUSTER "\033"
#define RULE_R_CONFIG_POSITIVE "\034"
#define RULE_R_CONFIG_01 "\035"
#define RULE_R_SPLIT_SHARE "\036"
#define RULE_R_CUMEM "\037"
#define RULE_R_NVLS_ENABLE "\040"
#define RULE_R_MNNVL_ENABLE "\041"
#define RULE_R_PAT_ENABLE "\042"
#define RULE_R_CROSS_NIC "\043"
#define RULE_R_PXN_DISABLE "\044"
#define RULE_R_P2P_PXN_LEVEL "\045"
#define RULE_R_IGNORE_DISABLED_P2P "\046"
#define RULE_R_NET_GDR_READ "\047"
#define RULE_R_IB_TIMEOUT "\050"
#define RULE_R_IB_RETRY "\051"
#define RULE_R_IB_SL "\052"
#define RULE_R_IB_TC "\053"
#define RULE_R_IB_GID "\054"
#define RULE_R_IB_QPS "\055"
#define RULE_R_IB_ROCE "\056"
#define RULE_R_IB_RELAXED_ORDERING "\057"
#define RULE_R_IB_DATA_DIRECT "\060"
#define RULE_R_SHM_MEMCPY_MODE "\061"
#define RULE_R_SHM_LOCALITY "\062"
#define RULE_R_MEM_SYNC_DOMAIN "\063"
#define RULE_R_SOCKET_NTHREADS "\064"
#define RULE_R_SOCKET_NSOCKS "\065"
#define RULE_R_SOCKET_BUF "\066"
#define RULE_R_WORK_FIFO "\067"
#define RULE_R_GIN_POOL "\070"
#define RULE_R_GIN_TYPE "\071"
#define RULE_R_GIN_NCONTEXTS "\072"
#define RULE_R_GIN_QUEUE "\073"
#define RULE_R_MNNVL_CLIQUE "\074"
#define RULE_R_WIN_STRIDE "\075"
#define RULE_R_SIGNAL "\076"
#define RULE_R_NVLSTREE_CHUNK "\077"
#define RULE_R_CARVEOUT "\100"
#define RULE_R_PROTO "\101"
#define RULE_R_ALGO "\102"
#define RULE_R_LEVEL "\103"
#define RULE_R_DEBUG "\104"
#define RULE_R_SUBSYS "\105"
#define RULE_R_TS_LEVELS "\106"
#define RULE_R_TS_FORMAT "\107"
#define RULE_R_NET "\110"
#define RULE_R_NET_PLUGIN "\111"
#define RULE_R_HOSTID "\112"
#define RULE_R_COMM_ID "\113"
#define RULE_R_IFNAME "\114"
#define RULE_R_FAMILY "\115"
#define RULE_R_IB_FAMILY "\116"
#define RULE_R_LAUNCH_MODE "\117"
#define RULE_R_TOPO_FILE "\120"
#define RULE_R_PATH_WRITE "\121"
#define RULE_R_SYM_KERNEL "\122"
#define RULE_R_RAS_ADDR "\123"
#define RULE_R_GRAPH_FILE "\124"

/* Each line: the rule, the name; where NCCL reads it is in
 * init/nccl/nccl_params.tsv. */
const char nccl_names[] =
    N(R_ALGO, "ALGO")
    N(R_SWITCH_ONE, "ALLOC_P2P_NET_LL_BUFFERS")
    N(R_BUFFSIZE, "BUFFSIZE")
    N(R_CGA_CLUSTER, "CGA_CLUSTER_SIZE")
    N(R_SWITCH_ONE, "CHECK_POINTERS")
    N(R_I64, "CHUNK_SIZE")
    N(R_COLLNET_ENABLE, "COLLNET_ENABLE")
    N(R_I32, "COLLNET_NODE_THRESHOLD")
    N(R_BLOCKING, "COMM_BLOCKING")
    N(R_COMM_ID, "COMM_ID")
    N(R_SWITCH_I32, "COMM_SHRINK_SHARE_RESOURCES")
    N(R_SPLIT_SHARE, "COMM_SPLIT_SHARE_RESOURCES")
    N(R_STRING_EMPTY_SAME, "CONF_FILE")
    N(R_I32, "CONNECT_ROUND_MAX_PEERS")
    N(R_SWITCH_I32, "CREATE_THREAD_CONTEXT")
    N(R_CROSS_NIC, "CROSS_NIC")
    N(R_CTA_POLICY, "CTA_POLICY")
    N(R_CUMEM, "CUMEM_ENABLE")
    N(R_SWITCH_AUTO1, "CUMEM_HOST_ENABLE")
    N(R_DEBUG, "DEBUG")
    N(R_STRING_EMPTY_SAME, "DEBUG_FILE")
    N(R_SUBSYS, "DEBUG_SUBSYS")
    N(R_TS_FORMAT, "DEBUG_TIMESTAMP_FORMAT")
    N(R_TS_LEVELS, "DEBUG_TIMESTAMP_LEVELS")
    N(R_SWITCH, "DMABUF_ENABLE")
    N(R_STRING_EMPTY_SAME, "ENV_PLUGIN")
    N(R_SWITCH_ONE, "GDRCOPY_ENABLE")
    N(R_SWITCH_ONE, "GDRCOPY_FIFO_ENABLE")
    N(R_SWITCH, "GDRCOPY_FLUSH_ENABLE")
    N(R_SWITCH, "GDRCOPY_SYNC_ENABLE")
    N(R_SWITCH, "GDR_FLUSH_DISABLE")
    N(R_GIN_POOL, "GIN_COUNTER_POOL_SIZE")
    N(R_SWITCH, "GIN_ENABLE")
    N(R_I64, "GIN_ERROR_QUERY_SEC")
    N(R_I32, "GIN_GDAKI_NIC_HANDLER")
    N(R_U32, "GIN_GDAKI_QP_DEPTH")
    N(R_GIN_NCONTEXTS, "GIN_NCONTEXTS")
    N(R_GIN_QUEUE, "GIN_PROXY_QUEUE_SIZE")
    N(R_GIN_POOL, "GIN_SIGNAL_POOL_SIZE")
    N(R_GIN_TYPE, "GIN_TYPE")
    N(R_PATH_WRITE, "GRAPH_DUMP_FILE")
    N(R_I64, "GRAPH_DUMP_FILE_RANK")
    N(R_GRAPH_FILE, "GRAPH_FILE")
    N(R_UNREAD, "GRAPH_HELPER_DISABLE")
    N(R_SWITCH, "GRAPH_MIXING_SUPPORT")
    N(R_SWITCH, "GRAPH_REGISTER")
    N(R_UNREAD, "GROUP_CUDA_STREAM")
    N(R_HOSTID, "HOSTID")
    N(R_SWITCH_DEFAULT2, "IB_ADAPTIVE_ROUTING")
    N(R_IB_FAMILY, "IB_ADDR_FAMILY")
    N(R_STRING_EMPTY_SAME, "IB_ADDR_RANGE")
    N(R_I64, "IB_AR_THRESHOLD")
    N(R_IB_DATA_DIRECT, "IB_DATA_DIRECT")
    N(R_SWITCH, "IB_DISABLE")
    N(R_SWITCH, "IB_ECE_ENABLE")
    N(R_IB_TC, "IB_FIFO_TC")
    N(R_IB_GID, "IB_GID_INDEX")
    N(R_STRING_EMPTY_SAME, "IB_HCA")
    N(R_SWITCH, "IB_MERGE_NICS")
    N(R_SWITCH, "IB_MERGE_VFS")
    N(R_SWITCH, "IB_MQP_RETRY_ALL")
    N(R_I32, "IB_MQP_RETRY_CNT")
    N(R_I32, "IB_MQP_RETRY_SLEEP_MSEC")
    N(R_IB_RELAXED_ORDERING, "IB_PCI_RELAXED_ORDERING")
    N(R_U16, "IB_PKEY")
    N(R_IB_QPS, "IB_QPS_PER_CONNECTION")
    N(R_IB_RETRY, "IB_RETRY_CNT")
    N(R_SWITCH, "IB_RETURN_ASYNC_EVENTS")
    N(R_IB_ROCE, "IB_ROCE_VERSION_NUM")
    N(R_I32, "IB_ROUTABLE_FLID_GID_INDEX")
    N(R_IB_SL, "IB_SL")
    N(R_SWITCH, "IB_SPLIT_DATA_ON_QPS")
    N(R_IB_TC, "IB_TC")
    N(R_IB_TIMEOUT, "IB_TIMEOUT")
    N(R_SWITCH, "IB_USE_INLINE")
    N(R_SWITCH, "IB_WARN_RAIL_LOCAL")
    N(R_SWITCH, "IGNORE_CPU_AFFINITY")
    N(R_IGNORE_DISABLED_P2P, "IGNORE_DISABLED_P2P")
    N(R_CARVEOUT, "L1_SHARED_MEMORY_CARVEOUT")
    N(R_LAUNCH_MODE, "LAUNCH_MODE")
    N(R_SWITCH, "LAUNCH_ORDER_IMPLICIT")
    N(R_SWITCH, "LAUNCH_RACE_FATAL")
    N(R_SWITCH, "LEGACY_CUDA_REGISTER")
    N(R_BUFFSIZE, "LL128_BUFFSIZE")
    N(R_SWITCH, "LL128_C2C")
    N(R_LL128_NTHREADS, "LL128_NTHREADS")
    N(R_BUFFSIZE, "LL_BUFFSIZE")
    N(R_SWITCH, "LOCAL_REGISTER")
    N(R_CTAS, "MAX_CTAS")
    N(R_MAX_NCHANNELS, "MAX_NCHANNELS")
    N(R_MAX_NCHANNELS, "MAX_NRINGS")
    N(R_MAX_P2P_NCHANNELS, "MAX_P2P_NCHANNELS")
    N(R_MEM_SYNC_DOMAIN, "MEM_SYNC_DOMAIN")
    N(R_CTAS, "MIN_CTAS")
    N(R_MIN_NCHANNELS, "MIN_NCHANNELS")
    N(R_MIN_NCHANNELS, "MIN_NRINGS")
    N(R_MIN_P2P_NCHANNELS, "MIN_P2P_NCHANNELS")
    N(R_MNNVL_CLIQUE, "MNNVL_CLIQUE_ID")
    N(R_MNNVL_ENABLE, "MNNVL_ENABLE")
    N(R_SWITCH, "MNNVL_RAIL_PER_HOST")
    N(R_SWITCH, "MNNVL_SCATTER_NETS_ENABLE")
    N(R_I64, "MNNVL_UUID")
    N(R_CONFIG_POSITIVE, "NCHANNELS_PER_NET_PEER")
    N(R_NET, "NET")
    N(R_STRING_EMPTY_SAME, "NETDEVS_POLICY")
    N(R_SWITCH_ONE, "NET_DISABLE_INTRA")
    N(R_SWITCH, "NET_FORCE_FLUSH")
    N(R_STRING, "NET_FORCE_MERGE")
    N(R_SWITCH, "NET_GDR_C2C")
    N(R_LEVEL, "NET_GDR_LEVEL")
    N(R_NET_GDR_READ, "NET_GDR_READ")
    N(R_STRING, "NET_MERGE_LEVEL")
    N(R_SWITCH, "NET_OPTIONAL_RECV_COMPLETION")
    N(R_I64, "NET_OVERHEAD")
    N(R_NET_PLUGIN, "NET_PLUGIN")
    N(R_I32, "NET_PLUGIN_REF_COUNT")
    N(R_SWITCH_DEFAULT2, "NET_SHARED_BUFFERS")
    N(R_SWITCH, "NET_SHARED_COMMS")
    N(R_SOCKET_NSOCKS, "NSOCKS_PERTHREAD")
    N(R_NTHREADS, "NTHREADS")
    N(R_SWITCH, "NVB_DISABLE")
    N(R_SWITCH, "NVB_PRECONNECT")
    N(R_CONFIG_01, "NVLINK_UTIL_CENTRIC_SCHED_ENABLE")
    N(R_NVLSTREE_CHUNK, "NVLSTREE_MAX_CHUNKSIZE")
    N(R_SIZE_I32, "NVLS_CHUNKSIZE")
    N(R_NVLS_ENABLE, "NVLS_ENABLE")
    N(R_CONFIG_POSITIVE, "NVLS_NCHANNELS")
    N(R_SWITCH, "NVTX_DISABLE")
    N(R_SWITCH, "OOB_NET_ENABLE")
    N(R_STRING_EMPTY_SAME, "OOB_NET_IFNAME")
    N(R_SWITCH, "P2P_DIRECT_DISABLE")
    N(R_P2P_DISABLE, "P2P_DISABLE")
    N(R_LEVEL, "P2P_LEVEL")
    N(R_I64, "P2P_LL_THRESHOLD")
    N(R_SIZE_I32, "P2P_NET_CHUNKSIZE")
    N(R_SIZE_I32, "P2P_NVL_CHUNKSIZE")
    N(R_SIZE_I32, "P2P_PCI_CHUNKSIZE")
    N(R_P2P_PXN_LEVEL, "P2P_PXN_LEVEL")
    N(R_SWITCH_DEFAULT2, "P2P_READ_ENABLE")
    N(R_SIZE_I32, "P2P_SCHEDULE_GROUP_SIZE")
    N(R_SWITCH_I32, "P2P_USE_CUDA_MEMCPY")
    N(R_PAT_ENABLE, "PAT_ENABLE")
    N(R_STRING_EMPTY_SAME, "PROFILER_PLUGIN")
    N(R_I64, "PROGRESS_APPENDOP_FREQ")
    N(R_PROTO, "PROTO")
    N(R_I64, "PROXY_APPEND_BATCH_SIZE")
    N(R_STRING, "PROXY_CPUSET")
    N(R_SIGNAL, "PROXY_DUMP_SIGNAL")
    N(R_SWITCH, "PXN_C2C")
    N(R_PXN_DISABLE, "PXN_DISABLE")
    N(R_RAS_ADDR, "RAS_ADDR")
    N(R_SWITCH_ONE, "RAS_ENABLE")
    N(R_I64, "RAS_TIMEOUT_FACTOR")
    N(R_SWITCH, "REPORT_CONNECT_PROGRESS")
    N(R_SWITCH, "RUNTIME_CONNECT")
    N(R_SWITCH, "SET_CPU_STACK_SIZE")
    N(R_SWITCH_ONE, "SET_STACK_SIZE")
    N(R_SWITCH_ONE, "SET_THREAD_NAME")
    N(R_SWITCH_ONE, "SHM_DISABLE")
    N(R_SHM_LOCALITY, "SHM_LOCALITY")
    N(R_SHM_MEMCPY_MODE, "SHM_MEMCPY_MODE")
    N(R_SWITCH, "SHM_USE_CUDA_MEMCPY")
    N(R_SWITCH, "SINGLE_PROC_MEM_REG_ENABLE")
    N(R_FAMILY, "SOCKET_FAMILY")
    N(R_IFNAME, "SOCKET_IFNAME")
    N(R_I64, "SOCKET_INLINE")
    N(R_I32, "SOCKET_MIN_TASKSIZE")
    N(R_SOCKET_NTHREADS, "SOCKET_NTHREADS")
    N(R_SOCKET_BUF, "SOCKET_RCVBUF")
    N(R_I64, "SOCKET_RETRY_CNT")
    N(R_I64, "SOCKET_RETRY_SLEEP_MSEC")
    N(R_SOCKET_BUF, "SOCKET_SNDBUF")
    N(R_I32, "SYM_CTAS")
    N(R_SYM_KERNEL, "SYM_KERNEL")
    N(R_STRING_EMPTY_SAME, "THREAD_THRESHOLDS")
    N(R_PATH_WRITE, "TOPO_DUMP_FILE")
    N(R_I64, "TOPO_DUMP_FILE_RANK")
    N(R_TOPO_FILE, "TOPO_FILE")
    N(R_STRING_EMPTY_SAME, "TUNER_PLUGIN")
    N(R_I64, "UID_STAGGER_RATE")
    N(R_I64, "UID_STAGGER_THRESHOLD")
    N(R_SWITCH, "UNPACK_DOUBLE_NCHANNELS")
    N(R_WARN_DEBUG_INFO, "WARN_ENABLE_DEBUG_INFO")
    N(R_SWITCH, "WIN_ENABLE")
    N(R_WIN_STRIDE, "WIN_STRIDE")
    N(R_I64, "WORK_ARGS_BYTES")
    N(R_WORK_FIFO, "WORK_FIFO_BYTES");

/* A binary search over nccl_names itself, by byte offset: the middle
 * byte is walked back to the start of its entry (the byte after a NUL),
 * and the half that cannot hold the name is dropped. No index to build:
 * building one cost every start 190 strlen() calls (some 16 000
 * instructions, a tenth of a start's), where a lookup now reads a few
 * hundred bytes. The names are in byte order: scripts/nccl-params.py sorts
 * them and a unit test checks. */
int nccl_param_rule(const char *name)
{
    if (strncmp(name, "NCCL_", 5) != 0)
        return -1;
    size_t lo = 0, hi = sizeof nccl_names - 1; /* entry starts; hi: the end */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        while (mid > lo && nccl_names[mid - 1] != '\0')
            mid--;
        const char *p = nccl_names + mid;
        int c = strcmp(p + 1, name + 5);
        if (c == 0)
            return p[0] - 1;
        if (c < 0)
            lo = mid + strlen(p) + 1;
        else
            hi = mid;
    }
    return -1;
}
