/* nccl-probe: the GPU side of nccl-init, an ordinary dynamically linked
 * program (CUDA runtime + libnccl) that asks CUDA and NCCL themselves.
 *
 *   nccl-probe topo [--json] [--rules FILE] [--root DIR]
 *   nccl-probe params [--profile FILE]
 *   nccl-probe allreduce [--min-bytes 8] [--max-bytes 64M] [--iters N] [--warmup N] [--json]
 *   nccl-probe suggest [--rules FILE] [--root DIR] [--gpu MODEL]... [--json]
 *
 * Exit status: 0 fine; 1 a check failed (params: a profile variable NCCL did
 * not report, or reported with another value; allreduce: wrong results);
 * 2 usage; 3 no GPU or no driver (one line on stderr, the CUDA error
 * string); 4 any other CUDA or NCCL error.
 *
 * Plain C: no kernels, so no nvcc. Build with scripts/build-probe.sh. */
#include "probe.h"

int main(int argc, char **argv)
{
    /* nccl-init's log, under the probe's name; no --log-level: warnings
     * (a rules line it does not understand) and errors. */
    log_set_name("nccl-probe");
    log_level = LOG_WARN;
    if (argc < 2)
        usage_error("a command is needed: topo, params, allreduce or suggest");
    cmd = argv[1];
    if (strcmp(cmd, "-h") == 0 || strcmp(cmd, "--help") == 0 || strcmp(cmd, "help") == 0) {
        fputs(usage_text, stdout);
        return 0;
    }
    if (strcmp(cmd, "topo") == 0)
        return cmd_topo(argc, argv);
    if (strcmp(cmd, "params") == 0)
        return cmd_params(argc, argv);
    if (strcmp(cmd, "allreduce") == 0)
        return cmd_allreduce(argc, argv);
    if (strcmp(cmd, "suggest") == 0)
        return cmd_suggest(argc, argv);
    usage_error("unknown command '%s'", cmd);
}
